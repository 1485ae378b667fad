"""Benchmark: seconds from `nbgrader submit` to feedback fetchable, through `grader watch`.

One script, one temporary course and exchange, the real service as its own process
(`grader watch`, 2 workers by default):

- baseline: the grading work alone, in-process, with no exchange and no service
  (`grade_one` + `generate_feedback` of the same notebook), median of --idle runs;
- idle: one student hands in (nbgrader's exchange submit) to an idle service, --idle times in a
  row; latency = submit call start -> that submission's feedback page in the exchange;
- burst: --burst students hand in within --spread seconds (default 30 in 30 s).

Prints p50 / p95 / max for each, the time until the whole burst was fetchable, and the ratio of
idle p50 to the baseline (the service's own overhead: polling, collecting, releasing).
Targets of the course: idle p50 <= 10 s; all 30 of a burst fetchable within 3 minutes.

    python benchmarks/feedback_latency.py [--idle 5] [--burst 30] [--spread 30] [--workers 2]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ASSIGNMENT = "02_softmax"
NOTEBOOK_ID = "softmax"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def feedback_path(side, exchange_root: Path, course_id: str) -> Path:
    """Where nbgrader's exchange keeps the feedback of ``side``'s latest submission."""
    from nbgrader.utils import notebook_hash

    latest = sorted((side.home / ".nbgrader_cache" / course_id).glob(f"*+{ASSIGNMENT}+*"))[-1]
    secret = (latest / "submission_secret.txt").read_text()
    return exchange_root / course_id / "feedback" / f"{notebook_hash(secret=secret, notebook_id=NOTEBOOK_ID)}.html"


def wait_graded(path: Path, timeout: float = 900) -> float:
    """Poll until ``path`` holds graded feedback; returns the monotonic time it was seen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and "waiting to be graded" not in path.read_text(errors="replace"):
            return time.monotonic()
        time.sleep(0.05)
    raise SystemExit(f"feedback {path} did not appear within {timeout} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=5, help="hand-ins to an idle service")
    parser.add_argument("--burst", type=int, default=30, help="students handing in at once")
    parser.add_argument("--spread", type=float, default=30.0, help="seconds the burst is spread over")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)

    top = Path(tempfile.mkdtemp(prefix="feedback-latency-"))
    os.environ["GRADER_EXCHANGE_ROOT"] = str(top / "exchange")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    from grader import nbgrader_runner
    from grader.course import Course, create_course
    from grader.parallel import grade_one
    from grader.release import generate_release
    from grader.service.exchange import CourseExchange
    from grader.service.student import StudentSide, temporary_accounts
    from grader.submissions import build_notebook, get_submission
    import nbformat

    course = create_course(top / "course")
    generate_release(course, ASSIGNMENT)
    notebook = nbformat.writes(build_notebook(
        get_submission(ASSIGNMENT, "model_answer"),
        nbformat.read(course.release_notebook(ASSIGNMENT), 4),
        nbformat.read(course.source_notebook(ASSIGNMENT), 4)))

    # Baseline: the grading work alone, on a copy of the course.
    baseline_course = Course(Path(shutil.copytree(course.root, top / "baseline")))
    baseline = []
    for run in range(args.idle):
        path = baseline_course.submitted_notebook(f"base{run}", ASSIGNMENT)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(notebook)
        started = time.monotonic()
        grade_one(str(baseline_course.root), ASSIGNMENT, f"base{run}")
        nbgrader_runner.generate_feedback(baseline_course, ASSIGNMENT, f"base{run}")
        baseline.append(time.monotonic() - started)

    exchange = CourseExchange(course)
    exchange.release_assignment(ASSIGNMENT)
    course_id = exchange.course_id
    exchange_root = top / "exchange"

    # One account per student: the service grades only hand-ins owned by the account they name.
    names = [f"idle{run:02d}" for run in range(args.idle)] + [f"burst{i:02d}" for i in range(args.burst)]
    accounts_context = ExitStack()
    accounts = accounts_context.enter_context(temporary_accounts(names, prefix="lat"))

    def hand_in(student: str):
        side = StudentSide(accounts[student], top / "homes" / student, course_id, exchange_root)
        folder = side.fetch(ASSIGNMENT)
        (folder / f"{NOTEBOOK_ID}.ipynb").write_text(notebook)
        started = time.monotonic()
        side.submit(ASSIGNMENT)
        return side, started

    log = open(top / "watch.log", "w")
    service = subprocess.Popen([sys.executable, "-m", "grader.cli", "watch", "--course",
                                str(course.root), "--fix-permissions", "--workers", str(args.workers)],
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        idle = []
        for run in range(args.idle):
            side, started = hand_in(f"idle{run:02d}")
            idle.append(wait_graded(feedback_path(side, exchange_root, course_id)) - started)

        burst_started = time.monotonic()
        pending = []
        for index in range(args.burst):
            pending.append(hand_in(f"burst{index:02d}"))
            time.sleep(args.spread / max(1, args.burst))
        burst = []
        last_seen = burst_started
        for side, started in pending:
            seen = wait_graded(feedback_path(side, exchange_root, course_id))
            burst.append(seen - started)
            last_seen = max(last_seen, seen)
    finally:
        service.terminate()
        service.wait(timeout=300)
        log.close()
        accounts_context.close()

    def line(name: str, values: list[float]) -> str:
        return (f"{name:<28} n={len(values):<3} p50 {statistics.median(values):6.1f} s   "
                f"p95 {percentile(values, 0.95):6.1f} s   max {max(values):6.1f} s")

    print(f"feedback latency, {ASSIGNMENT} model answer, {args.workers} workers, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(line("baseline (grading alone)", baseline))
    print(line("idle service", idle))
    print(line(f"burst of {args.burst} in {args.spread:g} s", burst))
    print(f"whole burst fetchable after {last_seen - burst_started:.1f} s (target <= 180 s); "
          f"idle p50 target <= 10 s")
    print(f"ratio idle p50 / baseline p50: {statistics.median(idle) / statistics.median(baseline):.2f}x")
    shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
