"""``grader autograde``: grade a class with a live progress bar per assignment, a summary and a
class report.

Each bar shows done / total, the rate in notebooks per minute, the time left and how many
submissions were ungradable; submissions graded before with the same inputs are counted as
skipped (``--force`` grades them again). The summary gives the mean seconds per notebook of each
step (``grader.grading.step_times``) over the notebooks graded in this run.
"""
from __future__ import annotations

import io
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from grader.course import Course
from grader.grading.outcome import CATEGORIES, GradingOutcome
from grader.scheduling.pool import grade_submissions, pending_submissions
from grader.state_folders import AUTOGRADE_LOG as LOG_NAME


class RateColumn(ProgressColumn):
    """Notebooks per minute since the run started."""

    def render(self, task) -> Text:
        elapsed = task.finished_time or task.elapsed
        if not task.completed or not elapsed:
            return Text("   -- nb/min", style="cyan")
        return Text(f"{task.completed / elapsed * 60:5.1f} nb/min", style="cyan")


def run_autograde(course: Course, assignments: list[str], workers: int | None, force: bool,
                  console: Console, scheduler: str | None = None, insecure_scheduler: bool = False,
                  before_grading: Callable[[str], None] | None = None) -> int:
    """Grade every submission of ``assignments``; 0 unless a grading process failed.

    scheduler: a Dask scheduler's address; its cluster grades the submissions
    (``grader.scheduling.dask_cluster``) instead of local worker processes. insecure_scheduler: grade on it even
    without mutual TLS (``grader.scheduling.cluster_security``). before_grading(course root): raises
    (SystemExit naming the problem) when nothing may be graded; it runs before any hand-in is graded
    (``grade_submissions``; in this process when there is nothing to grade or a cluster grades).
    """
    pairs = [(a, s) for a in assignments for s in course.students(a)]
    todo, outcomes = pending_submissions(course, pairs, force)
    if before_grading is not None and (not todo or scheduler):
        before_grading(str(course.root))
    if not todo:
        noun = "submission" if len(outcomes) == 1 else "submissions"
        console.print(f"nothing to grade: {len(outcomes)} {noun} unchanged since their last "
                      "grading (--force grades them again)")
        print_class_reports(class_reports(course, assignments), console)
        return 0
    if outcomes:
        console.print(f"{len(outcomes)} submissions unchanged since they were graded: skipped "
                      "(--force grades them again)")
    started = time.perf_counter()
    rendered: dict[str, str] = {}  # assignment -> its class report, rendered by a worker once it is graded
    elapsed = 0.0
    with grading_progress(console) as progress:
        advance = assignment_bars(progress, [a for a, _ in todo])

        def on_outcome(outcome: GradingOutcome) -> None:
            nonlocal elapsed
            outcomes.append(outcome)
            advance(outcome)
            elapsed = time.perf_counter() - started  # until the last outcome: not the reports built after it

        if scheduler:
            from grader.scheduling.dask_cluster import grade_on_dask

            for assignment in assignments:
                students = [s for a, s in todo if a == assignment]
                if students:
                    for outcome in grade_on_dask(course, assignment, students, scheduler,
                                                 insecure_scheduler=insecure_scheduler):
                        on_outcome(outcome)
        else:
            grade_submissions(course, todo, workers=workers, force=True, on_outcome=on_outcome,
                              before_grading=before_grading, on_finished=rendered.__setitem__,
                              finish_assignment=partial(rendered_class_report, width=console.width,
                                                        color_system=console.color_system))
    print_run_summary(outcomes, elapsed, course, console)
    print_passback(course, [(o.assignment, o.student) for o in outcomes if o.graded and not o.skipped], console)
    for assignment in assignments:
        if assignment in rendered:
            console.print(Text.from_ansi(rendered[assignment].rstrip("\n")))
        else:  # graded on a cluster, or its report failed in the worker: built here, where an error shows
            print_class_reports(class_reports(course, [assignment]), console)
    return 1 if any(o.code == "worker-died" for o in outcomes) else 0


def rendered_class_report(course_root: str, assignment: str, width: int, color_system: str | None) -> str:
    """The class report of ``assignment`` as ``print_class_report`` prints it on a console ``width``
    columns wide with rich's ``color_system`` (None: no colour), as text with ANSI styles
    (``Text.from_ansi`` gives it back). Run in a grading worker, which has loaded the reporting
    code's nbgrader already, so that this process only prints."""
    from grader.reporting.class_report import build_report
    from grader.reporting.terminal import print_class_report

    buffer = io.StringIO()
    print_class_report(build_report(Course(Path(course_root)), assignment),
                       Console(file=buffer, width=width, color_system=color_system,
                               force_terminal=color_system is not None))
    return buffer.getvalue()


def class_reports(course: Course, assignments: list[str]) -> list:
    """The class report of each assignment, from the gradebook as it is now (imported here: it loads
    nbgrader, which the grading workers load for themselves while this process hands out submissions)."""
    from grader.reporting.class_report import build_report

    return [build_report(course, assignment) for assignment in assignments]


def print_class_reports(reports: list, console: Console) -> None:
    from grader.reporting.terminal import print_class_report

    for report in reports:
        print_class_report(report, console)


def print_passback(course: Course, graded: list[tuple[str, str]], console: Console) -> None:
    """Post the new scores to the LMS when the course is registered with one (``grader lti``)."""
    from grader.lti.registration import is_registered

    if not is_registered(course.state_dir):  # without loading the passback's code (and nbgrader)
        return
    from grader.lti.passback import after_grading

    summary = after_grading(course, graded)
    if summary is not None:
        console.print(f"LMS: {summary.posted} scores posted, {summary.failed} kept for a retry, "
                      f"{summary.waiting} waiting for a linked LMS account (grader lti status)")


def grading_progress(console: Console) -> Progress:
    """The progress display of grading: one bar per assignment (:func:`assignment_bars`), with
    graded/total, hand-ins per second, elapsed time, time left and the count of ungradable ones."""
    return Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    RateColumn(), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    TextColumn("{task.fields[status]}"), console=console, transient=False)


def assignment_bars(progress: Progress, assignments: list[str]) -> Callable[[GradingOutcome], None]:
    """A bar in ``progress`` for each assignment (``assignments`` holds one entry per hand-in to
    grade); returns the function that moves an outcome's bar on."""
    totals = Counter(assignments)
    bars = {assignment: progress.add_task(assignment, total=count, status="")
            for assignment, count in sorted(totals.items())}
    ungradable: Counter = Counter()

    def advance(outcome: GradingOutcome) -> None:
        ungradable[outcome.assignment] += not outcome.graded
        count = ungradable[outcome.assignment]
        progress.update(bars[outcome.assignment], advance=1,
                        status=f"[yellow]{count} ungradable[/yellow]" if count else "")
    return advance


def print_run_summary(outcomes: list[GradingOutcome], elapsed: float, course: Course, console: Console) -> None:
    """Counts, throughput, the mean time per step, and every ungradable submission with its refusal
    code (``grader.grading.admission.CODES``) and reason."""
    graded = [o for o in outcomes if not o.skipped]  # this run's, with a score or not
    skipped = len(outcomes) - len(graded)
    ungradable = [o for o in outcomes if not o.graded]
    scored = sum(o.graded for o in graded)
    rate = len(graded) / elapsed * 60 if graded and elapsed > 0 else 0.0
    console.print(f"[bold]{scored} graded[/bold], {len(graded) - scored} ungradable in {elapsed:.1f} s "
                  f"({rate:.1f} notebooks/min); {skipped} unchanged and skipped")
    if graded:
        table = Table(title="mean seconds per notebook", title_justify="left")
        for name in (*CATEGORIES, "total"):
            table.add_column(name, justify="right")
        means = [sum(o.times.get(name, 0.0) for o in graded) / len(graded) for name in CATEGORIES]
        table.add_row(*(f"{m:.2f}" for m in means), f"{sum(o.seconds for o in graded) / len(graded):.2f}")
        console.print(table)
    for o in ungradable:
        # plain Text: a reason may quote the submission, whose brackets must not become markup
        console.print(Text(f"{o.assignment} {o.student}: ungradable [{o.code or 'unknown'}] — {o.reason}",
                           style="yellow"))
    console.print(f"library warnings and logs: {course.state_dir / LOG_NAME}")
