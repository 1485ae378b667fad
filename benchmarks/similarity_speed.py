"""Benchmark: `grader similarity` on classes of 120 and 600 submissions, against grading them.

For each class size a course folder is filled with 02_softmax notebooks built from the release:
the similarity corpus (independent solutions and their disguised copies, ``grader_tests/
similarity_corpus``), the grading corpus's independent hand-ins, and an honest class generated from
shared idioms (``grader_tests/similarity_class.py``) for the rest. Then:

- baseline: ``grader.scheduling.pool.grade_class`` with 2 workers (sandboxed kernels, trusted verdicts,
  gradebook) on ``--sample`` notebooks of the class; their mean grading time (each one's record)
  over the number of workers, times the class size, is what grading the class takes (worker
  start-up left out, so the baseline is on the low side);
- candidate: ``grader.similarity.similar_pairs`` on the whole class (reading every notebook,
  normalising, winnowing and comparing every pair), in this process.

It prints both times, their ratio, and the pairs found against the pairs written together.

    python benchmarks/similarity_speed.py                        # 120 and 600 submissions
    python benchmarks/similarity_speed.py --sizes 120 --sample 4 # a quick run
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "grader_tests"))

from similarity_harness import corpus_class, precision_recall  # noqa: E402

from grader.course import Course
from grader.demo.corpus import Submission, build_notebook, write_submission  # noqa: E402
from grader.release import generate_release  # noqa: E402
from grader.reporting.timings import grading_times  # noqa: E402
from grader.scheduling.pool import grade_class  # noqa: E402
from grader.similarity import similar_pairs  # noqa: E402
from grader_tests.checkout import create_course  # noqa: E402

ASSIGNMENT = "02_softmax"


def fill(course: Course, size: int) -> set[frozenset]:
    """Hand in ``size`` notebooks; the pairs written together among them."""
    fixed = len(corpus_class(honest=0)[0].cells)  # the hand-written ones
    found, together = corpus_class(honest=max(size - fixed, 0))
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    for student, cells in sorted(found.cells.items())[:size]:
        submission = Submission(ASSIGNMENT, student, "blank", "correct", "", cells)
        write_submission(course, student, ASSIGNMENT, build_notebook(submission, release, source))
    return together


def grading_seconds_per_notebook(course: Course, sample: int, workers: int) -> float:
    """Seconds of a grading run per notebook: the mean grading time of ``sample`` notebooks of
    the class (each one's record, ``grader.reporting.timings``), shared by ``workers`` workers.

    Worker start-up is left out (the baseline is on the low side); the records are what the
    grading benchmark's "seconds per notebook in a warm worker" measure.
    """
    students = course.students(ASSIGNMENT)
    sampled = students[:: max(1, len(students) // sample)][:sample]
    grade_class(course, ASSIGNMENT, students=sampled, workers=workers)
    seconds = grading_times(course, ASSIGNMENT)
    return statistics.fmean(seconds[s] for s in sampled) / workers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[120, 600])
    parser.add_argument("--sample", type=int, default=12, help="notebooks graded for the baseline")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    # nbgrader runs the `alembic` executable when it creates a gradebook: use this environment's.
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")

    scratch = Path(tempfile.mkdtemp(prefix="similarity-bench-"))
    try:
        released = create_course(scratch / "released")
        generate_release(released, ASSIGNMENT)
        rows = []
        for size in args.sizes:
            course = Course(scratch / f"class-{size}")
            shutil.copytree(released.root, course.root)
            together = fill(course, size)
            per_notebook = grading_seconds_per_notebook(course, args.sample, args.workers)
            started = time.perf_counter()
            report = similar_pairs(course, ASSIGNMENT)
            similarity = time.perf_counter() - started
            precision, recall = precision_recall(report, together)
            rows.append((size, per_notebook * size, similarity, len(report.pairs), precision, recall))
            print(f"{size} submissions: grading (baseline, {per_notebook:.2f} s per notebook x {size}) "
                  f"{per_notebook * size:.1f} s; similarity {similarity:.2f} s "
                  f"({similarity / (per_notebook * size):.3f}x the grading); {len(report.pairs)} pairs, "
                  f"precision {precision:.2f}, recall {recall:.2f}", flush=True)
        print("\n| submissions | grading (baseline) | `grader similarity` | ratio | pairs | precision | recall |")
        print("|---|---|---|---|---|---|---|")
        for size, grading, similarity, pairs, precision, recall in rows:
            print(f"| {size} | {grading:.0f} s | {similarity:.2f} s | {similarity / grading:.3f}x | {pairs} "
                  f"| {precision:.2f} | {recall:.2f} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
