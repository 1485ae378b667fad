"""The instructor's drafts: source notebooks edited in the instructor's home, taken into root's course as data.

    home/<instructor>/drafts/<assignment>/<notebook>.ipynb    the instructor's; ``grader hub up``
                                                              puts the course's sources there

The course folder is root's (:mod:`grader.hub.course_access`), so the instructor edits a copy.
``grader hub release ASSIGNMENT...`` (run by root) takes each draft with :func:`take_draft`: the
bytes are read by the instructor's own account (root opens nothing of the instructor's, so a link
the instructor planted reaches only what that account may read), at most ``MAX_DRAFT_BYTES``, and
parsed and validated as a notebook: data, from which nbgrader generates the student version;
nothing of it runs as root. Nothing else of the drafts folder (a config, a module) is read.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import nbformat

from grader.course import Course

#: The largest draft taken, in bytes (a course notebook is well under 1 MB).
MAX_DRAFT_BYTES = 20 * 1024 * 1024
READ_SECONDS = 60


class DraftError(RuntimeError):
    """A draft cannot be taken; the message names the draft and what to do."""


def drafts_folder(home: Path) -> Path:
    """The instructor's drafts folder in their ``home``."""
    return Path(home) / "drafts"


def draft_notebook(course: Course, home: Path, assignment: str) -> Path:
    """The draft in ``home`` of ``course``'s source notebook of ``assignment``."""
    return drafts_folder(home) / assignment / course.source_notebook(assignment).name


def seed_drafts(course: Course, assignments: list[str], home: Path, instructor: str) -> None:
    """Copy each assignment's source notebook into the instructor's drafts, as the instructor's files."""
    entry = pwd.getpwnam(instructor)
    for assignment in assignments:
        draft = draft_notebook(course, home, assignment)
        draft.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(course.source_notebook(assignment), draft)
    for parent, folders, files in os.walk(drafts_folder(home)):
        for path in (Path(parent), *(Path(parent) / name for name in files)):
            os.lchown(path, entry.pw_uid, entry.pw_gid)


def read_as(account: str, path: Path, limit: int = MAX_DRAFT_BYTES) -> bytes:
    """The first ``limit`` + 1 bytes of ``path`` as ``account`` reads them (its uid, its group, no
    other group). DraftError naming the path when that account cannot read it."""
    entry = pwd.getpwnam(account)
    run = subprocess.run(["head", "-c", str(limit + 1), "--", str(path)], user=entry.pw_uid,
                         group=entry.pw_gid, extra_groups=[], capture_output=True, timeout=READ_SECONDS,
                         env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, cwd="/")
    if run.returncode != 0:
        raise DraftError(f"{account} cannot read the draft {path}: "
                         f"{run.stderr.decode(errors='replace').strip()}")
    return run.stdout


def take_draft(course: Course, assignment: str, home: Path, instructor: str) -> Path:
    """Put the instructor's draft of ``assignment`` in the course's ``source/``; the source's path.

    DraftError (the course's source unchanged) when the draft cannot be read by the instructor,
    is larger than ``MAX_DRAFT_BYTES`` or is not a valid notebook.
    """
    draft = draft_notebook(course, home, assignment)
    data = read_as(instructor, draft)
    if len(data) > MAX_DRAFT_BYTES:
        raise DraftError(f"the draft {draft} is larger than {MAX_DRAFT_BYTES // (1024 * 1024)} MB; "
                         "clear its outputs (a source notebook needs none) and release again")
    try:
        notebook = nbformat.reads(data.decode("utf-8"), as_version=4)
        nbformat.validate(notebook)
    except (UnicodeDecodeError, ValueError, nbformat.ValidationError) as exc:
        raise DraftError(f"the draft {draft} is not a valid notebook ({type(exc).__name__}: {exc}); "
                         "save it from Jupyter and release again") from None
    source = course.source_notebook(assignment)
    partial = course.state_dir / f"{assignment}.taking"  # root's alone, and never copied to release/
    nbformat.write(notebook, partial)
    os.replace(partial, source)
    return source
