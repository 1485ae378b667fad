"""The passback journal (``.grader/lti/passback.sqlite``): every score to post, and what became of it.

A score is one row per (assignment, student, grading run); the grading run is the run record's
digest of every grading input (:mod:`grader.grading.run_record`), so grading the same inputs
again adds nothing and the score is posted once. A row is ``pending`` until the platform takes it
(``posted``); a post the platform refuses is ``rejected`` with the platform's answer as its reason,
and both are tried again after a backoff (:class:`Backoff`) or at once by
``grader lti resend``. The journal also holds each hub account's LMS user (``sub``) and each
assignment's line item.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from grader.settings import SQLITE_BUSY_SECONDS, setting

PENDING, POSTED, REJECTED = "pending", "posted", "rejected"
#: Seconds a process holds a score it is posting; another process leaves it alone until then (a
#: process that died while posting leaves it to the next pass after this time).
CLAIM_SECONDS = 300

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    id INTEGER PRIMARY KEY,
    assignment TEXT NOT NULL,
    student TEXT NOT NULL,
    run TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    graded_at REAL NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_try REAL NOT NULL DEFAULT 0,
    reason TEXT,
    posted_at REAL,
    claimed_until REAL NOT NULL DEFAULT 0,
    UNIQUE (assignment, student, run)
);
CREATE TABLE IF NOT EXISTS accounts (student TEXT PRIMARY KEY, lms_user TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS line_items (assignment TEXT PRIMARY KEY, url TEXT NOT NULL);
"""
_COLUMNS = "id, assignment, student, run, score, max_score, graded_at, state, attempts, next_try, reason, posted_at"
# claimed_until is the posting process's business only: not a field of ScoreRow


@dataclass(frozen=True)
class ScoreRow:
    """One score of the journal; times in seconds since the epoch."""

    id: int
    assignment: str
    student: str
    run: str
    score: float
    max_score: float
    graded_at: float
    state: str
    attempts: int
    next_try: float
    reason: str | None
    posted_at: float | None


@dataclass(frozen=True)
class Backoff:
    """When a failed post is tried again: ``first`` seconds after the first failure, doubling with
    each further one, at most ``longest`` seconds (``c.LmsPassback.first_retry_seconds`` and
    ``longest_retry_seconds``)."""

    first: float = setting("LmsPassback", "first_retry_seconds").default
    longest: float = setting("LmsPassback", "longest_retry_seconds").default

    def seconds(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th failed post (1, 2, ...)."""
        return min(self.longest, self.first * 2 ** max(0, attempts - 1))


class PassbackJournal:
    """The journal in ``path``; safe to open from several processes."""

    def __init__(self, path: Path, backoff: Backoff = Backoff()):
        self.backoff = backoff
        self.db = sqlite3.connect(Path(path), timeout=SQLITE_BUSY_SECONDS, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _rows(self, where: str, args: tuple = ()) -> list[ScoreRow]:
        cursor = self.db.execute(f"SELECT {_COLUMNS} FROM scores WHERE {where} ORDER BY id", args)
        return [ScoreRow(*values) for values in cursor.fetchall()]

    # ---- scores --------------------------------------------------------------------------------
    def add(self, assignment: str, student: str, run: str, score: float, max_score: float,
            graded_at: float) -> bool:
        """Record a grading's score to post; False when this grading run is already recorded.

        An earlier grading of the same submission not yet posted is dropped: only the latest score
        is posted.
        """
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO scores (assignment, student, run, score, max_score, graded_at) "
                "VALUES (?, ?, ?, ?, ?, ?)", (assignment, student, run, score, max_score, graded_at))
            added = cursor.rowcount == 1
            if added:
                self.db.execute("DELETE FROM scores WHERE assignment = ? AND student = ? AND id < ? AND state != ?",
                                (assignment, student, cursor.lastrowid, POSTED))
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return added

    def due(self, now: float) -> list[ScoreRow]:
        """Scores not yet posted whose next try has come and that no process is posting, oldest first."""
        return self._rows("state != ? AND next_try <= ? AND claimed_until <= ?", (POSTED, now, now))

    def claim(self, row_id: int, now: float) -> bool:
        """Take a score to post it; False when another process has it (or it was posted meanwhile),
        so that two graders posting at once never post one score twice."""
        return self.db.execute("UPDATE scores SET claimed_until = ? WHERE id = ? AND state != ? AND claimed_until <= ?",
                               (now + CLAIM_SECONDS, row_id, POSTED, now)).rowcount == 1

    def unposted(self) -> list[ScoreRow]:
        """Every score not yet posted (pending or rejected)."""
        return self._rows("state != ?", (POSTED,))

    def posted(self, assignment: str | None = None) -> list[ScoreRow]:
        return self._rows("state = ? AND assignment LIKE ?", (POSTED, assignment or "%"))

    def mark_posted(self, row_id: int, now: float) -> None:
        self.db.execute("UPDATE scores SET state = ?, posted_at = ?, reason = NULL, attempts = attempts + 1, "
                        "claimed_until = 0 WHERE id = ?", (POSTED, now, row_id))

    def mark_failed(self, row_id: int, reason: str, rejected: bool, now: float) -> None:
        """Keep a score the platform did not take, with ``reason``; it is tried again after a backoff."""
        attempts = self.db.execute("SELECT attempts FROM scores WHERE id = ?", (row_id,)).fetchone()[0] + 1
        self.db.execute("UPDATE scores SET state = ?, attempts = ?, reason = ?, next_try = ?, claimed_until = 0 "
                        "WHERE id = ?", (REJECTED if rejected else PENDING, attempts, reason,
                                         now + self.backoff.seconds(attempts), row_id))

    def wait(self, row_id: int, reason: str) -> None:
        """A score that cannot be posted until something is done (``reason`` says what); not a failed post."""
        self.db.execute("UPDATE scores SET reason = ?, claimed_until = 0 WHERE id = ?", (reason, row_id))

    def retry_now(self) -> int:
        """Make every unposted score due at once; how many there are."""
        return self.db.execute("UPDATE scores SET next_try = 0 WHERE state != ?", (POSTED,)).rowcount

    # ---- accounts and line items ---------------------------------------------------------------
    def link_account(self, student: str, lms_user: str) -> None:
        """Record that hub account ``student`` is the LMS user ``lms_user`` (the ``sub`` of its launches)."""
        self.db.execute("INSERT INTO accounts (student, lms_user) VALUES (?, ?) "
                        "ON CONFLICT (student) DO UPDATE SET lms_user = excluded.lms_user", (student, lms_user))

    def lms_user(self, student: str) -> str | None:
        row = self.db.execute("SELECT lms_user FROM accounts WHERE student = ?", (student,)).fetchone()
        return row[0] if row else None

    def line_item(self, assignment: str) -> str | None:
        row = self.db.execute("SELECT url FROM line_items WHERE assignment = ?", (assignment,)).fetchone()
        return row[0] if row else None

    def forget_line_item(self, assignment: str) -> None:
        """The LMS no longer has this line item (it was deleted there): find or make it again."""
        self.db.execute("DELETE FROM line_items WHERE assignment = ?", (assignment,))

    def set_line_item(self, assignment: str, url: str) -> None:
        self.db.execute("INSERT INTO line_items (assignment, url) VALUES (?, ?) "
                        "ON CONFLICT (assignment) DO UPDATE SET url = excluded.url", (assignment, url))
