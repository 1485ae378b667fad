"""What every corpus submission must earn: the table ``grader_tests/corpus/expected.csv``.

Columns ``assignment, submission, grade_id, score, diagnosis``:

- ``grade_id`` is a test cell's id, or ``*`` for every test cell the submission does not list on a
  row of its own (each submission has exactly one ``*`` row);
- ``score`` is the points the cell earns, or ``max`` for all of its points;
- ``diagnosis`` is empty when the check passes, else the name of the misconception the feedback
  names, or the escalation stage of the first problem (``not attempted yet``, ``raised an error``,
  ``not defined``, ``no report``, ...), or ``ungradable: <reason>`` for a file nbgrader cannot read.

Test-only: the grader never reads it. The corpus itself is read by ``grader.demo.corpus``.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from grader.demo.corpus import CorpusError
from grader_tests.checkout import CORPUS_DIR

EXPECTED_TABLE = CORPUS_DIR / "expected.csv"
EVERY_OTHER_CELL = "*"
FULL_POINTS = "max"
UNGRADABLE = "ungradable"
EXPECTED_COLUMNS = ("assignment", "submission", "grade_id", "score", "diagnosis")


@dataclass(frozen=True)
class Expected:
    """What one test cell of one submission should earn, and the diagnosis its feedback names.

    score: points; diagnosis: "" when it passes, a misconception name, a stage, or
    "ungradable: <reason>".
    """

    score: float
    diagnosis: str

    @property
    def ungradable(self) -> bool:
        return self.diagnosis.startswith(UNGRADABLE)


@dataclass(frozen=True)
class ExpectedRow:
    assignment: str
    submission: str
    grade_id: str
    score: str  # a number of points, or FULL_POINTS
    diagnosis: str


def load_expected(path: Path = EXPECTED_TABLE) -> list[ExpectedRow]:
    """The rows of the expected table; CorpusError for a missing column or a repeated row."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != EXPECTED_COLUMNS:
            raise CorpusError(f"{path}: the columns must be {', '.join(EXPECTED_COLUMNS)}")
        rows = [ExpectedRow(**{k: (v or "").strip() for k, v in row.items()}) for row in reader]
    seen = set()
    for row in rows:
        key = (row.assignment, row.submission, row.grade_id)
        if key in seen:
            raise CorpusError(f"{path}: {'/'.join(key)} is listed twice")
        seen.add(key)
        if row.score != FULL_POINTS:
            try:
                float(row.score)
            except ValueError:
                raise CorpusError(f"{path}: {'/'.join(key)} has score {row.score!r}, "
                                  f"not a number or {FULL_POINTS!r}") from None
    return rows


def expected_outcome(rows: list[ExpectedRow], assignment: str, submission: str,
                     points: dict[str, float]) -> dict[str, Expected]:
    """test cell grade_id -> Expected for one submission, with its ``*`` row applied to the others.

    points: grade_id -> points of every test cell of the assignment (``points_of_test_cells``).
    CorpusError when the submission has no ``*`` row or names a cell the notebook does not have.
    """
    own = {r.grade_id: r for r in rows if r.assignment == assignment and r.submission == submission}
    if EVERY_OTHER_CELL not in own:
        raise CorpusError(f"{assignment}/{submission} has no '{EVERY_OTHER_CELL}' row in the expected table")
    unknown = sorted(set(own) - set(points) - {EVERY_OTHER_CELL})
    if unknown:
        raise CorpusError(f"{assignment}/{submission} lists {unknown}, which are not test cells of the notebook")
    outcome = {}
    for cell_id, cell_points in points.items():
        row = own.get(cell_id, own[EVERY_OTHER_CELL])
        score = cell_points if row.score == FULL_POINTS else float(row.score)
        outcome[cell_id] = Expected(score, row.diagnosis)
    return outcome
