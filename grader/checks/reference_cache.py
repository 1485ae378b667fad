"""Simulated reference statistics, computed once per course and kept on disk.

Some statistical judges compare a student's estimate with the reference's own Monte-Carlo
estimate for the same setting (``accuracy_block`` of ``source/03_readout/checks.py``: the success
rates of eight neighbouring numbers of stored pairs, from one simulation of 2000 or 8000 memories,
0.05 to 0.4 s; ``saturation_band`` of ``source/02_softmax/checks.py``: the accepted band of each
saturation mean). Such a value depends only on its arguments and the grading code,
so it is kept, as JSON, in an SQLite table in the course's ``.grader/`` folder, shared by every grading
process and every run (kernels cannot reach that folder): two workers no longer simulate the same
setting twice (one that needs a value another is simulating waits for it: a lock on one byte of
``reference_statistics.lock`` per value), and a re-grade or the grading service simulates nothing
it has seen. The key holds the grading code's version (``grader.code_version.grader_version``) and
a digest of the checks file that asks, so changed code starts afresh. Without a course folder
(tests, an interactive session) values stay in the process.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grader.code_version import grader_version
from grader.settings import SQLITE_BUSY_SECONDS
from grader.state_folders import REFERENCE_STATISTICS as FILE_NAME
from grader.state_folders import REFERENCE_STATISTICS_LOCKS as LOCK_FILE_NAME

_folder: Path | None = None
_memory: dict[str, object] = {}
TABLE = "reference_value"  # key TEXT (function, arguments, code version) -> value TEXT (JSON)
_lock = threading.Lock()


def use_folder(folder: Path | str | None) -> None:
    """Keep values in ``folder/reference_statistics.sqlite`` from now on (None: in memory only)."""
    global _folder
    _folder = Path(folder) if folder is not None else None


def _connect(folder: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(folder / FILE_NAME, timeout=SQLITE_BUSY_SECONDS)
    connection.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    return connection


def _stored(folder: Path, key: str) -> str | None:
    """The kept JSON text, or None when there is none or the table cannot be read (it is only a
    cache: e.g. SQLite's locks on a network file system)."""
    try:
        with _connect(folder) as connection:
            row = connection.execute(f"SELECT value FROM {TABLE} WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])


def _store(folder: Path, key: str, text: str) -> None:
    try:
        with _connect(folder) as connection:
            connection.execute(f"INSERT OR IGNORE INTO {TABLE} (key, value) VALUES (?, ?)", (key, text))
    except sqlite3.Error:
        pass  # computed again next time


@contextmanager
def computing(folder: Path, key: str) -> Iterator[None]:
    """Held while this process computes the value of ``key`` for the course at ``folder``: another
    process that needs the same value waits until it is stored, instead of computing it at the same
    time. A POSIX lock on one byte of the lock file per key (two keys may share a byte and then wait
    for each other); released when the process ends, however it ends. Where locks cannot be taken
    (some network file systems), values are computed without waiting, as before."""
    offset = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") & 0x7FFFFFFF
    try:
        descriptor = os.open(folder / LOCK_FILE_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.lockf(descriptor, fcntl.LOCK_EX, 1, offset)
        except OSError:
            pass
        yield
    finally:
        os.close(descriptor)  # releases the lock


def key_of(function, args: tuple) -> str:
    """The key a ``remembered`` ``function`` keeps its value for ``args`` under."""
    return f"{function.__module__}.{function.__qualname__}{args!r} {grader_version()}{_source_digest(function)}"


@functools.lru_cache(maxsize=None)
def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _source_digest(function) -> str:
    """A digest of the file defining ``function`` when it lies outside the installed packages (a
    course's checks file), so that editing that file computes again; empty otherwise."""
    module = sys.modules.get(function.__module__)
    path = getattr(module, "__file__", None)
    if not path or function.__module__.split(".")[0] in ("grader", "solutions"):
        return ""
    return " " + _file_digest(path)


def remembered(function):
    """Decorate a deterministic function of hashable arguments whose value JSON holds exactly (a
    float, or lists and string-keyed dicts of floats): each value is computed once per course (or
    per process without a course folder). The caller gets the value as JSON gives it back (a
    tuple comes back as a list) on the first call as on every later one."""
    @functools.wraps(function)
    def wrapper(*args):
        key = key_of(function, args)
        with _lock:
            value = _memory.get(key)
        if value is not None:
            return value
        folder = _folder
        text = _stored(folder, key) if folder is not None else None
        if text is None and folder is not None:
            with computing(folder, key):
                text = _stored(folder, key)  # stored by another process while this one waited
                if text is None:
                    text = json.dumps(function(*args))
                    _store(folder, key, text)
        elif text is None:
            text = json.dumps(function(*args))
        value = json.loads(text)
        with _lock:
            _memory[key] = value
        return value

    wrapper.uncached = function
    return wrapper
