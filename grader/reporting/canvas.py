"""Grades as a CSV that Canvas's gradebook import accepts, with students mapped through a roster.

The file has Canvas's own gradebook-export layout, which its import reads back:

    Student,ID,SIS User ID,SIS Login ID,Section,01_variance (4711),02_softmax
    Points Possible,,,,,14,21
    "Lovelace, Ada",1001,S1001,ada,Section A,14,19.5

- the five identity columns come from the roster; Canvas matches a row to a student by ``ID``
  (Canvas's user id), falling back to the SIS ids;
- one column per assignment that has submissions (in gradebook order), with the points earned: nbgrader's score minus its late-submission
  penalty, never below 0. A student with no submission for an assignment gets 0, as in
  ``nbgrader export``;
- an assignment column named ``Name (canvas_id)`` updates that existing Canvas assignment; a bare
  name makes Canvas create a new assignment on import (pass the ids with ``--assignment-id``);
- the second row, ``Points Possible``, gives each assignment's maximum score.

The roster is a CSV the instructor provides, for example Canvas's own gradebook export. Required
columns: ``Student, ID, SIS User ID, SIS Login ID, Section`` (other columns and a
``Points Possible`` row are ignored). The nbgrader student id is taken from an optional
``nbgrader_id`` column, else from ``SIS Login ID``; an optional ``Language`` column gives the
language the student reads feedback in (``grader roster``, :mod:`grader.language.student_language`).

Nobody is dropped silently: gradebook students missing from the roster (their grades would never
reach Canvas) and roster students missing from the gradebook are both returned and printed by
the command. The first makes it fail and write nothing (an earlier file at the same path is left
as it was), since a file without them would be imported as if complete; the file is otherwise
written to a temporary name and renamed into place, so it is never seen half written.

Every cell goes through ``grader.reporting.csv_files``: roster text that a spreadsheet would run as
a formula (a name ``=HYPERLINK(...)``) gets a leading apostrophe; scores stay numbers. Canvas
matches rows by ``ID``, which is a number and so never changed.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from grader.language.student_language import LANGUAGE_COLUMN, language_of
from grader.reporting.csv_files import write_csv_rows

IDENTITY_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
NBGRADER_ID_COLUMN = "nbgrader_id"
DEFAULT_MATCH_COLUMN = "SIS Login ID"
POINTS_POSSIBLE = "Points Possible"


class RosterError(ValueError):
    """The roster file is missing, unreadable or lacks a required column (the message says which)."""


@dataclass(frozen=True)
class RosterEntry:
    nbgrader_id: str
    identity: tuple[str, str, str, str, str]  # the values of IDENTITY_COLUMNS
    language: str | None = None  # the optional Language column (grader.language), None: the course's default


@dataclass
class CanvasExport:
    """What was written, and who could not be matched.

    not_in_roster: gradebook students with no roster row; when there are any, nothing is written.
    not_in_gradebook: roster students the gradebook does not know (written with 0 everywhere).
    written: whether ``path`` now holds this export (complete: it is renamed into place at the end).
    """

    path: Path
    students: int
    assignments: list[str]
    not_in_roster: list[str] = field(default_factory=list)
    not_in_gradebook: list[str] = field(default_factory=list)
    written: bool = False


def read_roster(path: Path) -> list[RosterEntry]:
    """The roster's students in file order; RosterError naming the file and the problem."""
    path = Path(path)
    if not path.is_file():
        raise RosterError(f"roster {path} does not exist; give a CSV with columns {', '.join(IDENTITY_COLUMNS)}")
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:  # -sig: spreadsheets often add a BOM
            reader = csv.DictReader(handle)
            header = [name.strip() for name in reader.fieldnames or []]
            reader.fieldnames = header
            missing = [name for name in IDENTITY_COLUMNS if name not in header]
            if missing:
                raise RosterError(f"roster {path} has no column(s) {', '.join(missing)}; required: "
                                  f"{', '.join(IDENTITY_COLUMNS)} (optional: {NBGRADER_ID_COLUMN})")
            key = NBGRADER_ID_COLUMN if NBGRADER_ID_COLUMN in header else DEFAULT_MATCH_COLUMN
            entries, seen = [], {}
            for number, row in enumerate(reader, start=2):
                identity = tuple((row.get(name) or "").strip() for name in IDENTITY_COLUMNS)
                if identity[0] == POINTS_POSSIBLE or not any(identity):
                    continue  # the second row of a Canvas export, or a blank line
                student = (row.get(key) or "").strip()
                if not student:
                    raise RosterError(f"roster {path}, line {number}: empty {key!r}; every student needs one")
                if student in seen:
                    raise RosterError(f"roster {path}, line {number}: {key} {student!r} is already on line {seen[student]}")
                seen[student] = number
                try:
                    language = language_of(row.get(LANGUAGE_COLUMN) or "")
                except ValueError as exc:
                    raise RosterError(f"roster {path}, line {number}: {LANGUAGE_COLUMN}: {exc}") from None
                entries.append(RosterEntry(student, identity, language))
    except UnicodeDecodeError as exc:
        raise RosterError(f"roster {path} is not UTF-8 text ({exc.reason}); save it as CSV UTF-8") from None
    return entries


def assignment_header(name: str, canvas_id: str | None) -> str:
    return f"{name} ({canvas_id})" if canvas_id else name


def _points(value: float) -> str:
    text = f"{round(value, 3):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def export_canvas(db_url: str, roster_path: Path, out: Path,
                  canvas_ids: dict[str, str] | None = None) -> CanvasExport:
    """Write the Canvas import CSV: every roster student, every assignment with submissions.

    canvas_ids: nbgrader assignment name -> Canvas assignment id (header ``Name (id)``).
    RosterError for a bad roster or an id given for an assignment without submissions. When a
    graded student is missing from the roster nothing is written (``written`` is False and
    ``not_in_roster`` names them); otherwise ``out`` is replaced, complete, in one rename.
    """
    roster = read_roster(roster_path)
    canvas_ids = canvas_ids or {}
    with Gradebook(db_url) as gb:
        # An assignment nobody has handed in yet is left out: a column of zeros would overwrite Canvas.
        assignments = [a.name for a in gb.assignments if a.submissions]
        unknown = sorted(set(canvas_ids) - set(assignments))
        if unknown:
            raise RosterError(f"--assignment-id names {', '.join(unknown)}, which has no submissions in the gradebook "
                              f"(graded: {', '.join(assignments) or 'none'})")
        max_scores = [float(gb.find_assignment(a).max_score) for a in assignments]
        gradebook_students = {s.id for s in gb.students}
        rows = []
        for entry in roster:
            scores = []
            for assignment in assignments:
                try:
                    submission = gb.find_submission(assignment, entry.nbgrader_id)
                    earned = float(submission.score) - float(submission.late_submission_penalty or 0.0)
                except MissingEntry:
                    earned = 0.0
                scores.append(_points(max(0.0, earned)))
            rows.append([*entry.identity, *scores])
    in_roster = {entry.nbgrader_id for entry in roster}
    result = CanvasExport(Path(out), len(rows), assignments,
                          not_in_roster=sorted(gradebook_students - in_roster),
                          not_in_gradebook=[e.nbgrader_id for e in roster if e.nbgrader_id not in gradebook_students])
    if result.not_in_roster:
        return result  # a file without them would look complete; ``out`` is left as it was
    write_csv_rows(result.path, [
        [*IDENTITY_COLUMNS, *(assignment_header(a, canvas_ids.get(a)) for a in assignments)],
        [POINTS_POSSIBLE, "", "", "", "", *(_points(m) for m in max_scores)],
        *rows,
    ])
    result.written = True
    return result
