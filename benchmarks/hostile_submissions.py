"""Benchmark: what the protections against hostile submissions cost, and what they save.

1. The reason of a failed nbgrader run from a log holding one long line (a huge timestamp.txt
   quoted in a parse error): ``grader.grading.grade_one._reason_from`` (candidate) against the previous
   pattern ``^\\s*[\\w.]*(Error|Exception)\\b.*:`` applied to every whole line (baseline).
2. One sandboxed notebook (three small cells) with the whole-tree layers (control group and
   working-folder filesystem; candidate) against the same sandbox without them (baseline, the
   layers switched off as on a machine without cgroups).

Each prints seconds and the ratio baseline / candidate.

    python benchmarks/hostile_submissions.py [--line-kb 10 20 40] [--notebooks 6]
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time

from nbformat.v4 import new_code_cell, new_notebook

from grader.grading.grade_one import _reason_from
from grader.sandbox import SandboxedExecute, layers

PREVIOUS_PATTERN = r"^\s*[\w.]*(Error|Exception)\b.*:"
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


def previous_reason(text: str) -> str | None:
    causes = [line.strip() for line in text.splitlines() if re.match(PREVIOUS_PATTERN, line)]
    return causes[-1][:500] if causes else None


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def reason_benchmark(sizes_kb: list[int]) -> None:
    print("reason from a log with one long line (a huge timestamp quoted in a parse error)")
    for kb in sizes_kb:
        line = "Error." * (kb * 1024 // 6)  # what a hostile timestamp.txt can hold
        log = "[INFO] start\n" + line + "\nValueError: Invalid timestamp string: timestamp.txt\n"
        baseline = timed(previous_reason, log)
        candidate = timed(_reason_from, {"log": log})
        print(f"  {kb:5d} KB line: baseline {baseline:8.3f} s  candidate {candidate:8.5f} s  "
              f"ratio {baseline / candidate:10.0f}x")


def grade_notebook() -> None:
    notebook = new_notebook(cells=[new_code_cell("import numpy as np"), new_code_cell("x = np.ones(10)"),
                                   new_code_cell("open('out.txt', 'w').write(str(x.sum()))")], metadata=KERNEL)
    with tempfile.TemporaryDirectory() as folder:
        SandboxedExecute().preprocess(notebook, {"metadata": {"path": folder}})


def sandbox_benchmark(notebooks: int) -> None:
    full = layers.detect_layers()
    if full.missing:
        print(f"sandbox benchmark skipped: layers missing here: {full.missing}")
        return
    without = layers.LayerSupport(full.unshare, {layers.CGROUPS: "switched off (baseline)",
                                                 layers.WORKDIR_QUOTA: "switched off (baseline)"},
                                  full.extra_flags)
    grade_notebook()  # warm caches
    times = {"baseline": [], "candidate": []}
    for _ in range(notebooks):  # interleaved, so that machine load hits both alike
        layers.detect_layers = lambda: without
        times["baseline"].append(timed(grade_notebook))
        layers.detect_layers = lambda: full
        times["candidate"].append(timed(grade_notebook))
    base, cand = statistics.median(times["baseline"]), statistics.median(times["candidate"])
    print(f"one sandboxed notebook, median of {notebooks}")
    print(f"  baseline  without control group and folder filesystem: {base:6.2f} s")
    print(f"  candidate with both                                   : {cand:6.2f} s")
    print(f"  ratio (baseline / candidate)                          : {base / cand:6.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--line-kb", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--notebooks", type=int, default=6)
    args = parser.parse_args()
    reason_benchmark(args.line_kb)
    sandbox_benchmark(args.notebooks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
