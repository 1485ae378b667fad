"""Benchmark: a classmate's feedback latency while another account floods the service, against idle.

Run as root (real temporary accounts own every entry of ``inbound/``). One course and exchange,
the service of this checkout running in this process (``GradingLoop`` in a thread, --workers
workers, warm), and in the same run:

- **idle**: the classmate hands in the 02_softmax model answer --handins times, one after another;
- **entries flood**: an attacker's account makes --flood empty entries in ``inbound/`` at once,
  then one more every 0.2 s while the classmate hands in again;
- **unfinished folder**: the attacker keeps one hand-in folder without its secret and touches it
  every 0.5 s while the classmate hands in again.

Latency = end of the classmate's ``nbgrader submit`` -> that hand-in's feedback page in the
exchange (polled every 50 ms). Printed: median and max per phase, the ratio to idle (target:
within 2x), the CPU seconds of this process per phase (the service and the in-process submits), and the load average.

    python benchmarks/flood_latency.py [--handins 3] [--flood 20000] [--workers 2]
"""
from __future__ import annotations

import argparse
import os
import pwd
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from nbgrader.utils import notebook_hash

from grader.course import Course
from grader.release import generate_release
from grader.service.watch import GradingLoop
from grader_tests.checkout import create_course
from grader_tests.service_setup import temporary_service_course

ASSIGNMENT, NOTEBOOK = "02_softmax", "softmax.ipynb"


def template_course(top: Path) -> Course:
    course = create_course(top / "template")
    generate_release(course, ASSIGNMENT)
    return course


def newest_secret(inbound: Path, student: str, seen: set[str]) -> str:
    for folder in inbound.iterdir():
        if folder.name.startswith(student + "+") and folder.name not in seen:
            seen.add(folder.name)
            return (folder / "submission_secret.txt").read_text()
    raise RuntimeError("the hand-in did not reach inbound/")


def one_handin(setup, seen: set[str]) -> float:
    setup.hand_in("alice", ASSIGNMENT, {NOTEBOOK: setup.notebook_text(ASSIGNMENT, "model_answer")})
    handed = time.time()
    secret = newest_secret(setup.exchange.inbound_dir, setup.student_id("alice"), seen)
    page = setup.exchange.inbound_dir.parent / "feedback" / f"{notebook_hash(secret=secret, notebook_id='softmax')}.html"
    while not page.exists():
        if time.time() - handed > 600:
            return float("inf")
        time.sleep(0.05)
    return time.time() - handed


def phase(setup, handins: int, seen: set[str]) -> tuple[list[float], float]:
    cpu = time.process_time()
    latencies = [one_handin(setup, seen) for _ in range(handins)]
    return latencies, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handins", type=int, default=3)
    parser.add_argument("--flood", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("run as root: the hand-ins belong to real temporary accounts", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="sal-flood-bench-") as scratch:
        template = template_course(Path(scratch))
        with temporary_service_course(template, "sal-flood-", (ASSIGNMENT,)) as setup:
            config = setup.course.root / "nbgrader_config.py"  # every phase's hand-ins graded at once
            config.write_text(config.read_text() + "\nc.GradingService.max_graded_per_hour = 1000\n")
            attacker = pwd.getpwnam(setup.student_id("mallory")).pw_uid
            setup.student_id("alice")
            served: list[GradingLoop] = []

            def serve():
                loop = GradingLoop(setup.course, workers=args.workers)
                served.append(loop)
                loop.run()

            server = threading.Thread(target=serve, daemon=True)
            server.start()
            seen: set[str] = set()
            one_handin(setup, seen)  # warm-up, not counted
            results = {"idle": phase(setup, args.handins, seen)}

            inbound = setup.exchange.inbound_dir
            staging = inbound.parent / ".flood-staging"
            staging.mkdir()

            def entry(index: int) -> None:  # made as the attacker's, then moved in at once
                (staging / f"flood-{index}").mkdir()
                os.lchown(staging / f"flood-{index}", attacker, attacker)
                os.rename(staging / f"flood-{index}", inbound / f"flood-{index}")

            for index in range(args.flood):
                entry(index)
            stop = threading.Event()

            def trickle():
                index = args.flood
                while not stop.wait(0.2):
                    entry(index)
                    index += 1

            threading.Thread(target=trickle, daemon=True).start()
            results["entries flood"] = phase(setup, args.handins, seen)
            stop.set()

            staged = staging / "unfinished"
            staged.mkdir()
            (staged / NOTEBOOK).write_text("{}")
            for path in (staged, staged / NOTEBOOK):
                os.lchown(path, attacker, attacker)
            unfinished = inbound / f"{setup.student_id('mallory')}+{ASSIGNMENT}+2026-01-01 10:00:00 UTC+x"
            os.rename(staged, unfinished)
            stop = threading.Event()

            def touch():
                while not stop.wait(0.5):
                    os.utime(unfinished)

            threading.Thread(target=touch, daemon=True).start()
            results["unfinished folder"] = phase(setup, args.handins, seen)
            stop.set()
            served[0].stop()
            server.join(300)

    idle = statistics.median(results["idle"][0])
    print(f"classmate's feedback latency, {args.handins} hand-ins a phase, {args.workers} workers, "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, (latencies, cpu) in results.items():
        median = statistics.median(latencies)
        print(f"  {name:18s} median {median:6.2f} s  max {max(latencies):6.2f} s  "
              f"{median / idle:4.2f}x idle  CPU of this process {cpu:5.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
