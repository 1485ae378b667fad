"""Students' names in the gradebook from the course's roster, so that nbgrader's formgrader lists them.

nbgrader adds a student to the gradebook when it first grades their hand-in, with no name: the
formgrader then lists them as "None, None". :func:`add_roster_names` reads the roster that
``grader export --canvas`` reads (``grader.reporting.canvas.read_roster``: Canvas's ``Student``
column holds "Last, First") and writes every roster student's first and last name into the
gradebook (``Student.first_name``, ``Student.last_name``), adding those nbgrader has not met yet.
"""
from __future__ import annotations

from pathlib import Path

from nbgrader.api import Gradebook

from grader.language.student_language import save_student_languages
from grader.reporting.canvas import read_roster


def split_name(full_name: str) -> tuple[str, str]:
    """(first name, last name) of Canvas's "Last, First"; of "First Last", the last word is the last name."""
    if "," in full_name:
        last, first = full_name.split(",", 1)
        return first.strip(), last.strip()
    first, _, last = full_name.strip().rpartition(" ")
    return first.strip(), last.strip()


def add_roster_names(db_url: str, roster_path: Path, state_dir: Path | None = None) -> int:
    """Write every roster student's names into the gradebook at ``db_url``; the number of students.

    With ``state_dir`` (the course's ``.grader/``), also record the language of every student whose
    roster row has one (:func:`grader.language.student_language.save_student_languages`).

    RosterError (``grader.reporting.canvas``) for a roster that is missing or malformed, naming it.
    """
    roster = read_roster(roster_path)
    with Gradebook(db_url) as gb:
        for entry in roster:
            first, last = split_name(entry.identity[0])
            gb.update_or_create_student(entry.nbgrader_id, first_name=first or None, last_name=last or None)
    if state_dir is not None:
        save_student_languages(state_dir, {e.nbgrader_id: e.language for e in roster if e.language})
    return len(roster)
