"""Benchmark: the cost of drawing a submission's seed from its behaviour instead of its text.

Both fingerprint the same notebooks (each assignment's source notebook: the model answers and the
instructor's cells, as grading sees them after sanitizing), in this one script:

- baseline: the code cells' text, trailing whitespace ignored, hashed (the earlier rule: a comment
  changed the hidden inputs);
- candidate: ``grader.grading.submission_fingerprint.notebook_fingerprint`` (each cell parsed, IPython
  syntax transformed where needed, its parse tree hashed in canonical form) plus the files beside
  the notebook (here none, as in most hand-ins).

It prints milliseconds per notebook for each and the ratio candidate / baseline; a notebook takes
about 700 ms to grade in a warm worker, so the candidate's milliseconds are what it adds to that.

    python benchmarks/seed_fingerprint.py [--repeats 20]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path

import nbformat

from grader.course import Course
from grader.grading.submission_fingerprint import handin_files, handin_files_fingerprint, notebook_fingerprint
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT


def text_fingerprint(nb) -> str:
    """The earlier rule: the code cells' text, trailing whitespace ignored."""
    cells = ["\n".join(line.rstrip() for line in cell.source.rstrip().splitlines())
             for cell in nb.cells if cell.cell_type == "code"]
    return hashlib.sha256(json.dumps(cells, ensure_ascii=False).encode("utf-8")).hexdigest()


def behaviour_fingerprint(nb, folder: Path) -> str:
    return notebook_fingerprint(nb) + handin_files_fingerprint(folder, handin_files(folder))


def ms_per_notebook(fingerprint, notebooks, repeats: int) -> float:
    for nb in notebooks:  # warm-up: imports, IPython's transformer
        fingerprint(nb)
    started = time.perf_counter()
    for _ in range(repeats):
        for nb in notebooks:
            fingerprint(nb)
    return (time.perf_counter() - started) / (repeats * len(notebooks)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="passes over the notebooks for each rule")
    args = parser.parse_args()
    course = Course(REPO_ROOT)
    notebooks = [nbformat.read(course.source_notebook(a), as_version=4) for a in ASSIGNMENTS]
    with tempfile.TemporaryDirectory() as folder:
        baseline = ms_per_notebook(text_fingerprint, notebooks, args.repeats)
        candidate = ms_per_notebook(lambda nb: behaviour_fingerprint(nb, Path(folder)), notebooks, args.repeats)
    cells = sum(1 for nb in notebooks for c in nb.cells if c.cell_type == "code") / len(notebooks)
    print(f"{len(notebooks)} notebooks, {cells:.0f} code cells each on average, {args.repeats} passes")
    print(f"baseline  text of the code cells      : {baseline:8.2f} ms/notebook")
    print(f"candidate parse trees + files beside  : {candidate:8.2f} ms/notebook")
    print(f"ratio candidate / baseline             : {candidate / baseline:8.1f}x")
    print(f"candidate as a share of ~700 ms grading: {candidate / 700:8.1%}")


if __name__ == "__main__":
    main()
