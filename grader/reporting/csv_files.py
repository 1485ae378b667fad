"""Writing a CSV a spreadsheet may open: every text cell defused, the file complete or absent.

Every CSV the course writes goes through ``write_csv_rows``: the Canvas import file
(``grader.reporting.canvas``), the report's tables (``grader.reporting.csv_tables``) and
``grades.csv`` of ``nbgrader export`` (``grader.reporting.grades_csv``).

Defusing follows OWASP's rule for CSV injection: a text cell that begins with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return (or the full-width ``＝ ＋ － ＠``, which some spreadsheets read
alike) is written with a leading apostrophe, so that a spreadsheet shows it as text instead of
running it as a formula (``=HYPERLINK(...)`` in a roster name, ``+cmd|' /C calc'!A0`` as a student
id). Numbers stay numbers: an ``int`` or ``float`` is written as it is, and so is a text cell that
is a plain decimal number (``-1.5``, ``+2``, ``1e-3``: what we write for scores), which a
spreadsheet reads as that number and nothing else. The csv module quotes cells holding commas,
quotes or line breaks, so no cell can spill into the next.
"""
from __future__ import annotations

import csv
import os
import re
import tempfile
from pathlib import Path
from typing import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def defused(value: object) -> object:
    """``value`` as a spreadsheet-safe CSV cell: text that a spreadsheet would run gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def write_csv_rows(path: Path, rows: Iterable[Iterable[object]]) -> Path:
    """Write ``rows`` (header included) to ``path`` as CSV (UTF-8), every cell through ``defused``.

    The file appears complete or not at all: the rows go to a temporary file beside ``path``,
    which replaces ``path`` only once every row is written; if anything fails (a row raises, the
    disk is full) ``path`` is left as it was and the temporary file is removed.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            for row in rows:
                writer.writerow([defused(cell) for cell in row])
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # as open() would have created it, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    """The process's umask, read without changing it (``os.umask`` would, for every thread); 0o077
    (private, as ``mkstemp`` creates) where the system does not say."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o077
