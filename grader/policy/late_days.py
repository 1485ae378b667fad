"""Late days and late penalties, derived from hand-in times alone, so a regrade replays them exactly.

A student's late days are spent by :func:`spend_late_days` over their hand-ins in the order of
their own due dates (then assignment id): a hand-in ``L`` seconds after the student's due date
needs ``ceil(L / 1 day)`` late days; it spends as many as it needs, as far as the student has left
(and ``max_late_days_per_assignment`` allows). Nothing is counted anywhere: the same recorded
timestamps give the same spending, whichever submission is graded or regraded, in any order.

What is still late after the late days spent costs ``late_penalty_per_day`` of the score per
started day, at most all of it; after the late window (counted from the due date plus the late
days spent) the hand-in earns nothing (:func:`late_outcome`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from grader.policy.resolution import ResolvedPolicy

DAY = timedelta(days=1)


@dataclass(frozen=True)
class HandIn:
    """The hand-in that counts for one assignment: its resolved policy and its timestamp (aware UTC)."""

    policy: ResolvedPolicy
    timestamp: datetime | None


@dataclass(frozen=True)
class LateOutcome:
    """What lateness costs one hand-in.

    ``late_days_spent`` whole days; ``late_days_left`` after this assignment and every one due
    before it; ``seconds_late`` after the due date plus the late days spent (0 when on time);
    ``penalty_share`` of the score taken off (0 to 1); ``after_window``: handed in after the late
    window, so it earns nothing.
    """

    assignment: str
    due: datetime | None
    late_days_spent: int
    late_days_left: int
    seconds_late: float
    penalty_share: float
    after_window: bool

    @property
    def counted_due(self) -> datetime | None:
        """The due date after the late days spent."""
        return None if self.due is None else self.due + self.late_days_spent * DAY


def days_needed(policy: ResolvedPolicy, timestamp: datetime | None) -> int:
    """Whole late days that would cover a hand-in at ``timestamp`` (0 when on time or undated)."""
    if policy.due is None or timestamp is None or timestamp <= policy.due:
        return 0
    return math.ceil((timestamp - policy.due) / DAY)


def spend_late_days(hand_ins: list[HandIn]) -> dict[str, LateOutcome]:
    """assignment -> its :class:`LateOutcome`, for one student's hand-ins (any order given).

    The allowance is the ``late_days`` of the resolved policies (one value per student).
    """
    ordered = sorted(hand_ins, key=lambda h: (h.policy.due is None, h.policy.due or datetime.min,
                                              h.policy.assignment))
    left = max((h.policy.late_days for h in hand_ins), default=0)
    outcomes = {}
    for hand_in in ordered:
        policy = hand_in.policy
        cap = policy.max_late_days_per_assignment
        spent = min(days_needed(policy, hand_in.timestamp), left, cap if cap is not None else left)
        left -= spent
        outcomes[policy.assignment] = late_outcome(policy, hand_in.timestamp, spent, left)
    return outcomes


def late_outcome(policy: ResolvedPolicy, timestamp: datetime | None, spent: int, left: int) -> LateOutcome:
    """The penalty of a hand-in at ``timestamp`` that spent ``spent`` late days."""
    if policy.due is None or timestamp is None:
        return LateOutcome(policy.assignment, policy.due, 0, left, 0.0, 0.0, False)
    late = max(0.0, (timestamp - (policy.due + spent * DAY)).total_seconds())
    after_window = policy.late_window is not None and late > policy.late_window.total_seconds()
    if after_window:
        share = 1.0
    else:
        share = min(1.0, policy.late_penalty_per_day * math.ceil(late / DAY.total_seconds()))
    return LateOutcome(policy.assignment, policy.due, spent, left, late, share, after_window)
