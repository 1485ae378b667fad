"""Credit that remembers attempts: all-or-nothing quiz items under immediate feedback.

With feedback seconds after a hand-in, a quiz item with four letters is solved by handing in each
letter in turn. So for an assignment with immediate feedback (``c.GradingService.immediate_feedback``)
the grader keeps, per student and item, every *distinct* non-blank wrong answer it has graded, with
the timestamp of the submission that first held it (``.grader/attempts.sqlite``, private to the
instructor). What an item can still earn is capped by a schedule (course config)::

    c.AttemptCredit.schedule = [1.0, 0.5, 0.25, 0.0]   # the default

entry k is the share of the item's points that a right answer earns after k different wrong ones;
beyond the end the last entry holds. A student or group may have its own schedule (the course
policy's ``attempt_schedule``, ``grader.policy``); grading reads the student's resolved one. An unanswered item (not defined, the released stub) and an
answer handed in again unchanged add nothing. Answers are compared as the grader compares them:
letters without case or spaces, numbers to 6 significant digits (the quiz tolerance is 1e-6 relative).

Replay: the cap of a submission counts only wrong answers first graded in *earlier* submissions
(by nbgrader's submission timestamp), so regrading any submission again (``grader autograde``,
``--force``, plain ``nbgrader autograde``) gives the same scores. An assignment with immediate
feedback switched off is never capped and records nothing. Limits: the history is this file; a
course folder without it (deleted, or graded on a copy without ``.grader/``) grades with full
credit, and a hand-in that was never graded (superseded) never counts.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from traitlets.config import Configurable

from grader.checks.api import NO_REPORT, NOT_ATTEMPTED, NOT_DEFINED, Verdict
from grader.settings import SQLITE_BUSY_SECONDS, traits_of
from grader.state_folders import ATTEMPT_HISTORY

#: Stages that mean "no answer was handed in": they cost nothing.
UNANSWERED = (NO_REPORT, NOT_ATTEMPTED, NOT_DEFINED)


class AttemptCredit(Configurable):
    """The schedule that caps a quiz item's credit by the distinct wrong answers handed in before."""

    locals().update(traits_of("AttemptCredit"))  # schedule (grader.settings)

    def cap(self, wrong_before: int) -> float:
        """The share still earnable after ``wrong_before`` distinct wrong answers."""
        return float(self.schedule[min(wrong_before, len(self.schedule) - 1)])


def answer_key(wire) -> str:
    """A canonical text of one handed-in answer (the probe's encoded value): equal answers, equal keys."""
    def canonical(value):
        if isinstance(value, dict):
            kind = value.get("t")
            if kind == "str":
                return ["str", str(value.get("v", "")).strip().upper()]
            if kind == "ndarray" and "data" in value:
                data = [float(v) if not isinstance(v, str) else v for v in value["data"]]
                return ["array", value.get("shape"), [f"{v:.6g}" if isinstance(v, float) else v for v in data]]
            if "v" in value and isinstance(value["v"], (int, float)) and not isinstance(value["v"], bool):
                return ["number", f"{float(value['v']):.6g}"]
            return {k: canonical(v) for k, v in sorted(value.items())}
        if isinstance(value, list):
            return [canonical(v) for v in value]
        return value
    return json.dumps(canonical(wire), sort_keys=True, ensure_ascii=False)


class AttemptHistory:
    """The distinct wrong answers graded per (assignment, student, item), in the course's ``.grader/``."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / ATTEMPT_HISTORY

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=SQLITE_BUSY_SECONDS)
        connection.execute(
            "CREATE TABLE IF NOT EXISTS wrong_answers (assignment TEXT, student TEXT, item TEXT, answer TEXT, "
            "first_graded TEXT, PRIMARY KEY (assignment, student, item, answer))")
        return connection

    def wrong_before(self, assignment: str, student: str, item: str, timestamp: str) -> set[str]:
        """The distinct wrong answers first graded in submissions made before ``timestamp``."""
        if not self.path.exists():
            return set()
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT answer FROM wrong_answers WHERE assignment = ? AND student = ? AND item = ? "
                "AND first_graded < ?", (assignment, student, item, timestamp)).fetchall()
        return {row[0] for row in rows}

    def record_wrong(self, assignment: str, student: str, item: str, answer: str, timestamp: str) -> None:
        """Remember a wrong answer; a regrade of an earlier submission moves its first time back."""
        with self._connect() as connection:
            connection.execute(
                "INSERT INTO wrong_answers VALUES (?, ?, ?, ?, ?) ON CONFLICT (assignment, student, item, answer) "
                "DO UPDATE SET first_graded = min(first_graded, excluded.first_graded)",
                (assignment, student, item, answer, timestamp))

    def students_items(self) -> dict[tuple[str, str, str], int]:
        """(assignment, student, item) -> number of distinct wrong answers recorded (for reports)."""
        if not self.path.exists():
            return {}
        with self._connect() as connection:
            rows = connection.execute("SELECT assignment, student, item, count(*) FROM wrong_answers "
                                      "GROUP BY assignment, student, item").fetchall()
        return {(a, s, i): n for a, s, i, n in rows}


@dataclass(frozen=True)
class Attempt:
    """One quiz item of one graded submission: who, which item, when, and the answer handed in."""

    assignment: str
    student: str
    item: str
    timestamp: str  # the submission's timestamp, ISO format ("" when nbgrader has none)
    wire: dict | None  # the encoded answer, None when nothing was handed in


def credit_with_history(verdict: Verdict, attempt: Attempt, history: AttemptHistory,
                        policy: AttemptCredit) -> Verdict:
    """``verdict`` capped by the attempts before this one; a wrong answer is remembered.

    The feedback says how much the item can still earn, never which answer is right.
    """
    if attempt.wire is None or verdict.stage in UNANSWERED:
        return verdict
    key = answer_key(attempt.wire)
    before = history.wrong_before(attempt.assignment, attempt.student, attempt.item, attempt.timestamp)
    if verdict.passed:
        cap = policy.cap(len(before))
        if cap >= 1.0:
            return verdict
        note = RIGHT_BUT_CAPPED.format(earlier=_different(len(before)), share=_percent(cap))
        return replace(verdict, fraction=min(verdict.fraction, cap),
                       note="\n".join(filter(None, (note, verdict.note))))
    history.record_wrong(attempt.assignment, attempt.student, attempt.item, key, attempt.timestamp)
    wrong = len(before | {key})
    note = STILL_EARNS.format(share=_percent(policy.cap(wrong)), earlier=_different(wrong))
    return replace(verdict, note="\n".join(filter(None, (verdict.note, note))))


# What the feedback says of attempt credit: messages of the engine's catalogue (a page in another
# language says them by reading them back, ``grader.language.text_patterns``).
RIGHT_BUT_CAPPED = ("Your answer is right for your numbers, but {earlier} to this item came before it, so it earns "
                    "{share} of its points (the course's schedule for answers graded with immediate feedback).")
STILL_EARNS = ("This item can still earn {share} of its points: {earlier} to it so far. Handing in the same answer "
               "again, or none, costs nothing.")
ONE_WRONG_ANSWER = "{count} different wrong answer"
SEVERAL_WRONG_ANSWERS = "{count} different wrong answers"
PERCENT = "{percent} %"
#: Every message above (each translated in every language's catalogue: tested).
CREDIT_MESSAGES = (RIGHT_BUT_CAPPED, STILL_EARNS, ONE_WRONG_ANSWER, SEVERAL_WRONG_ANSWERS, PERCENT)


def _different(count: int) -> str:
    return (ONE_WRONG_ANSWER if count == 1 else SEVERAL_WRONG_ANSWERS).format(count=count)


def _percent(share: float) -> str:
    return PERCENT.format(percent=f"{share * 100:.0f}")


def submission_timestamp(db_url: str, assignment: str, student: str) -> str:
    """The gradebook's timestamp of ``student``'s submission of ``assignment`` (ISO), "" when it has none."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return ""
        return submission.timestamp.isoformat() if submission.timestamp is not None else ""
