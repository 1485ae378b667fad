"""Benchmark: seconds from a hand-in to its feedback fetchable, through `grader watch`.

One script, run as root (the service grades only hand-ins owned by the account they name, so
every student is a real temporary account). For each service, its own temporary course and
exchange, the real service as its own process (`grader watch`, --workers workers):

- **baseline**: the service of a named commit (--baseline, default the service before file
  system events and warm feedback pages), run from that commit's ``grader`` package;
- **current**: the service of this checkout.

Hand-ins arrive as on a hub (--shape folders, the default): every student's account writes its
own hand-in folder into the exchange's ``inbound/`` as ``nbgrader submit`` writes it (named
``<student>+<assignment>+<timestamp>+<random>``, the notebook, ``timestamp.txt``, the 128-hex-digit
``submission_secret.txt`` last, then made 0777), each from a process already running as that
account, all released at once (``grader.demo.handin_rush``). Latency runs from a hand-in folder's
last write to its feedback page in the exchange (polled every 10 ms). With --shape submit, this
process runs nbgrader's submit (its exchange classes, in-process, as root, the folder then given
to the account) for each student instead, one after another, and latency runs from the start of
the submit.

Each service gets, in this order:

- idle: once its workers are warm (each has started its kernel zygote), --idle hand-ins one
  after another to an idle service, alternating the 02_softmax model
  answer and a typical wrong one (no max subtraction). p50 / p95 / max, against the targets
  (p50 <= 1 s, p95 <= 1.5 s);
- rushes (--rush, default 30 and 100 hand-ins): every account ready first, then all folders
  written within a moment (the spread is printed; with --shape submit a fifth of the students
  hand in twice). Time from the first hand-in until every page is fetchable, against the targets
  (30 in 20 s, 100 in 60 s), each hand-in's latency (p50, max), and the floor: the same
  notebooks' grading work divided between the workers. The journal is checked afterwards: one
  row per hand-in, every one released, each student's finished in arrival order.

Beside every result: the grading work per hand-in (warm, in-process, measured first), so that a
slower day of the machine shows as such.

The current service's log lines give the seconds of each step (noticed, collected, queued,
screen, grade, feedback, record, handed back, released): their medians over the idle hand-ins
are printed.

Scaling out: the rush of --dask-rush hand-ins through ``grader watch --scheduler`` on a real
``LocalCluster`` of 1 and then 2 worker processes: hand-ins a minute, and their ratio.

Planning: a queueing model fitted to the measured per-hand-in service time (the largest rush's
duration times the workers over its hand-ins: what one hand-in costs a worker on this machine,
contention included; its spread from the in-process measurements) gives, for a class of 300 and
of 1000 students handing in over the last 10 minutes before a deadline (arrival rate rising
linearly to the deadline), the p95 wait (hand-in to feedback) with 2, 8 and 32 workers, and the
workers a course needs for a p95 under 10 s. The model is a discrete-event simulation of
first-come-first-served workers (``plan``), repeated --replications times.

    python benchmarks/feedback_latency.py [--idle 6] [--rush 30,100] [--workers 2] [--shape folders]
        [--baseline COMMIT|none] [--baseline-rush 30] [--dask-rush 30] [--skip-local]
"""
from __future__ import annotations

import argparse
import heapq
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ASSIGNMENT = "02_softmax"
NOTEBOOK_ID = "softmax"
HANDED_IN = ("model_answer", "softmax_no_max_subtraction")
BASELINE_COMMIT = "7c65bea"  # the service polling every second, a fresh converter per page
REPO = Path(__file__).resolve().parent.parent
DEADLINE_WINDOW = 600.0  # seconds before the deadline over which a class hands in
CLASSES = (300, 1000)
WORKER_COUNTS = (2, 8, 32)
P95_TARGET = 10.0  # seconds, of the planning model
SHAPES = ("folders", "submit")
STARTS = {"folders": "the last write of its folder", "submit": "the start of its nbgrader submit"}
SHAPE_WORDS = {"folders": "each account writes its hand-in folder, all at once",
               "submit": "nbgrader submit one after another, a fifth twice"}
IDLE_TARGETS = {"p50": 1.0, "p95": 1.5}  # seconds from the hand-in to its page, idle service
RUSH_TARGETS = {30: 20.0, 100: 60.0}  # hand-ins -> seconds until every page is fetchable
STEP = re.compile(r"(?P<name>[a-z ]+?) (?P<value>[0-9.]+) s")  # in the service's log line
TOTAL = re.compile(r"(?P<value>[0-9.]+) s after it landed")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


# ---- the grading work alone (floor and service-time samples) ----------------------------------

def grading_work(top: Path, notebooks: dict[str, str], runs: int) -> tuple[list[float], dict[str, list[float]]]:
    """Seconds of grade + feedback page of each notebook, warm, in this process (``runs`` each),
    and the seconds of each part of them (the grading's steps, ``grader.grading.step_times``, and the page)."""
    from grader_tests.checkout import create_course
    from grader.grading import nbgrader_apps
    from grader.grading.grade_one import grade_one
    from grader.release import generate_release

    course = create_course(top / "work")
    generate_release(course, ASSIGNMENT)
    seconds, parts = [], {}
    for run in range(runs + 1):
        for kind, text in notebooks.items():
            student = f"w{run}{kind[:6]}".replace("_", "")
            path = course.submitted_notebook(student, ASSIGNMENT)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            started = time.perf_counter()
            outcome = grade_one(str(course.root), ASSIGNMENT, student)
            graded = time.perf_counter()
            nbgrader_apps.generate_feedback_warm(course, ASSIGNMENT, student)
            if run:  # the first round warms the process up
                seconds.append(time.perf_counter() - started)
                for name, value in {**outcome.times, "feedback page": time.perf_counter() - graded}.items():
                    parts.setdefault(name, []).append(value)
    return seconds, parts


# ---- one service under test ---------------------------------------------------------------------

class Trial:
    """A course, an exchange and a running ``grader watch`` of one service's code."""

    def __init__(self, top: Path, label: str, pythonpath: str | None, notebooks: dict[str, str],
                 accounts: dict[str, str], workers: int, scheduler: str | None = None,
                 shape: str = "folders"):
        from grader_tests.checkout import create_course
        from grader.release import generate_release
        from grader.service.exchange import CourseExchange

        self.top, self.label, self.notebooks, self.accounts = top / label, label, notebooks, accounts
        self.workers, self.shape = workers, shape
        self.exchange_root = self.top / "exchange"
        os.environ["GRADER_EXCHANGE_ROOT"] = str(self.exchange_root)
        self.course = create_course(self.top / "course")
        generate_release(self.course, ASSIGNMENT)
        exchange = CourseExchange(self.course)  # with this checkout's config: same course id and exchange
        exchange.release_assignment(ASSIGNMENT)
        self.course_id = exchange.course_id
        if pythonpath and (Path(pythonpath) / "nbgrader_config.py").is_file():
            # the course config of that commit, for its service: it imports only what its grader
            # package holds (this process, whose package differs, never loads it)
            shutil.copyfile(Path(pythonpath) / "nbgrader_config.py", self.course.root / "nbgrader_config.py")
        env = dict(os.environ)
        if pythonpath:
            env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
        self.log_path = self.top / "watch.log"
        self._log = open(self.log_path, "w")
        self.service = subprocess.Popen(
            [sys.executable, "-m", "grader.cli", "watch", "--course", str(self.course.root),
             "--fix-permissions", "--workers", str(workers)]
            + (["--scheduler", scheduler, "--insecure-scheduler"] if scheduler else []),
            stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=str(self.top))

    def side(self, student: str):
        from grader.service.student import StudentSide

        return StudentSide(self.accounts[student], self.top / "homes" / student, self.course_id,
                           self.exchange_root)

    def prepare(self, student: str, kind: str):
        os.environ["GRADER_EXCHANGE_ROOT"] = str(self.exchange_root)
        side = self.side(student)
        folder = side.fetch(ASSIGNMENT)
        (folder / f"{NOTEBOOK_ID}.ipynb").write_text(self.notebooks[kind])
        return side

    def submit(self, side) -> tuple[Path, float]:
        """Hand in; returns (where its feedback page will be, epoch start of the submit)."""
        started = time.time()
        side.submit(ASSIGNMENT)
        latest = sorted((side.home / ".nbgrader_cache" / self.course_id).glob(f"*+{ASSIGNMENT}+*"))[-1]
        return self.feedback_path((latest / "submission_secret.txt").read_text()), started

    def feedback_path(self, secret: str) -> Path:
        from nbgrader.utils import notebook_hash

        return (self.exchange_root / self.course_id / "feedback"
                / f"{notebook_hash(secret=secret, notebook_id=NOTEBOOK_ID)}.html")

    def write_folders(self, students: dict[str, str]) -> list[tuple[Path, float]]:
        """Each student's account writes its hand-in folder at once (``grader.demo.handin_rush``),
        ``students``: student -> kind of notebook (a key of ``notebooks``); (where each page will
        be, epoch seconds of its folder's last write), in the order of ``students``."""
        from grader.demo.handin_rush import Rush, handin_from_home

        handins = [handin_from_home(self.accounts[student], ASSIGNMENT,
                                    {f"{NOTEBOOK_ID}.ipynb": self.notebooks[kind].encode()},
                                    self.top / "homes" / student, self.course_id)
                   for student, kind in students.items()]
        with Rush(self.exchange_root / self.course_id / "inbound", handins) as rush:
            rush.release()
            return [(self.feedback_path(w.secret), w.written_at) for w in rush.wait()]

    def idle_one(self, run: int) -> float:
        """Seconds from the hand-in (its folder's last write; with --shape submit the start of
        the submit) to the page, of the idle student number ``run`` (alternately the model answer
        and the wrong one)."""
        student = f"idle{run:02d}"
        if self.shape == "submit":
            page, started = self.submit(self.prepare(student, HANDED_IN[run % 2]))
        else:
            ((page, started),) = self.write_folders({student: HANDED_IN[run % 2]})
        return wait_graded([page])[0] - started

    def rush(self, size: int, tag: str) -> dict:
        """A deadline rush of ``size`` hand-ins. Folders: ``size`` students' accounts write their
        folders at once. Submit: ``nbgrader submit`` one after another as fast as this process can,
        a fifth of the students twice. Seconds from the first hand-in until every page is fetchable."""
        if self.shape == "submit":
            twice = size // 5
            students = [f"{tag}{i:03d}" for i in range(size - twice)]
            order = students + students[:twice]  # a fifth hand in a second time, at the end
            sides = {s: self.prepare(s, HANDED_IN[i % 2]) for i, s in enumerate(students)}
            handed_in = [self.submit(sides[student]) for student in order]
        else:
            students = [f"{tag}{i:03d}" for i in range(size)]
            handed_in = self.write_folders({s: HANDED_IN[i % 2] for i, s in enumerate(students)})
        starts = [started for _, started in handed_in]
        seen = wait_graded([page for page, _ in handed_in])
        latencies = [page_seen - started for page_seen, started in zip(seen, starts)]
        return {"size": size, "spread": max(starts) - min(starts), "all_fetchable": max(seen) - min(starts),
                "latencies": latencies, "students": students}

    def check_journal(self, rush: dict) -> str:
        """'' when every hand-in of the rush is one released row and each student's rows finished
        in arrival order; else what is wrong."""
        accounts = {self.accounts[student] for student in rush["students"]}
        deadline = time.monotonic() + 60  # a page is released a moment before its row says so
        while True:
            db = sqlite3.connect(self.course.state_dir / "service.sqlite")
            rows = db.execute("SELECT student, id, state, finished_at FROM submissions ORDER BY id").fetchall()
            db.close()
            mine = [r for r in rows if r[0] in accounts]
            if all(r[2] == "released" for r in mine) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if len(mine) != rush["size"]:
            return f"{len(mine)} journal rows for {rush['size']} hand-ins"
        if any(r[2] != "released" for r in mine):
            return "a hand-in was not released"
        for student in accounts:
            finished = [r[3] for r in mine if r[0] == student]
            if finished != sorted(finished):
                return f"{student}'s feedback came out of arrival order"
        return ""

    def step_medians(self) -> dict[str, float]:
        """Median seconds of each step over the idle hand-ins, from the service's log lines
        (``steps: noticed 0.01 s, ..., 0.92 s after it landed``; the current service only)."""
        idle = {account for student, account in self.accounts.items() if student.startswith("idle")
                and student != "idle00"}  # the first, not counted, starts the workers' zygotes
        steps: dict[str, list[float]] = {}
        for line in self.log_path.read_text(errors="replace").splitlines():
            words = line.split()
            if "steps: " not in line or len(words) < 2 or words[1] not in idle:
                continue
            for part in line.split("steps: ", 1)[1].split(", "):
                step = STEP.fullmatch(part) or TOTAL.fullmatch(part)
                if step is not None:
                    name = step.groupdict().get("name") or "landed to released"
                    steps.setdefault(name, []).append(float(step["value"]))
        return {name: statistics.median(values) for name, values in steps.items()}

    def wait_until_warm(self, timeout: float = 300) -> float:
        """Seconds until each of the service's workers has started its kernel zygote (and 1 s more
        for the rest of its warm-up); the baseline's workers warm no zygote: 3 s for them."""
        started = time.monotonic()
        if self.label == "baseline":
            time.sleep(3)
            return time.monotonic() - started
        from grader_tests.processes import children, zygote_children

        while time.monotonic() - started < timeout:
            warm = [worker for worker in children(self.service.pid) if zygote_children(worker)]
            if len(warm) >= self.workers:
                time.sleep(1)
                return time.monotonic() - started
            time.sleep(0.1)
        raise SystemExit(f"the {self.label} service's workers were not warm within {timeout} s; see {self.log_path}")

    def stop(self) -> None:
        self.service.terminate()
        try:
            self.service.wait(timeout=300)
        finally:
            self._log.close()


def wait_graded(paths: list[Path], timeout: float = 1800) -> list[float]:
    """Poll every 10 ms until each of ``paths`` holds graded feedback (not a status page saying it
    is waiting); the epoch seconds each was first seen so, in the order of ``paths``. A page is read
    again only when its file changed (inode, size, modification time), so polling a rush of 100
    costs the machine little beside the service."""
    seen: dict[int, float] = {}
    looked: dict[int, tuple] = {}
    deadline = time.monotonic() + timeout
    while len(seen) < len(paths) and time.monotonic() < deadline:
        for index, path in enumerate(paths):
            if index in seen:
                continue
            try:
                info = path.stat()
                version = (info.st_ino, info.st_size, info.st_mtime_ns)
                if looked.get(index) != version:
                    looked[index] = version
                    if "waiting to be graded" not in path.read_text(errors="replace"):
                        seen[index] = time.time()
            except FileNotFoundError:
                pass
        time.sleep(0.01)
    if len(seen) < len(paths):
        missing = [str(path) for index, path in enumerate(paths) if index not in seen]
        raise SystemExit(f"{len(missing)} feedback pages did not appear within {timeout} s, e.g. {missing[0]}")
    return [seen[index] for index in range(len(paths))]


def baseline_package(top: Path, commit: str) -> str | None:
    """A folder holding ``grader`` and ``nbgrader_config.py`` as they were at ``commit`` (the
    package for PYTHONPATH, the config for the baseline's course), or None without git."""
    target = top / f"baseline-{commit}"
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "grader", "nbgrader_config.py"],
                             capture_output=True)
    if archive.returncode:
        print(f"no baseline: git archive {commit} failed ({archive.stderr.decode()[:200]})")
        return None
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return str(target)


def dask_throughput(top: Path, notebooks: dict[str, str], accounts: dict[str, str], size: int,
                    shape: str) -> dict:
    """The rush of ``size`` through ``grader watch --scheduler`` on a LocalCluster of 1, then 2
    worker processes (one thread each); workers -> rush result."""
    import distributed

    results = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            trial = Trial(top, f"dask{workers}", None, notebooks, accounts, workers,
                          scheduler=cluster.scheduler_address, shape=shape)
            try:
                trial.idle_one(0)  # not counted: the workers load what they reuse
                rush = trial.rush(size, f"r{size}x")
                rush["load"] = load()
                rush["journal"] = trial.check_journal(rush)
                results[workers] = rush
                print(f"dask, {workers} worker(s): rush of {size} done ({rush['load']})", flush=True)
            finally:
                trial.stop()
    return results


# ---- planning past this machine -------------------------------------------------------------

def simulate_p95(students: int, workers: int, service: list[float], overhead: float,
                 replications: int) -> float:
    """p95 seconds from hand-in to feedback when ``students`` hand in over DEADLINE_WINDOW with a
    rate rising linearly to the deadline, graded first come first served by ``workers``.

    service: per-hand-in service seconds to draw from; overhead: seconds each hand-in spends
    outside a worker (noticing, collecting, releasing).
    """
    rng = random.Random(students)  # the same arrivals for every number of workers
    waits = []
    for _ in range(replications):
        arrivals = sorted(DEADLINE_WINDOW * rng.random() ** 0.5 for _ in range(students))
        free = [0.0] * workers  # a heap of the times each worker is free again
        for arrival in arrivals:
            start = max(arrival, free[0])
            done = start + rng.choice(service)
            heapq.heapreplace(free, done)
            waits.append(done - arrival + overhead)
    return percentile(waits, 0.95)


def workers_needed(students: int, service: list[float], overhead: float, replications: int,
                   most: int = 1024) -> int | None:
    """The fewest workers whose p95 stays under P95_TARGET (p95 falls as workers are added), or
    None when even ``most`` do not."""
    def fits(workers: int) -> bool:
        return simulate_p95(students, workers, service, overhead, replications) < P95_TARGET

    if not fits(most):
        return None
    low, high = 0, most  # fits(high), not fits(low)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return high


def plan(service: list[float], overhead: float, replications: int) -> list[str]:
    lines = []
    for students in CLASSES:
        cells = [f"{workers} workers p95 {simulate_p95(students, workers, service, overhead, replications):7.1f} s"
                 for workers in WORKER_COUNTS]
        needed = workers_needed(students, service, overhead, replications)
        lines.append(f"  class of {students:4d} in the last 10 min: " + ";  ".join(cells) + (
            f";  p95 < {P95_TARGET:g} s needs {needed} worker{'s' if needed > 1 else ''}" if needed else
            f";  no number of workers keeps p95 < {P95_TARGET:g} s: one hand-in alone takes "
            f"{percentile(service, 0.95) + overhead:.1f} s at p95 here"))
    return lines


def against(value: float, target: float) -> str:
    """``0.85 s (target 1 s: met)``."""
    return f"{value:.2f} s (target {target:g} s: {'met' if value <= target else 'MISSED'})"


def print_dask(dask_results: dict[int, dict], size: int, work: list[float]) -> None:
    if dask_results:
        print()
        print(f"== grader watch --scheduler, a LocalCluster on this machine, rush of {size}")
        for workers, rush in dask_results.items():
            print(f"{workers} Dask worker(s): all fetchable after {rush['all_fetchable']:6.1f} s, "
                  f"{60 * rush['size'] / rush['all_fetchable']:5.1f} hand-ins a minute (grading work "
                  f"{statistics.median(work):.2f} s per hand-in; {rush['load']}); "
                  + (rush["journal"] or "journal: one row each, all released, in arrival order"))
        if len(dask_results) == 2:
            one, two = (dask_results[w]["all_fetchable"] for w in (1, 2))
            print(f"2 workers / 1 worker throughput: {one / two:.2f}x")


# ---- the run ----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=6, help="hand-ins to an idle service")
    parser.add_argument("--rush", default="30,100", help="sizes of the deadline rushes")
    parser.add_argument("--baseline-rush", default="30", help="rush sizes the baseline gets too (0: none)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--baseline", default=BASELINE_COMMIT,
                        help="commit of the baseline service ('none': no baseline)")
    parser.add_argument("--shape", choices=SHAPES, default=SHAPES[0],
                        help="how hand-ins arrive: folders (each account writes its hand-in folder, "
                             "a rush all within a second, as on a hub) or submit (nbgrader submit "
                             "from this process, one after another)")
    parser.add_argument("--replications", type=int, default=20)
    parser.add_argument("--dask-rush", type=int, default=30,
                        help="hand-ins of the rush graded on a LocalCluster of 1 and of 2 Dask "
                             "workers (0: none)")
    parser.add_argument("--skip-local", action="store_true",
                        help="only the Dask throughput (no idle, rushes or plan)")
    parser.add_argument("--work-runs", type=int, default=3,
                        help="in-process gradings of each notebook for the floor")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("run as root: every student is a real account")
    rushes = [int(size) for size in args.rush.split(",") if size and int(size) > 0]
    baseline_rushes = [int(size) for size in args.baseline_rush.split(",") if size and int(size) > 0
                       and args.baseline != "none"]

    top = Path(tempfile.mkdtemp(prefix="feedback-latency-"))
    top.chmod(0o755)  # the students' accounts reach the exchanges and their homes, as on a hub
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    import nbformat

    from grader_tests.checkout import create_course
    from grader.demo.corpus import build_notebook, get_submission
    from grader.service.student import temporary_accounts

    template = create_course(top / "template")
    from grader.release import generate_release
    generate_release(template, ASSIGNMENT)
    notebooks = {kind: nbformat.writes(build_notebook(
        get_submission(ASSIGNMENT, kind), nbformat.read(template.release_notebook(ASSIGNMENT), 4),
        nbformat.read(template.source_notebook(ASSIGNMENT), 4))) for kind in HANDED_IN}

    print(f"feedback latency, {ASSIGNMENT} ({' and '.join(HANDED_IN)}), {args.workers} workers, "
          f"{os.cpu_count()} CPUs", flush=True)
    work, parts = grading_work(top, notebooks, runs=args.work_runs)
    print(f"grading work alone (warm, in-process): median {statistics.median(work):.2f} s per "
          f"hand-in ({load()}); median seconds of its parts: "
          + ", ".join(f"{name} {statistics.median(values):.2f}" for name, values in parts.items()), flush=True)

    names = [f"idle{run:02d}" for run in range(args.idle + 1)]
    for size in sorted(set(rushes + baseline_rushes + ([args.dask_rush] if args.dask_rush else []))):
        names += [f"r{size}x{i:03d}" for i in range(size - size // 5 if args.shape == "submit" else size)]
    results: dict[str, dict] = {}
    dask_results: dict[int, dict] = {}
    with ExitStack() as stack:
        accounts = stack.enter_context(temporary_accounts(names, prefix="lat"))
        baseline_path = None if args.baseline == "none" else baseline_package(top, args.baseline)
        variants = ([("baseline", baseline_path, baseline_rushes)] if baseline_path else []) + \
                   [("current", None, rushes)]
        if args.skip_local:
            variants = []
        # Both services run at once and take turns: every idle hand-in to one is followed by one
        # to the other, so the two see the same load of the shared machine.
        trials = {}
        try:
            for label, pythonpath, sizes in variants:
                trials[label] = Trial(top, label, pythonpath, notebooks, accounts, args.workers,
                                      shape=args.shape)
                results[label] = {"idle": [], "rushes": {}}
            for label, trial in trials.items():
                print(f"{label}: {trial.wait_until_warm():.1f} s until its workers were warm", flush=True)
            loads = []
            for run in range(args.idle + 1):
                for label, trial in trials.items():
                    seconds = trial.idle_one(run)
                    if run:  # the first of each service is not counted (its workers' zygotes start)
                        results[label]["idle"].append(seconds)
                loads.append(os.getloadavg()[0])
            for label in trials:
                results[label]["idle_load"] = f"load {statistics.mean(loads):.1f} on average"
            if trials:
                print(f"idle done ({results['current']['idle_load']})", flush=True)
            for turn, size in enumerate(sorted(set(rushes + baseline_rushes))):
                order = [(label, sizes) for label, _, sizes in variants]
                for label, sizes in (order if turn % 2 else order[::-1]):
                    if size not in sizes:
                        continue
                    rush = trials[label].rush(size, f"r{size}x")
                    rush["load"] = load()
                    rush["journal"] = trials[label].check_journal(rush)
                    results[label]["rushes"][size] = rush
                    print(f"{label}: rush of {size} done ({rush['load']})", flush=True)
            if "current" in trials:
                results["current"]["steps"] = trials["current"].step_medians()
        finally:
            for trial in trials.values():
                trial.stop()
        if args.dask_rush:
            dask_results = dask_throughput(top, notebooks, accounts, args.dask_rush, args.shape)
    if args.skip_local:
        print_dask(dask_results, args.dask_rush, work)
        shutil.rmtree(top, ignore_errors=True)
        return 0

    def line(name: str, values: list[float]) -> str:
        return (f"{name:<22} n={len(values):<3} p50 {statistics.median(values):5.2f} s   "
                f"p95 {percentile(values, 0.95):5.2f} s   max {max(values):5.2f} s")

    work_median = statistics.median(work)
    beside = f"grading work {work_median:.2f} s per hand-in"
    print()
    print(f"== idle service: each hand-in ({STARTS[args.shape]}) -> its feedback page in the exchange")
    for label, result in results.items():
        print(line(label, result["idle"]) + f"   ({beside}; {result['idle_load']})")
        print(f"{'':<22} each, in order: " + " ".join(f"{value:.2f}" for value in result["idle"]))
    idle = results["current"]["idle"]
    print("current against the targets: p50 " + against(statistics.median(idle), IDLE_TARGETS["p50"])
          + ", p95 " + against(percentile(idle, 0.95), IDLE_TARGETS["p95"]) + f" ({beside})")
    if "baseline" in results:
        base, cur = results["baseline"]["idle"], results["current"]["idle"]
        print(f"current / baseline: p50 {statistics.median(cur) / statistics.median(base):.2f}x, "
              f"p95 {percentile(cur, 0.95) / percentile(base, 0.95):.2f}x")
    steps = results["current"].get("steps", {})
    if steps:
        print("current, median seconds per step: "
              + ", ".join(f"{name} {value:.2f}" for name, value in steps.items()))

    print()
    print(f"== deadline rush ({SHAPE_WORDS[args.shape]}): the first hand-in ({STARTS[args.shape]}) "
          "-> every page in the exchange")
    work_mean = statistics.mean(work)
    for label, result in results.items():
        for size, rush in result["rushes"].items():
            floor = size * work_mean / args.workers
            verdict = rush["journal"] or "journal: one row each, all released, in arrival order"
            target = (f" (target {RUSH_TARGETS[size]:g} s: {'met' if rush['all_fetchable'] <= RUSH_TARGETS[size] else 'MISSED'})"
                      if size in RUSH_TARGETS else "")
            print(f"{label:<9} {size:4d} hand-ins within {rush['spread']:.2f} s: all answered after "
                  f"{rush['all_fetchable']:6.1f} s{target}, each p50 {statistics.median(rush['latencies']):.1f} s "
                  f"max {max(rush['latencies']):.1f} s; floor {floor:5.1f} s ({rush['all_fetchable'] / floor:.2f}x "
                  f"the floor; {beside}; {rush['load']}); {verdict}")
    for size in set(results.get("baseline", {}).get("rushes", {})) & set(results["current"]["rushes"]):
        print(f"current / baseline, rush of {size}: "
              f"{results['current']['rushes'][size]['all_fetchable'] / results['baseline']['rushes'][size]['all_fetchable']:.2f}x")

    print()
    largest = max(results["current"]["rushes"].values(), key=lambda r: r["size"], default=None)
    if largest is not None:
        per_handin = largest["all_fetchable"] * args.workers / largest["size"]
        service = [s * per_handin / work_mean for s in work]
        outside = ("noticed", "collected", "queued", "waited for a worker", "released")
        overhead = sum(steps.get(name, 0.0) for name in outside)
        print(f"== planning: service time {per_handin:.2f} s per hand-in and worker (rush of "
              f"{largest['size']}, {largest['load']}), {overhead:.2f} s outside the worker (idle medians)")
        for text in plan(service, overhead, args.replications):
            print(text)
    print_dask(dask_results, args.dask_rush, work)
    shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
