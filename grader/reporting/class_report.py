"""The class report of one assignment: scores, per-check pass rates, the most common misconceptions.

Scores come from nbgrader's gradebook; which checks passed and which misconception was named come
from the verdict summaries that ``grader.grading.preprocessors.decide_verdicts.DecideVerdicts`` writes into the autograded
notebooks. Nothing here reads a student's kernel output directly: a verdict record counts only
when DecideVerdicts wrote it (``grader.grading.verdict_records.read_verdict_records``); any other is ignored and
counted, never a crash. Every text that a student controls (ids, reasons) is printed as plain text,
without rich markup.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import nbformat
from nbgrader.api import Gradebook

from grader.course import Course
from grader.grading.ungradable_record import ungradable_code, ungradable_reason
from grader.grading.verdict_records import read_verdict_records
from grader.reporting.kernel_decided import kernel_decided_cells

HISTOGRAM_BINS = (0, 20, 40, 60, 80, 100)  # percent of the maximum score


@dataclass
class StudentResult:
    student: str
    score: float
    max_score: float
    status: str  # "graded", or "ungradable: <reason>"
    checks: dict[str, dict] = field(default_factory=dict)  # check name -> verdict record
    ignored_records: int = 0  # forged or malformed verdict records in the autograded notebook
    code: str | None = None  # ungradable: the refusal code (grader.grading.admission.CODES)

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.max_score if self.max_score else 0.0


@dataclass
class ClassReport:
    assignment: str
    students: list[StudentResult]
    # notebook/grade_id of the test cells decided inside students' kernels (grader.reporting.kernel_decided)
    kernel_decided: list[str] = field(default_factory=list)

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
    db_url = course.db_url  # read from the course config once
    with Gradebook(db_url) as gb:
        scores = submission_scores(gb, assignment)
    for student in course.students(assignment):
        score, max_score = scores.get(student, (0.0, 0.0))
        reason = ungradable_reason(course, assignment, student)
        checks, ignored = _verdicts(course, assignment, student)
        results.append(StudentResult(student, score, max_score,
                                     "graded" if reason is None else f"ungradable: {reason}",
                                     checks, ignored, ungradable_code(course, assignment, student)))
    return ClassReport(assignment, results, kernel_decided_cells(db_url, assignment))


def submission_scores(gb: Gradebook, assignment: str) -> dict[str, tuple[float, float]]:
    """student -> (score, max score) of each submission of ``assignment`` in the gradebook: nbgrader's
    own ``SubmittedAssignment.score`` and ``max_score``, all in one query."""
    from nbgrader.api import Assignment, SubmittedAssignment
    from sqlalchemy.orm import undefer

    rows = (gb.db.query(SubmittedAssignment)
            .options(undefer(SubmittedAssignment.score), undefer(SubmittedAssignment.max_score))
            .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
            .filter(Assignment.name == assignment)
            .all())
    return {row.student_id: (float(row.score), float(row.max_score)) for row in rows}


def _verdicts(course: Course, assignment: str, student: str) -> tuple[dict[str, dict], int]:
    """(check name -> trusted verdict record, number of records ignored) of a student's autograded
    notebooks of ``assignment`` (every ``.ipynb`` in ``autograded/<student>/<assignment>/``).

    The notebooks are read as nbformat 4 without checking them against its schema (the grading wrote
    them; ``read_verdict_records`` checks each record and the cell that carries it); a file that is
    not such a notebook counts as one ignored record."""
    folder = course.autograded_folder(student, assignment)
    records, ignored = {}, 0
    paths = sorted(folder.glob("*.ipynb")) if folder.is_dir() and not folder.is_symlink() else []
    for path in paths:
        if not path.is_file() or path.is_symlink():
            continue
        try:
            for cell in nbformat.v4.reads(path.read_text(encoding="utf-8")).cells:
                trusted, forged = read_verdict_records(cell)
                ignored += forged
                records.update((record["check"], record) for record in trusted)
        except Exception:  # a damaged autograded notebook is that student's problem only
            ignored += 1
    return records, ignored


def gradebook_assignments(course: Course) -> list[str]:
    """The assignment names nbgrader's gradebook of ``course`` knows, sorted."""
    with Gradebook(course.db_url) as gb:
        return sorted(assignment.name for assignment in gb.assignments)
