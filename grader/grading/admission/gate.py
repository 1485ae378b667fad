"""The rules of every scheduler: :func:`admit`, called by ``grader.grading.grade_one.grade_one``
before anything of a submission runs, and the checks it is made of (the student id, file names,
the notebook's presence, size, readability, cell count and assignment)."""
from __future__ import annotations

import json
import os
import re
import stat
from functools import lru_cache
from pathlib import Path

import nbformat

from grader.course import Course
from grader.grading.admission.codes import Refusal, refused
from grader.grading.admission.limits import Limits
from grader.grading.admission.messages import (
    ANOTHER_ASSIGNMENT,
    CANNOT_BE_READ,
    CUT_OFF,
    EMPTY_FILE,
    INVALID,
    MISSING,
    MISSING_BESIDE,
    NAMES_NOT_UTF8,
    NO_NOTEBOOK,
    NO_NOTEBOOK_IN_JSON,
    NO_SUCH_ASSIGNMENT,
    NOT_JSON,
    NOT_UTF8_TEXT,
    TOO_LARGE,
    TOO_MANY_CELLS,
    UNREADABLE,
)
from grader.grading.readable_text import readable

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")


def admit(course: Course, assignment: str, student: str, folder: Path, limits: Limits) -> Refusal | None:
    """Whether ``folder`` (``submitted/<student>/<assignment>``) may be graded: None, or the refusal.

    Cheap checks only (no kernel, no gradebook write); the same in every scheduler.
    """
    refusal = student_id_refusal(student) or file_names_refusal(folder)
    for name in course.notebooks(assignment):  # every notebook of the assignment, in order
        if refusal is not None:
            break
        path = folder / f"{name}.ipynb"
        notebook, refusal = _read_notebook(path, assignment, limits)
        refusal = refusal or _cells_refusal(course, assignment, path, notebook, limits)
    return refusal


def student_id_refusal(student: str) -> Refusal | None:
    """Why a submission folder's name cannot be taken as a student id, or None when it can.

    The id goes into the gradebook, and from there into pages that nbgrader's formgrader prints
    without escaping (its per-student submissions page): an id holding markup would run in the
    instructor's browser. Such a folder is refused before any gradebook row or file is written.
    """
    if STUDENT_ID.fullmatch(student):
        return None
    return refused("not-a-student-id",
                   f"the submission folder {student!r} is not a student id (letters, digits and . _ @ + - only, "
                   "starting with a letter or digit); nothing was graded or recorded: rename the folder in "
                   "submitted/ to the student's id and grade again.")


def assignment_refusal(course: Course, assignment: str | None) -> Refusal | None:
    """Why a hand-in naming ``assignment`` has no assignment of ``course`` to be graded as, or None."""
    if assignment is not None and course.has_assignment(assignment):
        return None
    return refused("unknown-assignment",
                   NO_SUCH_ASSIGNMENT.format(assignment=repr(assignment), assignments=", ".join(course.assignments())))


def file_names_refusal(folder: Path) -> Refusal | None:
    """Why the names of ``folder``'s files cannot be carried (not UTF-8), or None."""
    undecodable = _names_not_utf8(folder)
    if not undecodable:
        return None
    return refused("file-name-not-utf8", NAMES_NOT_UTF8.format(names=", ".join(undecodable)))


def notebook_sizes_refusal(course: Course, assignment: str, folder: Path, limits: Limits) -> Refusal | None:
    """Why one of the assignment's notebooks in ``folder`` is too large to grade, or None; read
    with ``lstat`` only (nothing followed or opened), so that it runs before the quarantine moves
    oversized notebooks out (``grader.sandbox.submitted_links``, with the same limit)."""
    for name in course.notebooks(assignment):
        path = folder / f"{name}.ipynb"
        try:
            info = os.lstat(path)
        except OSError:
            continue  # missing: the gate says so
        if stat.S_ISREG(info.st_mode) and info.st_size > limits.max_bytes:
            return _too_large(path, info.st_size, limits)
    return None


def _too_large(path: Path, size: int, limits: Limits) -> Refusal:
    return refused("notebook-too-large", TOO_LARGE.format(notebook=path.name, size=f"{size / 1e6:.1f}",
                                                          limit=f"{limits.max_bytes / 1e6:.1f}"))


def notebook_refusal(path: Path, assignment: str | None = None, limits: Limits | None = None) -> Refusal | None:
    """Why the notebook at ``path`` cannot be graded (missing, over ``limits.max_bytes``, not a
    readable valid notebook), or None."""
    return _read_notebook(path, assignment, limits)[1]


def _read_notebook(path: Path, assignment: str | None, limits: Limits | None):
    """(the notebook, None) when it can be graded, else (None, the refusal): read once."""
    if not path.exists():
        if assignment is None:
            return None, refused("notebook-missing", NO_NOTEBOOK.format(notebook=path.name))
        others = sorted(readable(p.name) for p in path.parent.glob("*.ipynb")) if path.parent.is_dir() else []
        said = (MISSING_BESIDE if others else MISSING).format(notebook=path.name, notebooks=", ".join(others),
                                                              assignment=assignment)
        return None, refused("notebook-missing", said)
    size = path.stat().st_size
    if limits is not None and size > limits.max_bytes:
        return None, _too_large(path, size, limits)
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for unreadable files
        # A JSON problem is told in words: nbformat's message quotes the file's first bytes.
        problem = _json_problem(path) or f"{type(exc).__name__}: {str(exc)[:200]}"
        return None, refused("notebook-unreadable", UNREADABLE.format(notebook=path.name, problem=problem))
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        return None, refused("notebook-unreadable", INVALID.format(notebook=path.name, problem=exc.message[:200]))
    return notebook, None


def _cells_refusal(course: Course, assignment: str, path: Path, notebook, limits: Limits) -> Refusal | None:
    if len(notebook.cells) > limits.max_cells:
        return refused("too-many-cells", TOO_MANY_CELLS.format(notebook=path.name, cells=len(notebook.cells),
                                                               limit=limits.max_cells))
    other = _other_assignment(course, assignment, notebook)
    if other is not None:
        return refused("another-assignment", ANOTHER_ASSIGNMENT.format(notebook=path.name, other=other,
                                                                       assignment=assignment))
    return None


def _json_problem(path: Path) -> str | None:
    """Why a file is not a JSON object, in words (never quoting the file); None when it is one."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return NOT_UTF8_TEXT.format(byte=exc.start)
    except OSError as exc:
        return CANNOT_BE_READ.format(error=exc.strerror)
    if not text.strip():
        return EMPTY_FILE
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            return CUT_OFF.format(lines=exc.lineno)
        return NOT_JSON.format(line=exc.lineno, column=exc.colno, error=exc.msg.lower())
    return None if isinstance(value, dict) else NO_NOTEBOOK_IN_JSON


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


@lru_cache(maxsize=64)
def _released_grade_ids(path: str, mtime: float) -> frozenset[str]:
    """The grade ids of the released notebook at ``path`` (read again when its ``mtime`` changes)."""
    return frozenset(_grade_ids(nbformat.read(path, 4)))


def _other_assignment(course: Course, assignment: str, notebook) -> str | None:
    """The other assignment whose cells ``notebook`` mostly holds (shared ids such as ``setup``
    aside), or None when it holds more of ``assignment``'s cells than of any other's."""
    ids = _grade_ids(notebook)
    released = {a: course.release_notebook(a) for a in course.assignments()}
    shared = {a: len(ids & _released_grade_ids(str(path), path.stat().st_mtime))
              for a, path in released.items() if path.exists()}
    best = max(shared, key=shared.get, default=assignment)
    return best if best != assignment and shared[best] > shared.get(assignment, 0) else None
