"""Benchmark: grading a class with `grader autograde` against plain `nbgrader autograde`.

Both runs grade the same submissions (copies of the model answer of each assignment) in two
identical temporary course folders, from this one script:

- baseline: plain `nbgrader autograde <id>` with nbgrader's default preprocessors (serial, the
  student's kernel unsandboxed, hidden checks decided inside it);
- candidate: `grader autograde <id>`: trusted verdicts, sandboxed kernels, parallel workers.

It prints seconds per notebook and the ratio baseline / candidate, and checks that both gave
every submission full marks (a fast wrong grader is no win).

    python benchmarks/grading_speed.py [--students 8] [--workers 2] [--assignment 02_softmax ...]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nbgrader.api import Gradebook

from grader.course import ASSIGNMENTS, REPO_ROOT, Course, create_course
from grader.release import generate_release

PLAIN_CONFIG = '''c = get_config()
c.CourseDirectory.course_id = "scaled-attention-lab"
c.OverwriteCells.add_missing_cells = True
'''


def prepare(root: Path, assignments: list[str], students: int, plain: bool) -> Course:
    course = create_course(root)
    if plain:
        (root / "nbgrader_config.py").write_text(PLAIN_CONFIG)
    for assignment in assignments:
        generate_release(course, assignment)
        for i in range(students):
            target = course.submitted_notebook(f"student{i:02d}", assignment)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(course.source_notebook(assignment), target)
    return course


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def all_full_marks(course: Course, assignments: list[str], students: int) -> bool:
    with Gradebook(course.db_url) as gb:
        return all(gb.find_submission(a, f"student{i:02d}").score == gb.find_submission(a, f"student{i:02d}").max_score
                   for a in assignments for i in range(students))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--assignment", action="append", choices=list(ASSIGNMENTS))
    args = parser.parse_args()
    assignments = args.assignment or list(ASSIGNMENTS)
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    n = args.students * len(assignments)
    with tempfile.TemporaryDirectory() as scratch:
        baseline = prepare(Path(scratch) / "plain", assignments, args.students, plain=True)
        candidate = prepare(Path(scratch) / "grader", assignments, args.students, plain=False)
        t_plain = sum(timed([sys.executable, "-m", "nbgrader", "autograde", a, "--create", "--force"], baseline.root)
                      for a in assignments)
        t_grader = sum(timed([sys.executable, "-m", "grader.cli", "autograde", a, "--workers", str(args.workers)],
                             candidate.root) for a in assignments)
        ok_plain = all_full_marks(baseline, assignments, args.students)
        ok_grader = all_full_marks(candidate, assignments, args.students)
    print(f"{n} notebooks ({args.students} students x {len(assignments)} assignments), {args.workers} workers")
    print(f"baseline  plain nbgrader autograde : {t_plain:7.1f} s  {t_plain / n:5.2f} s/notebook  full marks: {ok_plain}")
    print(f"candidate grader autograde         : {t_grader:7.1f} s  {t_grader / n:5.2f} s/notebook  full marks: {ok_grader}")
    print(f"speed-up (baseline / candidate)    : {t_plain / t_grader:5.2f}x")
    return 0 if ok_plain and ok_grader else 1


if __name__ == "__main__":
    sys.exit(main())
