"""The main job end to end on the embedded default (SQLite gradebook, local worker processes).

1. recompute the lessons' claims with the reference package (``solutions.repro``);
2. lay out a course folder, release all four assignments with ``nbgrader generate_assignment``;
3. hand in a simulated class (``grader.demo.simulated_class``);
4. grade every assignment in parallel (a progress bar each) and write feedback pages;
5. a student hands in through nbgrader's exchange and fetches feedback from ``grader watch``;
   then ``grades.csv`` (``nbgrader export``), so it counts that student too;
6. print the per-student summary, class report and pairs possibly written together of each
   assignment, and write the class report page (HTML, with a CSV of its tables) for the whole class.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.course import copy_course
from grader.demo.checkout import NotACheckoutError, checkout
from grader.demo.corpus import write_submission
from grader.demo.folder import DemoFolderError, prepare_demo_folder, shown_path
from grader.demo.simulated_class import simulated_class
from grader.grading import nbgrader_apps
from grader.release import generate_release
from grader.reporting import write_report
from grader.reporting.class_report import build_report
from grader.reporting.terminal import print_class_report
from grader.sandbox.privileges import demo_refusal
from grader.scheduling.class_run import assignment_bars, grading_progress
from grader.scheduling.pool import grade_class
from grader.similarity import similar_pairs
from grader.similarity.report import print_similar_pairs

#: The demo's section titles, in order (short enough for an 80-column terminal).
STEPS = ("1. The lessons' claims, recomputed", "2. A course folder; all four assignments released",
         "3. A simulated class hands in", "4. Grading (parallel), feedback",
         "5. A student hands in; grader watch gives feedback; grades.csv", "6. Class reports")


def run_demo(directory: Path | None, workers: int | None, console: Console, claims_table: bool = False) -> int:
    """Run the whole job; 0 when every step worked (a student's bad notebook is not a failure).

    directory: the demo's course folder (default ``demo-course/`` in the checkout), replaced on
    each run (``grader.demo.folder``). claims_table: print every claim of step 1, not one line.
    """
    try:
        repository = checkout()
    except NotACheckoutError as exc:
        console.print(Text(f"error: {exc}", style="red"), soft_wrap=True)
        return 1
    from solutions.repro import main as repro_main

    refusal = demo_refusal() or missing_layers_refusal()
    if refusal:
        console.print(Text(refusal, style="red"), soft_wrap=True)
        return 1
    weaker = weaker_layers_note()
    if weaker:
        console.print(Text(weaker, style="yellow"), soft_wrap=True)
    try:
        folder = prepare_demo_folder(directory or repository.DEMO_FOLDER)
    except DemoFolderError as exc:
        console.print(Text(f"error: {exc}", style="red"))
        return 1
    console.print(Text(f"The demo's course folder: {shown_path(folder)} (replaced on each run)",
                       style="bold"), soft_wrap=True)

    console.rule(STEPS[0])
    if repro_main([] if claims_table else ["--summary"], console=console) != 0:
        console.print("[red]a claim of the lessons is not reproduced; fix solutions/ first[/red]")
        return 1

    course = copy_course(repository.THE_COURSE, folder)
    console.rule(STEPS[1])
    console.print(Text(f"course folder: {course.root}"), soft_wrap=True)
    for assignment in course.assignments():
        generate_release(course, assignment)
        console.print(f"released {assignment}")

    console.rule(STEPS[2])
    handed_in = simulated_class(course)
    for student, assignment, notebook in handed_in:
        # a str is a deliberately unreadable file, handed in as it is
        handed = notebook.encode("utf-8") if isinstance(notebook, str) else notebook
        write_submission(course, student, assignment, handed)
    console.print(f"{len(handed_in)} submissions from {len({s for s, _, _ in handed_in})} students")

    console.rule(STEPS[3])
    for assignment in course.assignments():
        started = time.perf_counter()
        with grading_progress(console) as progress:
            advance = assignment_bars(progress, [assignment] * len(course.students(assignment)))
            outcomes = grade_class(course, assignment, workers=workers, on_outcome=advance)
        console.print(graded_line(assignment, outcomes, time.perf_counter() - started))
        result = nbgrader_apps.generate_feedback(course, assignment)
        if not result["success"]:
            console.print(f"[red]feedback for {assignment} failed[/red]\n{result.get('log')}")
            return 1

    console.rule(STEPS[4])
    from grader.demo.service_handin import show_student_loop

    if show_student_loop(course, console) != 0:
        return 1
    # after the hand-in of step 5: grades.csv counts that student, as the class report does
    export = subprocess.run([sys.executable, "-m", "nbgrader", "export"], cwd=course.root,
                            capture_output=True, text=True)
    if export.returncode != 0:
        console.print(f"[red]nbgrader export failed[/red]\n{export.stderr}")
        return 1

    console.rule(STEPS[5])
    for assignment in course.assignments():
        print_class_report(build_report(course, assignment), console)
        print_similar_pairs(similar_pairs(course, assignment), console)
    page, table = write_report(course, course.assignments())
    console.print(f"\ngrades: {course.root / 'grades.csv'}\nfeedback pages: {course.root / 'feedback'}"
                  f"\nclass report tables: {table}", soft_wrap=True, highlight=False)
    console.print(f"class report (open in a browser): {page}", soft_wrap=True, highlight=False)
    console.print(Text(next_steps(course.root)), soft_wrap=True)
    return 0


def missing_layers_refusal() -> str | None:
    """As root: None when every sandbox layer works here, else which are missing and why (the
    course config grades only with all of them, ``c.SandboxedExecute.require_sandbox``)."""
    from grader.sandbox.layers import detect_layers

    missing = detect_layers().missing
    if not missing:
        return None
    return ("grader demo stops here: the course grades only in a complete sandbox, and these layers "
            "are missing on this machine:\n" + "\n".join(f"  {layer}: {why}" for layer, why in missing.items())
            + "\n`grader doctor` probes each layer; in a container, allow unshare and mounts "
            "(--security-opt seccomp=unconfined, or --privileged).")


def weaker_layers_note() -> str | None:
    """Without root: how the sandbox is built and each layer that is weaker than as root (None
    as root)."""
    from grader.sandbox.layers import ALL_LAYERS, detect_layers

    support = detect_layers()
    if support.as_root:
        return None
    kept = [layer for layer in ALL_LAYERS if layer not in support.weaker and support.available(layer)]
    return (f"Grading without root (uid {os.geteuid()}): every notebook runs in a sandbox built in "
            f"{support.mode}s of its own. As with root: {', '.join(kept)}. Weaker:\n"
            + "\n".join(f"  {layer}: {how}" for layer, how in support.weaker.items())
            + "\n`grader doctor` probes each layer; `sudo make demo` builds the sandbox as root.")


def graded_line(assignment: str, outcomes, seconds: float) -> str:
    """``02_softmax: 6 graded, 1 ungradable in 12.3 s`` (the ungradable are not counted as graded)."""
    ungradable = sum(not o.graded for o in outcomes)
    text = f"{assignment}: {len(outcomes) - ungradable} graded"
    return text + (f", {ungradable} ungradable" if ungradable else "") + f" in {seconds:.1f} s"


def next_steps(root: Path) -> str:
    """Where the demo's course is and the commands to try there next."""
    venv_bin = Path(sys.executable).parent
    return (f"\nThe demo's course folder is {shown_path(root)} (the next `make demo` replaces it). "
            f"Try, from there:\n"
            f"  cd {shown_path(root)} && . {venv_bin / 'activate'}\n"
            "  grader report 02_softmax              # the class report of one assignment again\n"
            "  grader autograde 02_softmax           # nothing to grade: every submission is unchanged\n"
            "  grader autograde 02_softmax --force   # grade the class again\n"
            "  nbgrader generate_feedback 02_softmax --force   # feedback pages, with plain nbgrader\n"
            "  grader doctor                         # which sandbox protections are active here")
