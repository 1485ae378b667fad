"""What refuses a submission before anything of it runs: a student id nbgrader cannot use, an
unreadable notebook.

Each function returns the reason as one sentence a student can act on, or ``None``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat



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
