"""The service's durable record of every submission it has seen (SQLite in ``Course.state_dir``).

One row per hand-in folder of the exchange, unique on the folder's name (kept as bytes, whatever
the name holds), so collecting the same hand-in twice never makes two rows. A row moves through::

    received -> [waiting] -> grading -> graded -> released
                                      \\-> held (feedback until the due date) -> released

A row is also ``released`` directly when the service decides without grading (superseded, late
after an on-time submission), with its page released. Only the ``grading`` state can be
interrupted by a crash; :meth:`Journal.recover` puts such rows back to ``received`` so a restart
grades them again (nbgrader's ``--force`` regrading overwrites the gradebook rows, never adds).
Every write is its own committed transaction.

Entries of ``inbound/`` that cannot be anyone's hand-in (a name that is not nbgrader's, a folder
owned by root or by no account, a link, a reused submission secret) are kept in a table of their
own, ``refused_folders``: they are never a row of a student, so they count toward nobody's limits
or waiting hand-ins, and each is logged once.
"""
from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from grader.grading.admission import Refusal
from grader.grading.readable_text import readable
from grader.settings import SQLITE_BUSY_SECONDS

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
    folder BLOB NOT NULL UNIQUE,     -- the hand-in folder's name in the exchange, as bytes
    secret_digest TEXT,              -- SHA-256 of its submission secret (names its feedback page)
    code TEXT                        -- refused or ungradable: the refusal code (grader.grading.admission.CODES)
);
CREATE INDEX IF NOT EXISTS submissions_secret ON submissions (secret_digest);
CREATE TABLE IF NOT EXISTS refused_folders (
    folder BLOB PRIMARY KEY,         -- the entry's name in inbound/, as bytes
    owner TEXT NOT NULL,             -- the account owning the entry itself
    reason TEXT NOT NULL,
    seen_at REAL NOT NULL,
    secret_digest TEXT,              -- SHA-256 of the secret its author's page was keyed on, if one was sent
    code TEXT                        -- the refusal code (grader.grading.admission.CODES)
);
CREATE TABLE IF NOT EXISTS floods (
    owner TEXT PRIMARY KEY,          -- the account that made more inbound entries in one pass than its budget
    entries INTEGER NOT NULL,        -- how many of its entries are refused unread (counted again at a restart)
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL
);
"""

_COLUMNS = ("id, student, assignment, timestamp, submitted_at, collected_at, state, not_before, "
            "started_at, finished_at, score, max_score, outcome, problem, gradings, refusal")


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
    folder: bytes = b""
    secret_digest: str | None = None
    code: str | None = None  # refused or ungradable: the refusal code (grader.grading.admission.CODES)


class RefusedFolder(NamedTuple):
    """An inbound entry that is nobody's hand-in: its name, owner, reason and refusal code."""

    folder: bytes
    owner: str
    reason: str
    code: str | None


class Journal:
    """The submissions table; safe to open from several processes (SQLite busy timeout)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, timeout=SQLITE_BUSY_SECONDS, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self._migrate()
        self.db.executescript(_SCHEMA)
        # columns added since the first journals: a journal written before them gets them, empty
        for table, column in (("refused_folders", "secret_digest"), ("refused_folders", "code"),
                              ("submissions", "code")):
            if column not in {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")

    def _migrate(self) -> None:
        """A journal written before rows were keyed by folder name gets the new columns; its rows'
        folder is their (student, assignment, timestamp) as they were keyed then."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(submissions)")}
        if not columns or "folder" in columns:
            return
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("ALTER TABLE submissions RENAME TO submissions_before_folders")
        self.db.execute(_SCHEMA.split(";")[0])
        self.db.execute(f"INSERT INTO submissions ({_COLUMNS}, folder) SELECT {_COLUMNS}, "
                        "CAST(student || '+' || assignment || '+' || timestamp AS BLOB) "
                        "FROM submissions_before_folders")
        self.db.execute("DROP TABLE submissions_before_folders")
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def _rows(self, where: str = "1", args: tuple = ()) -> list[Row]:
        cursor = self.db.execute(f"SELECT {_COLUMNS}, folder, secret_digest, code FROM submissions "
                                 f"WHERE {where} ORDER BY id", args)
        return [Row(*values[:-3], bytes(values[-3]), *values[-2:]) for values in cursor.fetchall()]

    def all(self) -> list[Row]:
        return self._rows()

    def get(self, row_id: int) -> Row:
        return self._rows("id = ?", (row_id,))[0]

    def knows(self, folder: bytes) -> bool:
        """Whether the inbound entry ``folder`` was recorded, as a hand-in or as refused."""
        return bool(self.db.execute("SELECT 1 FROM submissions WHERE folder=? UNION ALL "
                                    "SELECT 1 FROM refused_folders WHERE folder=?",
                                    (folder, folder)).fetchone())

    def add(self, folder: bytes, student: str, assignment: str, timestamp: str, submitted_at: float,
            refusal: Refusal | None = None, secret_digest: str | None = None) -> int | None:
        """Record a collected hand-in; None when it was already recorded.

        ``timestamp`` is the one in the folder's name (shown to people), ``submitted_at`` the time
        the hand-in counts as made (epoch seconds; see :mod:`grader.service.inbound`); ``refusal``:
        why it must not be graded at all (its text and code are kept).
        """
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO submissions (student, assignment, timestamp, submitted_at, "
            "collected_at, state, refusal, folder, secret_digest, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (student, assignment, timestamp, submitted_at, time.time(), RECEIVED,
             None if refusal is None else readable(refusal.student_text), folder, secret_digest,
             None if refusal is None else refusal.code))
        return cursor.lastrowid if cursor.rowcount else None

    def folder_with_secret(self, secret_digest: str) -> bytes | None:
        """The folder already recorded with this submission secret (a hand-in, or a refused folder
        whose author was sent a page keyed on it), or None."""
        found = self.db.execute("SELECT folder FROM submissions WHERE secret_digest=? UNION ALL "
                                "SELECT folder FROM refused_folders WHERE secret_digest=? LIMIT 1",
                                (secret_digest, secret_digest)).fetchone()
        return None if found is None else bytes(found[0])

    def refuse_folder(self, folder: bytes, owner: str, refusal: Refusal, secret_digest: str | None = None) -> bool:
        """Record an inbound entry that is nobody's hand-in (``secret_digest``: of the secret its
        author's page is keyed on, when one was sent); False when it was already recorded."""
        cursor = self.db.execute("INSERT OR IGNORE INTO refused_folders (folder, owner, reason, seen_at, "
                                 "secret_digest, code) VALUES (?, ?, ?, ?, ?, ?)",
                                 (folder, owner, readable(refusal.student_text), time.time(), secret_digest,
                                  refusal.code))
        return bool(cursor.rowcount)

    def known_folders(self) -> set[bytes]:
        """The names of every inbound entry recorded, as a hand-in or as refused."""
        return {bytes(name) for (name,) in self.db.execute(
            "SELECT folder FROM submissions UNION ALL SELECT folder FROM refused_folders")}

    def record_flood(self, owner: str, entries: int, replace: bool = False) -> bool:
        """Count ``entries`` more inbound entries of ``owner`` refused together as a flood (or, with
        ``replace``, that many in all); True when it is the account's first flood (logged once)."""
        now = time.time()
        first = self.db.execute("SELECT 1 FROM floods WHERE owner=?", (owner,)).fetchone() is None
        counted = "excluded.entries" if replace else "entries + excluded.entries"
        self.db.execute(f"INSERT INTO floods VALUES (?, ?, ?, ?) ON CONFLICT(owner) DO UPDATE SET "
                        f"entries = {counted}, last_seen = excluded.last_seen", (owner, entries, now, now))
        return first

    def floods(self) -> dict[str, int]:
        """Account -> inbound entries refused together as its floods."""
        return dict(self.db.execute("SELECT owner, entries FROM floods ORDER BY first_seen"))

    def refused_folders(self) -> list[RefusedFolder]:
        """Every refused inbound entry, oldest first."""
        return [RefusedFolder(bytes(name), owner, reason, code) for name, owner, reason, code in self.db.execute(
            "SELECT folder, owner, reason, code FROM refused_folders ORDER BY seen_at")]

    def in_state(self, *states: str) -> list[Row]:
        marks = ",".join("?" * len(states))
        return self._rows(f"state IN ({marks})", states)

    def of(self, student: str, assignment: str) -> list[Row]:
        """Every row of one student's assignment, in arrival order."""
        return self._rows("student=? AND assignment=?", (student, assignment))

    def update(self, row_id: int, **fields) -> None:
        names = ", ".join(f"{name}=?" for name in fields)
        values = (readable(value) if isinstance(value, str) else value for value in fields.values())
        self.db.execute(f"UPDATE submissions SET {names} WHERE id=?", (*values, row_id))

    def start_grading(self, row_id: int) -> None:
        self.db.execute("UPDATE submissions SET state=?, started_at=?, gradings=gradings+1 WHERE id=?",
                        (GRADING, time.time(), row_id))

    def graded_since(self, student: str, assignment: str, since: float) -> list[float]:
        """Start times of gradings of this pair at or after ``since`` (epoch seconds), oldest first."""
        return [value for (value,) in self.db.execute(
            "SELECT started_at FROM submissions WHERE student=? AND assignment=? AND started_at>=? "
            "AND outcome IN ('graded', 'ungradable') ORDER BY started_at",
            (student, assignment, since))]

    def grading_seconds_since(self, student: str, since: float, now: float) -> float:
        """Wall-clock seconds gradings of ``student``'s hand-ins (every assignment) took between
        ``since`` and ``now`` (epoch seconds); a grading still running counts until ``now``."""
        (seconds,) = self.db.execute(
            "SELECT COALESCE(SUM(MIN(COALESCE(finished_at, ?), ?) - MAX(started_at, ?)), 0) FROM submissions "
            "WHERE student=? AND started_at IS NOT NULL AND COALESCE(finished_at, ?) > ?",
            (now, now, since, student, now, since)).fetchone()
        return max(0.0, float(seconds))

    def recover(self) -> list[Row]:
        """Rows a crash interrupted while grading, put back to ``received``; returns them."""
        interrupted = self.in_state(GRADING)
        self.db.execute("UPDATE submissions SET state=?, started_at=NULL WHERE state=?",
                        (RECEIVED, GRADING))
        return interrupted
