"""What grading one submission came to (``GradingOutcome``) and the steps its seconds are split into.

A light module: the process that schedules grading (``grader.scheduling``) reads outcomes without
importing nbgrader or the grading pipeline, so its workers start while it is still starting.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: The categories of a notebook's grading time (seconds); ``grader.grading.step_times`` says what
#: each covers.
CATEGORIES = ("kernel", "cells", "verdicts", "gradebook", "nbconvert", "setup")


@dataclass(frozen=True)
class GradingOutcome:
    """What happened to one submission: graded, or ungradable with the reason (its author's words)
    and ``code`` (``grader.grading.admission.CODES``).

    ``times``: seconds per step (``CATEGORIES``); ``skipped``: not graded again because an earlier
    run graded the same inputs (``graded`` and ``reason`` are that run's).
    """

    student: str
    assignment: str
    graded: bool
    reason: str | None
    seconds: float
    times: dict[str, float] = field(default_factory=dict)
    skipped: bool = False
    code: str | None = None
