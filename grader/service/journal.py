"""The service's durable record of every submission it has seen (SQLite in ``Course.state_dir``).

One row per exchange submission, unique on (student, assignment, timestamp), so collecting the
same hand-in twice never makes two rows. A row moves through::

    received -> [waiting] -> grading -> graded -> released
                                      \\-> held (feedback until the due date) -> released

A row is also ``released`` directly when the service decides without grading (superseded, late
after an on-time submission), with its page released. Only the ``grading`` state can be
interrupted by a crash; :meth:`Journal.recover` puts such rows back to ``received`` so a restart
grades them again (nbgrader's ``--force`` regrading overwrites the gradebook rows, never adds).
Every write is its own committed transaction.
"""
from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

RECEIVED, WAITING, GRADING, GRADED, HELD, RELEASED = (
    "received", "waiting", "grading", "graded", "held", "released")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    timestamp TEXT NOT NULL,         -- nbgrader's timestamp string of the hand-in
    submitted_at REAL NOT NULL,      -- the same, seconds since the epoch
    collected_at REAL NOT NULL,
    state TEXT NOT NULL,
    not_before REAL,                 -- waiting: earliest grading time (epoch seconds)
    started_at REAL,                 -- when grading last started
    finished_at REAL,
    score REAL,
    max_score REAL,
    outcome TEXT,                    -- graded | ungradable | superseded | not counted | ...
    problem TEXT,                    -- the first problem, or the reason it was not graded
    gradings INTEGER NOT NULL DEFAULT 0,
    refusal TEXT,                    -- why it must not be graded at all (e.g. handed in by another account)
    UNIQUE (student, assignment, timestamp)
);
"""


@dataclass(frozen=True)
class Row:
    id: int
    student: str
    assignment: str
    timestamp: str
    submitted_at: float
    collected_at: float
    state: str
    not_before: float | None
    started_at: float | None
    finished_at: float | None
    score: float | None
    max_score: float | None
    outcome: str | None
    problem: str | None
    gradings: int
    refusal: str | None


class Journal:
    """The submissions table; safe to open from several processes (SQLite busy timeout)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def _rows(self, where: str = "1", args: tuple = ()) -> list[Row]:
        cursor = self.db.execute(f"SELECT * FROM submissions WHERE {where} ORDER BY id", args)
        return [Row(*values) for values in cursor.fetchall()]

    def all(self) -> list[Row]:
        return self._rows()

    def get(self, row_id: int) -> Row:
        return self._rows("id = ?", (row_id,))[0]

    def knows(self, student: str, assignment: str, timestamp: str) -> bool:
        return bool(self.db.execute(
            "SELECT 1 FROM submissions WHERE student=? AND assignment=? AND timestamp=?",
            (student, assignment, timestamp)).fetchone())

    def add(self, student: str, assignment: str, timestamp: str, submitted_at: float,
            refusal: str | None = None) -> int | None:
        """Record a collected submission; None when it was already recorded."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO submissions (student, assignment, timestamp, submitted_at, "
            "collected_at, state, refusal) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (student, assignment, timestamp, submitted_at, time.time(), RECEIVED, refusal))
        return cursor.lastrowid if cursor.rowcount else None

    def in_state(self, *states: str) -> list[Row]:
        marks = ",".join("?" * len(states))
        return self._rows(f"state IN ({marks})", states)

    def of(self, student: str, assignment: str) -> list[Row]:
        """Every row of one student's assignment, in arrival order."""
        return self._rows("student=? AND assignment=?", (student, assignment))

    def update(self, row_id: int, **fields) -> None:
        names = ", ".join(f"{name}=?" for name in fields)
        self.db.execute(f"UPDATE submissions SET {names} WHERE id=?", (*fields.values(), row_id))

    def start_grading(self, row_id: int) -> None:
        self.db.execute("UPDATE submissions SET state=?, started_at=?, gradings=gradings+1 WHERE id=?",
                        (GRADING, time.time(), row_id))

    def graded_since(self, student: str, assignment: str, since: float) -> list[float]:
        """Start times of gradings of this pair at or after ``since`` (epoch seconds), oldest first."""
        return [value for (value,) in self.db.execute(
            "SELECT started_at FROM submissions WHERE student=? AND assignment=? AND started_at>=? "
            "AND outcome IN ('graded', 'ungradable') ORDER BY started_at",
            (student, assignment, since))]

    def recover(self) -> list[Row]:
        """Rows a crash interrupted while grading, put back to ``received``; returns them."""
        interrupted = self.in_state(GRADING)
        self.db.execute("UPDATE submissions SET state=?, started_at=NULL WHERE state=?",
                        (RECEIVED, GRADING))
        return interrupted
