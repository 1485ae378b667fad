"""What the class report page shows about one assignment, collected in one place.

The per-student scores, verdicts and ungradable reasons come from ``grader.reporting.class_report.build_report``;
this module adds what the terminal tables leave out:

- the lesson section to re-teach for each misconception (from the check that names it);
- item discrimination per check (``item_discrimination``);
- late submissions (nbgrader's gradebook: submission timestamp, due date with extension, penalty);
- grading time per submission (``grader.reporting.timings``);
- pairs of submissions possibly written together (``grader.similarity``).
- answers that fit someone else's numbers (``grader.reporting.borrowed_numbers``).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from nbgrader.api import Gradebook, MissingEntry

from grader.checks import all_checks
from grader.course import Course
from grader.policy.course_policy import PolicyBook, utc
from grader.policy.usage import PolicyUsage, policy_usage
from grader.reporting.borrowed_numbers import BorrowedRow, borrowed_numbers
from grader.reporting.class_report import ClassReport, build_report
from grader.reporting.timings import grading_times
from grader.similarity import SimilarityReport, similar_pairs

UNGRADABLE_PREFIX = "ungradable: "


@dataclass(frozen=True)
class CheckRow:
    """One hidden check: pass rate (full marks / graded) and discrimination (None: too few students)."""

    check: str
    passed: int
    graded: int
    discrimination: float | None
    lesson: str

    @property
    def pass_rate(self) -> float:
        return self.passed / self.graded if self.graded else 0.0


@dataclass(frozen=True)
class MisconceptionRow:
    check: str
    misconception: str
    students: int
    lesson: str  # the section to re-teach, e.g. "L3 §3"; "" when the check does not say


@dataclass(frozen=True)
class LateRow:
    """A submission handed in after its due date (extension included). Times are UTC ISO strings."""

    student: str
    submitted: str
    due: str
    seconds_late: float
    penalty: float  # points nbgrader's late-submission plugin takes off (0 with the default plugin)


@dataclass
class AssignmentSummary:
    """Everything the page and the CSV show for one assignment."""

    report: ClassReport
    checks: list[CheckRow]  # hardest (lowest pass rate) first
    misconceptions: list[MisconceptionRow]  # most frequent first
    ungradable: list[tuple[str, str, str]]  # (student, refusal code or "—", reason)
    late: list[LateRow]
    grading_seconds: dict[str, float] = field(default_factory=dict)  # student -> seconds
    similarity: SimilarityReport | None = None  # pairs possibly written together (instructors only)
    borrowed: list[BorrowedRow] = field(default_factory=list)  # answers that fit someone else's numbers
    policy_usage: list[PolicyUsage] = field(default_factory=list)  # extensions, accommodations, late days

    @property
    def assignment(self) -> str:
        return self.report.assignment

    @property
    def max_score(self) -> float:
        return max((r.max_score for r in self.report.students), default=0.0)

    @property
    def percents(self) -> list[float]:
        return [r.percent for r in self.report.students]

    @property
    def mean_percent(self) -> float | None:
        return statistics.fmean(self.percents) if self.percents else None

    @property
    def median_percent(self) -> float | None:
        return statistics.median(self.percents) if self.percents else None


def item_discrimination(report: ClassReport) -> dict[str, float | None]:
    """check -> upper-lower discrimination index D in [-1, 1], or None with fewer than 3 graded students.

    The graded students (ungradable ones are left out) are ranked by total score; the top third
    and the bottom third each hold ``n // 3`` students (ties broken by student id, so the
    split is deterministic). D is the mean fraction of the check's points earned by the top group
    minus that of the bottom group: 1 when only the strongest students pass the check, 0 when it
    does not separate them, negative when weaker students do better on it than strong ones (a
    check worth a second look). A graded student with no verdict for a check counts as 0 on it.
    """
    graded = [r for r in report.students if r.status == "graded"]
    names = sorted({name for r in graded for name in r.checks})
    group = len(graded) // 3
    if group == 0:
        return {name: None for name in names}
    ranked = sorted(graded, key=lambda r: (-r.percent, r.student))
    top, bottom = ranked[:group], ranked[-group:]

    def mean_fraction(students, name):
        return statistics.fmean(float(s.checks.get(name, {}).get("fraction", 0.0)) for s in students)

    return {name: round(mean_fraction(top, name) - mean_fraction(bottom, name), 6) for name in names}


def lesson_of(check: str, misconception: str | None = None) -> str:
    """The lesson section to re-teach: the misconception's own, else the check's; "" when unknown."""
    known = all_checks().get(check)
    if known is None:
        return ""
    for candidate in known.misconceptions:
        if candidate.name == misconception:
            return candidate.lesson
    return known.lesson


def late_submissions(course: Course, assignment: str, students: list[str],
                     book: PolicyBook | None = None) -> list[LateRow]:
    """Submissions of ``students`` handed in after their own due date (grader.policy: extensions and
    accommodations count, late days spent do not), latest first."""
    book = PolicyBook.of(course) if book is None else book
    rows = []
    with Gradebook(course.db_url) as gb:
        for student in students:
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            due = book.resolve(student, assignment).due
            if submission.timestamp is None or due is None:
                continue
            seconds_late = (utc(submission.timestamp) - due).total_seconds()
            if seconds_late > 0:
                rows.append(LateRow(student, submission.timestamp.isoformat(timespec="seconds"),
                                    due.replace(tzinfo=None).isoformat(timespec="seconds"), seconds_late,
                                    float(submission.late_submission_penalty or 0.0)))
    return sorted(rows, key=lambda row: -row.seconds_late)


def assignment_summary(report: ClassReport, late: list[LateRow] | None = None,
              grading_seconds: dict[str, float] | None = None) -> AssignmentSummary:
    """The page's view of ``report`` (pure: no gradebook or files read here)."""
    discrimination = item_discrimination(report)
    checks = [CheckRow(name, passed, seen, discrimination.get(name), lesson_of(name))
              for name, (passed, seen) in report.pass_rates().items()]
    checks.sort(key=lambda row: (row.pass_rate, row.check))
    misconceptions = [MisconceptionRow(check, name, n, lesson_of(check, name))
                      for check, name, n in report.misconceptions()]
    ungradable = [(r.student, r.code or "—", r.status.removeprefix(UNGRADABLE_PREFIX)) for r in report.students
                  if r.status.startswith(UNGRADABLE_PREFIX)]
    return AssignmentSummary(report, checks, misconceptions, ungradable, late or [],
                             dict(grading_seconds or {}))


def collect(course: Course, assignment: str) -> AssignmentSummary:
    """Build the report of ``assignment`` from the course's gradebook, autograded notebooks and records."""
    report = build_report(course, assignment)
    students = [r.student for r in report.students]
    book = PolicyBook.of(course)
    summary = assignment_summary(report, late_submissions(course, assignment, students, book),
                                 grading_times(course, assignment))
    summary.policy_usage = policy_usage(book, [assignment])
    try:
        summary.similarity = similar_pairs(course, assignment)
    except (FileNotFoundError, ValueError):  # no release notebook (or none the course knows) to
        summary.similarity = None           # tell the template from a student's code
    summary.borrowed = borrowed_numbers(course, assignment, students)
    return summary
