"""Who used what: extensions, accommodations and late days per student and assignment (for the class report)."""
from __future__ import annotations

from dataclasses import dataclass

from grader.policy.course_policy import PolicyBook


@dataclass(frozen=True)
class PolicyUsage:
    """One student's use of the policy for one assignment. ``extension_seconds`` beyond the class's
    due date (0: none); ``penalty_share`` of the score taken off for lateness."""

    student: str
    assignment: str
    extension_seconds: float
    accommodation: str | None
    late_days_spent: int
    late_days_left: int
    penalty_share: float

    @property
    def extension_text(self) -> str:
        return f"{self.extension_seconds / 3600:g} h" if self.extension_seconds else "-"


def policy_usage(book: PolicyBook, assignments: list[str] | None = None) -> list[PolicyUsage]:
    """Every (student, assignment) with an extension, an accommodation, a late day spent or a late
    penalty, sorted by student then assignment."""
    rows = []
    for student in book.students():
        outcomes = book.late_outcomes(student)
        for assignment in assignments or book.assignments:
            policy = book.resolve(student, assignment)
            outcome = outcomes.get(assignment)
            extension = (policy.due - policy.class_due).total_seconds() if policy.has_extension else 0.0
            spent = outcome.late_days_spent if outcome else 0
            share = outcome.penalty_share if outcome else 0.0
            if extension or policy.accommodation or spent or share:
                rows.append(PolicyUsage(student, assignment, extension, policy.accommodation, spent,
                                        outcome.late_days_left if outcome else book.late_days_left(student), share))
    return rows
