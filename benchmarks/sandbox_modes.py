"""Benchmark: what grading a notebook costs in the sandbox without root, against the root sandbox.

Each assignment's notebook (release notebook, solution cells filled with the model answer, test
cells left out: ``figure_cost.model_notebook``) runs in a fresh sandboxed kernel
(``SandboxedExecute``, the course's default limits), in four ways:

- baseline: as root, kernel forked from the zygote (what ``sudo make demo`` does);
- as root, kernel started by exec (``fork_from_zygote = False``), for reference;
- as an ordinary account (a temporary one, ``grader_tests.ordinary_user``), in user namespaces,
  kernel forked from the zygote (what ``make demo`` does without root);
- as that account, kernel started by exec (the fallback).

Every way runs in a process of its own (a warm-up notebook first, so that the zygote's start is not
counted), the ways alternating round by round so that load changes hit all alike. It prints the
median seconds per notebook of each way and its ratio to the baseline. Run as root:

    sudo .venv/bin/python benchmarks/sandbox_modes.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

WAYS = {"baseline: root, zygote": (False, True), "root, exec": (False, False),
        "no root, zygote": (True, True), "no root, exec": (True, False)}


def worker(fork: bool, runs: int) -> dict[str, list[float]]:
    """Seconds of each run of each assignment's notebook in this process."""
    from figure_cost import model_notebook
    from traitlets.config import Config

    from grader.sandbox import SandboxedExecute
    from grader_tests.checkout import ASSIGNMENTS

    config = Config({"SandboxedKernelManager": {"fork_from_zygote": fork}})
    workdir = tempfile.mkdtemp(prefix="sandbox-modes-")
    notebooks = {assignment: model_notebook(assignment) for assignment in ASSIGNMENTS}
    times: dict[str, list[float]] = {assignment: [] for assignment in ASSIGNMENTS}

    def run(notebook) -> float:
        started = time.perf_counter()
        SandboxedExecute(config=config).preprocess(copy.deepcopy(notebook), {"metadata": {"path": workdir}})
        return time.perf_counter() - started

    run(notebooks[next(iter(notebooks))])  # warm-up: the zygote, the page cache
    for _ in range(runs):
        for assignment, notebook in notebooks.items():
            times[assignment].append(run(notebook))
    return times


def run_way(without_root: bool, fork: bool, runs: int, user) -> dict[str, list[float]]:
    argv = ["--worker", "zygote" if fork else "exec", "--runs", str(runs)]
    if without_root:  # the account's copy of the checkout (this one may be private)
        result = user.run(["python", str(user.checkout / "benchmarks" / Path(__file__).name), *argv], timeout=1800)
    else:
        result = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True, timeout=1800)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"a worker failed ({result.returncode}):\n{result.stdout}\n{result.stderr[-4000:]}")
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each runs every way once")
    parser.add_argument("--runs", type=int, default=1, help="runs of each notebook per way and round")
    parser.add_argument("--worker", choices=("zygote", "exec"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker == "zygote", args.runs)))
        return
    if os.geteuid() != 0:
        raise SystemExit("run as root: the benchmark compares the root sandbox with a temporary "
                         "ordinary account's (sudo .venv/bin/python benchmarks/sandbox_modes.py)")
    from grader_tests.ordinary_user import ordinary_user, skip_reason

    if skip_reason():
        raise SystemExit(f"cannot run the ordinary account here: {skip_reason()}")
    times: dict[str, dict[str, list[float]]] = {way: {} for way in WAYS}
    with ordinary_user("bench") as user:
        for round_number in range(args.rounds):
            for way, (without_root, fork) in WAYS.items():
                for assignment, seconds in run_way(without_root, fork, args.runs, user).items():
                    times[way].setdefault(assignment, []).extend(seconds)
            print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr)
    per_notebook = {way: statistics.mean(statistics.median(s) for s in by_assignment.values())
                    for way, by_assignment in times.items()}
    baseline = per_notebook[next(iter(WAYS))]
    assignments = list(next(iter(times.values())))
    print(f"{'way':<24}" + "".join(f"{a:>14}" for a in assignments) + f"{'per notebook':>14}{'ratio':>8}")
    for way, by_assignment in times.items():
        print(f"{way:<24}" + "".join(f"{statistics.median(by_assignment[a]):>12.3f} s" for a in assignments)
              + f"{per_notebook[way]:>12.3f} s{per_notebook[way] / baseline:>7.2f}x")
    print(f"(median of {args.rounds * args.runs} runs per notebook; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
