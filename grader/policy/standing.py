"""One student's dates and late days in words: for the feedback page, ``grader policy show`` and reports."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from grader.policy.course_policy import PolicyBook
from grader.policy.late_days import LateOutcome
from grader.policy.resolution import ResolvedPolicy


@dataclass(frozen=True)
class Standing:
    """``student``'s policy for ``assignment`` with what their hand-ins spent so far.

    ``outcome`` is None when the assignment has no recorded hand-in; ``late_days_left`` counts every
    recorded hand-in of the course.
    """

    policy: ResolvedPolicy
    outcome: LateOutcome | None
    late_days_left: int


def standing(book: PolicyBook, student: str, assignment: str) -> Standing:
    """The :class:`Standing` of ``student`` for ``assignment`` in ``book``."""
    return Standing(book.resolve(student, assignment), book.late_outcomes(student).get(assignment),
                    book.late_days_left(student))


def moment_text(moment: datetime | None) -> str:
    """``2026-03-02 23:59 UTC``, or ``none``."""
    return "none" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


def hours_text(seconds: float) -> str:
    """``26 h``, ``1.5 h``."""
    return f"{seconds / 3600:.3g} h"
