"""What refuses a submission before anything of it runs: a student id nbgrader cannot use, an
unreadable notebook, a hand-in without its notebook, too large, with too many cells, or holding
another assignment's cells.

Each function returns the reason as one sentence a student can act on, or ``None``.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.course import ASSIGNMENTS, Course
from grader.grading.readable_text import readable

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")


def student_id_problem(student: str) -> str | None:
    """Why a submission folder's name cannot be taken as a student id, or None when it can.

    The id goes into the gradebook, and from there into pages that nbgrader's formgrader prints
    without escaping (its per-student submissions page): an id holding markup would run in the
    instructor's browser. Such a folder is refused before any gradebook row or file is written.
    """
    if STUDENT_ID.fullmatch(student):
        return None
    return (f"the submission folder {student!r} is not a student id (letters, digits and . _ @ + - only, "
            "starting with a letter or digit); nothing was graded or recorded: rename the folder in "
            "submitted/ to the student's id and grade again.")


def unreadable_reason(path: Path) -> str | None:
    """Why the submitted notebook cannot be graded at all, or None when nbgrader can read it."""
    if not path.exists():
        return f"no notebook was submitted: {path.name} is missing from the submission folder."
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for unreadable files
        # A JSON problem is told in words: nbformat's message quotes the file's first bytes.
        problem = _json_problem(path) or f"{type(exc).__name__}: {str(exc)[:200]}"
        return f"{path.name} is not a readable notebook: {problem}; resubmit the file saved by Jupyter."
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        return f"{path.name} is not a valid notebook ({exc.message[:200]}); resubmit the file saved by Jupyter."
    return None


def _json_problem(path: Path) -> str | None:
    """Why a file is not a JSON object, in words (never quoting the file); None when it is one."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the file is not UTF-8 text (byte {exc.start} is not), so Jupyter did not save it"
    except OSError as exc:
        return f"the file cannot be read ({exc.strerror})"
    if not text.strip():
        return "the file is empty"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            return (f"the file stops in the middle of the notebook (after {exc.lineno} lines), as a file "
                    "cut off while it was saved or copied does")
        return f"the file is not valid JSON from line {exc.lineno}, column {exc.colno} on ({exc.msg.lower()})"
    return None if isinstance(value, dict) else "the file is JSON but holds no notebook"


@dataclass(frozen=True)
class Limits:
    """What a course refuses to grade: the notebook's size (bytes) and its number of cells."""

    max_bytes: int
    max_cells: int


def handin_problem(course: Course, assignment: str, folder: Path, limits: Limits) -> str | None:
    """Why the hand-in in ``folder`` must not be graded at all, or None. Cheap checks only."""
    undecodable = _names_not_utf8(folder)
    if undecodable:
        return (f"the submission holds files whose names are not UTF-8 text ({', '.join(undecodable)}); "
                "rename them (letters, digits, - and _) or remove them from your assignment folder, "
                "and hand in again.")
    for name in course.notebooks(assignment):
        reason = notebook_problem(course, assignment, folder / f"{name}.ipynb", limits)
        if reason is not None:
            return reason
    return None


def notebook_problem(course: Course, assignment: str, expected: Path, limits: Limits) -> str | None:
    """Why the notebook ``expected`` of a hand-in of ``assignment`` must not be graded, or None."""
    folder = expected.parent
    if not expected.exists():
        others = sorted(readable(p.name) for p in folder.glob("*.ipynb"))
        found = f"; the submission holds {', '.join(others)}" if others else ""
        return (f"{expected.name} is missing from your submission{found}. Hand in the folder "
                f"{assignment} fetched with Fetch (nbgrader fetch_assignment), with {expected.name} in it.")
    size = expected.stat().st_size
    if size > limits.max_bytes:
        return (f"{expected.name} is {size / 1e6:.1f} MB, more than the {limits.max_bytes / 1e6:.1f} MB "
                "this course grades; clear the outputs (Kernel > Restart & Clear Output), save and hand in again.")
    reason = unreadable_reason(expected)
    if reason is not None:
        return reason
    notebook = nbformat.read(expected, as_version=4)
    if len(notebook.cells) > limits.max_cells:
        return (f"{expected.name} has {len(notebook.cells)} cells, more than the {limits.max_cells} "
                "this course grades; start again from the released notebook.")
    other = _other_assignment(course, assignment, notebook)
    if other is not None:
        return (f"{expected.name} holds the cells of assignment {other}, not {assignment}; "
                f"put your {assignment} work in {expected.name} and hand in again.")
    return None


def _names_not_utf8(folder: Path, most: int = 5) -> list[str]:
    """Up to ``most`` paths in ``folder`` whose names are not UTF-8, shown readably (``\\xff.ipynb``):
    nbgrader and the feedback pages cannot carry such a name."""
    top = os.fsencode(folder)
    found = []
    for parent, folders, files in os.walk(top):
        for name in sorted(folders + files):
            try:
                name.decode("utf-8")
            except UnicodeDecodeError:
                found.append(readable(os.path.relpath(os.path.join(parent, name), top)))
    return sorted(found)[:most]


def _grade_ids(notebook) -> set[str]:
    return {cell.metadata.get("nbgrader", {}).get("grade_id") for cell in notebook.cells} - {None}


def _other_assignment(course: Course, assignment: str, notebook) -> str | None:
    """The other assignment whose cells ``notebook`` mostly holds (shared ids such as ``setup``
    aside), or None when it holds more of ``assignment``'s cells than of any other's."""
    ids = _grade_ids(notebook)
    shared = {a: len(ids & _grade_ids(nbformat.read(course.release_notebook(a), 4)))
              for a in ASSIGNMENTS if course.release_notebook(a).exists()}
    best = max(shared, key=shared.get, default=assignment)
    return best if best != assignment and shared[best] > shared.get(assignment, 0) else None
