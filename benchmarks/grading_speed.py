"""Benchmark: `grader autograde` against plain `nbgrader autograde` on the same synthetic class.

For each class size, a class is drawn from the corpus of realistic submissions
(``grader.demo.corpus``: model answers, independent correct solutions (loop-heavy ones among them),
blanks, half-done work and typical misconceptions, cycled over the students; faults that only burn
the cell timeout and unreadable files are left out) for every assignment. Attackers join the class
in 02_softmax (``--attackers``, on by default): one more student for every attack of the attack
corpus (``grader_tests/attacks``) that nbgrader grades in an ordinary batch from a notebook alone
(forged reports, patched builtins and numpy, hooks, output floods, a kernel that exits or
segfaults, ...; the attacks on the machine that only burn the cell timeout, and those that need
files, links or a server beside the notebook, are left out). Everything is handed in to three
identical course folders (the course's own config and the same course secret, so all draw the
same hidden inputs for each submission):

- baseline: plain ``nbgrader autograde <id> --create --force``, one assignment after the other, as a
  user runs it, with nbgrader's own kernel start-up: every kernel started by ``exec`` of a new
  interpreter and jupyter_client's own waits around it
  (``c.SandboxedKernelManager.fork_from_zygote = False``, ``quick_handshake = False``), in the
  same sandbox;
- the same plain ``nbgrader autograde`` with the course's config as shipped, which already gives
  it the kernel start-up of ``grader`` (zygote, quick handshake): what the driver alone adds;
- candidate: ``grader autograde <all ids>`` in one command (parallel workers, kernels forked from
  a zygote, per-worker reuse of the config, one gradebook transaction per notebook).

It checks that every test cell of every submission has the same score in all three gradebooks,
then prints notebooks per minute for each and the ratios, the candidate's time per notebook by step
(from its grading records), and the measured floor: the same notebooks run one at a time in a
zygote-forked sandboxed kernel (fork + sandbox entry + cells, nothing of nbgrader; each distinct
corpus submission run once and counted as often as the class holds it), on one core as a grading
worker runs, divided among the workers as if they overlapped perfectly. The machine's speed drifts
by up to a tenth between minutes, so the floor and the candidate are run twice, in the order floor,
candidate, candidate, floor: a steady drift weighs alike on the two means, and the target is judged
on their ratio (each run is printed too). Beside it: the same notebooks (every one of them) run on
as many warm processes at once as there are workers, each on a core of its own (the floor with the
cores shared); the floor with the hidden checks, the same sample with each notebook as its kernel
runs it when graded (its probe cells calling the student's functions on that submission's hidden
inputs, ``probed_notebooks``), one at a time, in perfect overlap: what running the hidden tests
costs any grader; and, last, every notebook graded by ``grade_one`` and run as the floor, one after
the other in one process on one core (``interleaved_ratio``), so that both see the same minute: what
the grading machinery adds to each notebook, apart from what running several workers at once costs.

    python benchmarks/grading_speed.py                      # 30 and 120 students x 4 assignments
    python benchmarks/grading_speed.py --students 8         # a quick run
    python benchmarks/grading_speed.py --students 8 --assignment 02_softmax
    python benchmarks/grading_speed.py --students 30 --no-attackers  # the corpus students only
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import build_notebook, load_corpus
from grader.grading import run_record
from grader.grading.outcome import CATEGORIES
from grader.grading.seeds import course_secret
from grader.release import generate_release
from grader_tests.attack_harness import ASSIGNMENT as ATTACKED_ASSIGNMENT
from grader_tests.attack_harness import MAIN, load_attacks, submission_notebook
from grader_tests.checkout import ASSIGNMENTS, create_course

# nbgrader's own kernel start-up: a new interpreter per notebook, jupyter_client's waits around it.
BASELINE_CONFIG = ("\nc.SandboxedKernelManager.fork_from_zygote = False"
                   "\nc.SandboxedKernelManager.quick_handshake = False\n")
BENCHMARK_KINDS = ("correct", "blank", "partial", "misconception")


def class_corpus(assignment: str) -> list:
    """The corpus submissions the class is drawn from; student i hands in entry i % len."""
    return [s for s in load_corpus(assignment) if s.kind in BENCHMARK_KINDS and not s.sandbox_only]


ATTACKER = "attacker"  # the attackers' student ids: attacker000, attacker001, ...


def placeholders_of(attack) -> set[str]:
    """The placeholders (``$answer_url``, ``$canary``, ...) that ``submission_notebook`` would have
    to fill in the attack's code: each stands for a server, a course or a file beside the class."""
    texts = [attack.solution, *(c if isinstance(c, str) else c["source"] for c in attack.cells)]
    return {name for text in texts for name in string.Template(text).get_identifiers()}


def class_attacks() -> list:
    """The attacks that join the class: graded by nbgrader in an ordinary batch from the notebook
    alone (no files, links or FIFOs beside it, no placeholder, not a raw file)."""
    return [attack for attack in load_attacks()
            if attack.batch == MAIN and attack.raw is None
            and not (attack.files or attack.symlinks or attack.fifos or attack.sized_files)
            and not placeholders_of(attack)]


def attacker(k: int) -> str:
    return f"{ATTACKER}{k:03d}"


def build_class(root: Path, assignments: list[str], students: int, attackers: bool) -> Course:
    """A released course with ``students`` submissions per assignment, cycled over the corpus, and
    with ``attackers``, one more student per attack of ``class_attacks`` in 02_softmax."""
    course = create_course(root)
    course_secret(course.state_dir)  # before the copy: both courses draw the same hidden inputs
    for assignment in assignments:
        generate_release(course, assignment)
        release = nbformat.read(course.release_notebook(assignment), as_version=4)
        source = nbformat.read(course.source_notebook(assignment), as_version=4)
        corpus = class_corpus(assignment)
        for i in range(students):
            path = course.submitted_notebook(f"student{i:03d}", assignment)
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(build_notebook(corpus[i % len(corpus)], release, source), path)
        if attackers and assignment == ATTACKED_ASSIGNMENT:
            for k, attack in enumerate(class_attacks()):
                path = course.submitted_notebook(attacker(k), assignment)
                path.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(submission_notebook(attack, release, source, {}), path)
    return course


def per_cell_scores(course: Course, assignments: list[str]) -> dict:
    with Gradebook(course.db_url) as gb:
        return {(a, s.student.id, g.name): g.score
                for a in assignments for s in gb.assignment_submissions(a)
                for nb in s.notebooks for g in nb.grades}


def run(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[1:4])} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return time.perf_counter() - started


def breakdown(course: Course, assignments: list[str]) -> dict[str, float]:
    """Mean seconds per notebook of each step, from the candidate's grading records."""
    records = [run_record.read_record(course, a, s) for a in assignments for s in course.students(a)]
    times = [r.get("times", {}) for r in records if r]
    means = {name: statistics.fmean(t.get(name, 0.0) for t in times) for name in CATEGORIES}
    means["total"] = statistics.fmean(r["seconds"] for r in records if r)
    return means


def floor_execute(path: Path) -> float:
    """Seconds to fork a sandboxed kernel from this process's zygote, enter the sandbox and run the
    cells of the notebook at ``path`` (nothing of nbgrader)."""
    from grader.sandbox import SandboxedExecute

    notebook = nbformat.read(path, as_version=4)
    workdir = Path(tempfile.mkdtemp(prefix="floor-"))
    started = time.perf_counter()
    try:
        SandboxedExecute(allow_errors=True, timeout=30).preprocess(notebook, {"metadata": {"path": str(workdir)}})
    except Exception:  # noqa: BLE001 - an attacker's kernel that died or exited: its time counts as spent
        pass
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return time.perf_counter() - started


def floor_sample(course: Course, assignments: list[str], students: int) -> list[tuple[str, str, int]]:
    """(assignment, student, copies): the submissions the floor runs, each standing for ``copies`` of the class.

    The class repeats each corpus submission; each distinct one is run once (the first student who
    handed it in) and counted as often as the class holds it, so the floor is of the same notebooks
    the graders ran, in the same proportions. Every attacker is run once.
    """
    sample = []
    for assignment in assignments:
        distinct = min(students, len(class_corpus(assignment)))
        sample += [(assignment, f"student{k:03d}", len(range(k, students, distinct))) for k in range(distinct)]
    return sample + [(ATTACKED_ASSIGNMENT, name, 1) for name in names_of_attackers(course, assignments)]


def measure_floor(course: Course, assignments: list[str], students: int, notebook_of=None) -> float:
    """Seconds to run every notebook of the class one at a time in this process (``floor_execute``
    over ``floor_sample``). ``notebook_of(assignment, student) -> path``: the notebook to run (default:
    the submission as handed in)."""
    notebook_of = notebook_of or (lambda assignment, student: course.submitted_notebook(student, assignment))
    sample = floor_sample(course, assignments, students)
    with on_one_core():
        floor_execute(notebook_of(*sample[0][:2]))  # starts this process's zygote, as in a worker
        return sum(copies * floor_execute(notebook_of(assignment, student)) for assignment, student, copies in sample)


@contextmanager
def on_one_core():
    """This process, and the zygote and kernels it starts meanwhile, on one core, as a grading
    worker runs (``grader.scheduling.pool.pin_to_next_core``): the kernels are faster so."""
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cores)


def interleaved_ratio(course: Course, assignments: list[str]) -> tuple[float, float]:
    """(seconds graded, seconds of the floor) over every notebook of the class: each graded by
    ``grade_one`` (admission, autograde, verdicts, gradebook, feedback) and right after run as
    ``floor_execute`` runs it, in this process, on one core.

    Both see the same minute of the machine, so their ratio is what the grading machinery adds to a
    notebook, whatever the machine's speed that hour. ``course`` is graded in place: pass a copy.
    """
    from grader.grading.grade_one import grade_one

    pairs = [(a, s) for a in assignments for s in sorted(course.students(a))]
    graded = floor = 0.0
    with on_one_core():
        grade_one(str(course.root), *pairs[0])  # loads the grading code and the config, starts the zygote
        for assignment, student in pairs:
            started = time.perf_counter()
            grade_one(str(course.root), assignment, student)
            graded += time.perf_counter() - started
            floor += floor_execute(course.submitted_notebook(student, assignment))
    return graded, floor


def probed_notebooks(course: Course, pairs: list[tuple[str, str]], scratch: Path) -> dict[tuple[str, str], Path]:
    """(assignment, student) -> the notebook its kernel runs when graded: the submission as sanitized,
    its probe cells holding the code that calls the student's functions on that submission's hidden
    inputs.

    Made by grading ``pairs`` with ``grade_one`` in this process, on a copy of ``course`` at
    ``scratch``, with the kernel's run replaced by writing down the notebook it was given (nothing runs).
    """
    from grader.grading.grade_one import grade_one
    from grader.sandbox.execute import SandboxedExecute

    copy = Course(scratch / "course")
    shutil.copytree(course.root, copy.root)
    kept: dict[tuple[str, str], Path] = {}

    def write_down(self, nb, resources=None, km=None):
        info = resources["nbgrader"]
        path = scratch / "probed" / info["assignment"] / f"{info['student']}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        kept[info["assignment"], info["student"]] = path
        return nb, resources

    run_kernel, SandboxedExecute.preprocess = SandboxedExecute.preprocess, write_down
    try:
        for assignment, student in pairs:
            grade_one(str(copy.root), assignment, student)
    finally:
        SandboxedExecute.preprocess = run_kernel
    return kept


def _warm_floor_worker(barrier, cores_taken, notebook: Path) -> None:
    from grader.scheduling.pool import pin_to_next_core

    pin_to_next_core(cores_taken)  # a core of its own, as a grading worker has
    floor_execute(notebook)  # this worker's zygote, started before the clock does
    barrier.wait()


def measure_parallel_floor(course: Course, assignments: list[str], workers: int) -> float:
    """Seconds for ``workers`` processes, each with a warm zygote, to run every notebook of the class
    (``floor_execute``, one queue), each on a core of its own as the grading workers are: the floor
    with the two cores shared as the graders share them."""
    paths = [course.submitted_notebook(s, a) for a in assignments for s in sorted(course.students(a))]
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers + 1)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_warm_floor_worker,
                             initargs=(barrier, context.Value("i", 0), paths[0])) as pool:
        futures = [pool.submit(floor_execute, path) for path in paths]
        barrier.wait()
        started = time.perf_counter()
        wait(futures)
        return time.perf_counter() - started


def names_of_attackers(course: Course, assignments: list[str]) -> list[str]:
    if ATTACKED_ASSIGNMENT not in assignments:
        return []
    return sorted(s for s in course.students(ATTACKED_ASSIGNMENT) if s.startswith(ATTACKER))


def nbgrader_autograde(course: Course, assignments: list[str]) -> float:
    """Seconds for plain ``nbgrader autograde``, one assignment after the other."""
    return sum(run([sys.executable, "-m", "nbgrader", "autograde", a, "--create", "--force"], course.root)
               for a in assignments)


def score_differences(reference: dict, other: dict) -> list:
    return sorted(k for k in reference.keys() | other.keys() if reference.get(k) != other.get(k))


def benchmark(students: int, assignments: list[str], workers: int, scratch: Path, attackers: bool) -> bool:
    baseline = build_class(scratch / f"plain-{students}", assignments, students, attackers)
    n_attackers = len(names_of_attackers(baseline, assignments))
    n = students * len(assignments) + n_attackers
    print(f"\n== {students} students x {len(assignments)} assignments + {n_attackers} attackers in "
          f"{ATTACKED_ASSIGNMENT} = {n} notebooks, {workers} workers, {os.cpu_count()} CPUs ==", flush=True)
    shipped = Course(scratch / f"shipped-{students}")
    candidates = [Course(scratch / f"grader-{students}-{k}") for k in (1, 2)]
    interleaved = Course(scratch / f"interleaved-{students}")
    for copy in (shipped, *candidates, interleaved):
        shutil.copytree(baseline.root, copy.root)
    candidate = candidates[0]
    with open(baseline.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(BASELINE_CONFIG)

    def line(label: str, seconds: float) -> None:
        print(f"{label:<47}: {seconds:7.1f} s  {n / seconds * 60:6.1f} notebooks/min", flush=True)

    t_plain = nbgrader_autograde(baseline, assignments)
    line("baseline  plain nbgrader autograde", t_plain)
    t_shipped = nbgrader_autograde(shipped, assignments)
    line("          plain nbgrader, course config as shipped", t_shipped)
    # floor, candidate, candidate, floor: a steady drift of the machine's speed weighs alike on both means
    floors = [measure_floor(candidate, assignments, students) / workers]
    runs = [run([sys.executable, "-m", "grader.cli", "autograde", *assignments, "--workers", str(workers),
                 "--force"], course.root) for course in candidates]
    floors.append(measure_floor(candidate, assignments, students) / workers)
    t_grader, t_floor = statistics.fmean(runs), statistics.fmean(floors)
    line("candidate grader autograde (mean of two runs)", t_grader)
    print(f"{'  each run':<47}: " + ", ".join(f"{t:.1f} s" for t in runs))

    reference = per_cell_scores(baseline, assignments)
    differing = (score_differences(reference, per_cell_scores(shipped, assignments))
                 + [difference for course in candidates
                    for difference in score_differences(reference, per_cell_scores(course, assignments))])
    identical = not differing and len(reference) > 0
    print(f"{'per-cell scores identical in all four':<47}: {identical} ({len(reference)} cells"
          + (f"; {len(differing)} differ, e.g. {differing[:3]}" if differing else "") + ")")
    print(f"{'speed-up (baseline / candidate)':<47}: {t_plain / t_grader:5.2f}x")
    print(f"{'speed-up (plain with shipped config / candidate)':<47}: {t_shipped / t_grader:5.2f}x")

    means = breakdown(candidate, assignments)
    print("candidate seconds per notebook, by step (inside one worker; workers overlap):")
    print("  " + "  ".join(f"{name} {means[name]:.2f}" for name in (*CATEGORIES, "total")))
    print(f"{'floor: fork + sandbox + cells':<47}: {t_floor * workers / n:5.2f} s/notebook alone -> {t_floor:6.1f} s, "
          f"{n / t_floor * 60:6.1f} notebooks/min with {workers} workers in perfect overlap")
    print(f"{'  each run (before and after the candidate)':<47}: " + ", ".join(f"{t:.1f} s" for t in floors))
    print(f"{'candidate vs floor':<47}: {t_grader / t_floor:5.2f}x the floor's time")
    t_shared = measure_parallel_floor(candidate, assignments, workers)
    print(f"{'floor with the cores shared: the same, run':<47}: {t_shared:6.1f} s on {workers} warm processes at once "
          f"({t_shared / t_floor:4.2f}x perfect overlap)")
    print(f"{'candidate vs floor with the cores shared':<47}: {t_grader / t_shared:5.2f}x")
    probed = probed_notebooks(candidate, [(a, s) for a, s, _ in floor_sample(candidate, assignments, students)],
                              scratch / f"probed-{students}")
    t_checks = measure_floor(candidate, assignments, students, lambda a, s: probed[a, s]) / workers
    print(f"{'floor with the hidden checks: the same, each':<47}: {t_checks:6.1f} s in perfect overlap "
          f"(notebook as graded: its probe cells on the hidden inputs)")
    print(f"{'candidate vs floor with the hidden checks':<47}: {t_grader / t_checks:5.2f}x")
    graded, alone = interleaved_ratio(interleaved, assignments)
    print(f"{'graded vs floor, notebook by notebook':<47}: {graded / alone:5.2f}x ({graded / n:.2f} against "
          f"{alone / n:.2f} s per notebook, one process on one core, taken in turns)")
    print(f"{'  so running the workers at once adds':<47}: {t_grader / t_floor / (graded / alone):5.2f}x "
          f"(start-up, end, the workers slowing each other)")
    return identical


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[30, 120],
                        help="class sizes to run (default: 30 120)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--assignment", action="append", choices=list(ASSIGNMENTS),
                        help="only these assignments (default: all four)")
    parser.add_argument("--no-attackers", dest="attackers", action="store_false",
                        help=f"leave the attackers out of {ATTACKED_ASSIGNMENT} (default: one per attack that "
                             "nbgrader grades in an ordinary batch)")
    args = parser.parse_args()
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    assignments = args.assignment or list(ASSIGNMENTS)
    with tempfile.TemporaryDirectory(prefix="grading-speed-") as scratch:
        results = [benchmark(students, assignments, args.workers, Path(scratch), args.attackers)
                   for students in args.students]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
