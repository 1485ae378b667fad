"""The class report of one assignment: scores, per-check pass rates, the most common misconceptions.

Scores come from nbgrader's gradebook; which checks passed and which misconception was named come
from the verdict summaries that ``grader.verdicts.DecideVerdicts`` writes into the autograded
notebooks. Nothing here reads a student's kernel output directly.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from rich.console import Console
from rich.table import Table

from grader.course import Course
from grader.ungradable import ungradable_reason
from grader.verdicts import verdict_records

HISTOGRAM_BINS = (0, 20, 40, 60, 80, 100)  # percent of the maximum score


@dataclass
class StudentResult:
    student: str
    score: float
    max_score: float
    status: str  # "graded", or "ungradable: <reason>"
    checks: dict[str, dict] = field(default_factory=dict)  # check name -> verdict record

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.max_score if self.max_score else 0.0


@dataclass
class ClassReport:
    assignment: str
    students: list[StudentResult]

    def pass_rates(self) -> dict[str, tuple[int, int]]:
        """check name -> (students with full marks on it, students graded on it)."""
        rates: dict[str, list[int]] = {}
        for result in self.students:
            for name, record in result.checks.items():
                passed, seen = rates.setdefault(name, [0, 0])
                rates[name] = [passed + (record["fraction"] >= 1.0), seen + 1]
        return {name: (p, n) for name, (p, n) in sorted(rates.items())}

    def misconceptions(self) -> list[tuple[str, str, int]]:
        """(check, misconception, number of students), most common first."""
        counts = Counter((name, record["misconception"]) for result in self.students
                         for name, record in result.checks.items() if record.get("misconception"))
        return [(check, name, n) for (check, name), n in counts.most_common()]

    def histogram(self) -> list[tuple[str, int]]:
        """(percent range, number of students) over HISTOGRAM_BINS; 100 % falls in the last bin."""
        bins = []
        for low, high in zip(HISTOGRAM_BINS, HISTOGRAM_BINS[1:]):
            last = high == HISTOGRAM_BINS[-1]
            n = sum(low <= r.percent < high or (last and r.percent == high) for r in self.students)
            bins.append((f"{low}–{high} %", n))
        return bins


def build_report(course: Course, assignment: str) -> ClassReport:
    """Collect every submitted student's score, status and verdicts for ``assignment``."""
    results = []
    with Gradebook(course.db_url) as gb:
        for student in course.students(assignment):
            try:
                submission = gb.find_submission(assignment, student)
                score, max_score = float(submission.score), float(submission.max_score)
            except MissingEntry:
                score, max_score = 0.0, 0.0
            reason = ungradable_reason(course, assignment, student)
            results.append(StudentResult(student, score, max_score,
                                         "graded" if reason is None else f"ungradable: {reason}",
                                         _verdicts(course, assignment, student)))
    return ClassReport(assignment, results)


def _verdicts(course: Course, assignment: str, student: str) -> dict[str, dict]:
    path = course.autograded_notebook(student, assignment)
    if not path.exists():
        return {}
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception:
        return {}
    return {record["check"]: record for cell in notebook.cells for record in verdict_records(cell)}


def render(report: ClassReport, console: Console | None = None) -> None:
    """Print the per-student table, the score distribution, pass rates and misconceptions."""
    console = console or Console()
    students = Table(title=f"{report.assignment}: per-student summary")
    for column in ("student", "score", "status", "first problem"):
        students.add_column(column)
    for r in report.students:
        failing = [f"{name}: {rec['misconception'] or rec['stage']}" for name, rec in r.checks.items()
                   if rec["fraction"] < 1.0]
        students.add_row(r.student, f"{r.score:g} / {r.max_score:g}", r.status, failing[0] if failing else "—")
    console.print(students)

    histogram = Table(title="score distribution")
    histogram.add_column("score")
    histogram.add_column("students")
    for label, n in report.histogram():
        histogram.add_row(label, f"{'█' * n} {n}")
    console.print(histogram)

    rates = Table(title="per-check pass rates")
    rates.add_column("check")
    rates.add_column("full marks")
    for name, (passed, seen) in report.pass_rates().items():
        rates.add_row(name, f"{passed}/{seen} ({100 * passed / seen:.0f} %)")
    console.print(rates)

    common = Table(title="most common misconceptions")
    for column in ("check", "misconception", "students"):
        common.add_column(column)
    for check, name, n in report.misconceptions()[:10]:
        common.add_row(check, name, str(n))
    console.print(common)
