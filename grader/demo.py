"""The main job end to end on the embedded default (SQLite gradebook, local worker processes).

1. recompute the lessons' claims with the reference package (``solutions.repro``);
2. lay out a course folder, release all four assignments with ``nbgrader generate_assignment``;
3. hand in a simulated class (``grader.simulated_class``);
4. grade every assignment in parallel, write feedback pages and ``grades.csv`` (``nbgrader export``);
5. a student hands in through nbgrader's exchange and fetches feedback from ``grader watch``;
6. print the per-student summary, class report and pairs possibly written together of each
   assignment, and write the class report page (HTML, with a CSV of its tables) for the whole class.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from grader import nbgrader_runner
from grader.course import ASSIGNMENTS, create_course
from grader.parallel import grade_class
from grader.release import generate_release
from grader.report import build_report, render
from grader.reporting import write_report
from grader.similarity import similar_pairs
from grader.similarity.report import render as render_similarity
from grader.simulated_class import simulated_class
from grader.submissions import write_submission


def run_demo(directory: Path | None, workers: int | None, console: Console) -> int:
    """Run the whole job; 0 when every step worked (a student's bad notebook is not a failure)."""
    from solutions.repro import main as repro_main

    console.rule("1. The lessons' claims, recomputed by the reference package")
    if repro_main([]) != 0:
        console.print("[red]a claim of the lessons is not reproduced; fix solutions/ first[/red]")
        return 1

    scratch = None
    if directory is None:
        scratch = tempfile.mkdtemp(prefix="scaled-attention-lab-")
        directory = Path(scratch)
    course = create_course(directory)
    console.rule(f"2. Course folder {course.root}")
    for assignment in ASSIGNMENTS:
        generate_release(course, assignment)
        console.print(f"released {assignment}")

    console.rule("3. A simulated class hands in")
    handed_in = simulated_class(course)
    for student, assignment, notebook in handed_in:
        # a str is a deliberately unreadable file, handed in as it is
        handed = notebook.encode("utf-8") if isinstance(notebook, str) else notebook
        write_submission(course, student, assignment, handed)
    console.print(f"{len(handed_in)} submissions from {len({s for s, _, _ in handed_in})} students")

    console.rule("4. Grading (parallel), feedback, export")
    for assignment in ASSIGNMENTS:
        started = time.perf_counter()
        outcomes = grade_class(course, assignment, workers=workers)
        ungradable = [o for o in outcomes if not o.graded]
        console.print(f"{assignment}: {len(outcomes)} graded in {time.perf_counter() - started:.1f} s"
                      + (f", {len(ungradable)} ungradable" if ungradable else ""))
        result = nbgrader_runner.generate_feedback(course, assignment)
        if not result["success"]:
            console.print(f"[red]feedback for {assignment} failed[/red]\n{result.get('log')}")
            return 1
    export = subprocess.run([sys.executable, "-m", "nbgrader", "export"], cwd=course.root,
                            capture_output=True, text=True)
    if export.returncode != 0:
        console.print(f"[red]nbgrader export failed[/red]\n{export.stderr}")
        return 1

    console.rule("5. A student hands in through nbgrader's exchange; grader watch gives feedback")
    from grader.service.demo import show_student_loop

    if show_student_loop(course, console) != 0:
        return 1

    console.rule("6. Class reports")
    for assignment in ASSIGNMENTS:
        render(build_report(course, assignment), console)
        render_similarity(similar_pairs(course, assignment), console)
    page, table = write_report(course, list(ASSIGNMENTS))
    console.print(f"\ngrades: {course.root / 'grades.csv'}\nfeedback pages: {course.root / 'feedback'}"
                  f"\nclass report tables: {table}", soft_wrap=True, highlight=False)
    console.print(f"class report (open in a browser): {page}", soft_wrap=True, highlight=False)
    return 0
