"""Keep nbgrader from following or reading unbounded anything in a submission folder.

``nbgrader autograde`` copies every extra file of ``submitted/<student>/<assignment>/`` into the
working folder with ``shutil.copy``, as the grader's user, following symbolic links, before any
sandbox exists: a link ``data.bin -> /dev/zero`` is copied for ever, a FIFO blocks the copy, a link
``gradebook.db -> <course>/gradebook.db`` hands the kernel a real copy of the gradebook. It also
reads ``timestamp.txt`` and every notebook whole.

- :func:`quarantine_submission` runs BEFORE nbgrader copies anything (``grader autograde`` calls it
  first; plain ``nbgrader autograde`` runs it as the course's ``Autograde.pre_convert_hook``, see
  :func:`make_pre_convert_hook`). It moves out of the submission folder, into the grading process's
  private ``.grader/quarantine/<assignment>/<student>/``, every entry that is not a regular file or a
  folder (symbolic links, FIFOs, sockets, devices), a ``timestamp.txt`` larger than
  ``MAX_TIMESTAMP_BYTES`` and a notebook larger than the course grades (the admission gate's limit,
  ``c.GradingService.max_notebook_megabytes``). Nothing is opened or followed: entries are only
  ``lstat``-ed and renamed. The instructor finds them there.
- :func:`remove_copies_of_links` stays as a second line: it deletes from the working folder the
  copy of any such entry that appeared after the check.
"""
from __future__ import annotations

import logging
import os
import shutil
import stat
from pathlib import Path
from typing import Callable

from grader.course_folders import SUBMITTED

MAX_TIMESTAMP_BYTES = 4096  # nbgrader's timestamp is one line of ~30 characters

log = logging.getLogger(__name__)


def special_kind(mode: int) -> str | None:
    """What an entry is when it must not stay in a submission folder, else None."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, name in ((stat.S_ISLNK, "symbolic link"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


def unsafe_entries(submission_dir: Path, max_notebook_bytes: int) -> list[tuple[str, str]]:
    """(relative path, why) of every entry of ``submission_dir`` nbgrader must not copy or read
    (``max_notebook_bytes``: the largest notebook the course grades).

    Walks without following links; a link to a folder is reported, not entered.
    """
    submission_dir = Path(submission_dir)
    found: list[tuple[str, str]] = []
    stack = [submission_dir]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            info = entry.stat(follow_symlinks=False)
            relative = os.path.relpath(entry.path, submission_dir)
            kind = special_kind(info.st_mode)
            if kind is not None:
                found.append((relative, f"a {kind}"))
            elif stat.S_ISDIR(info.st_mode):
                stack.append(Path(entry.path))
            elif relative == "timestamp.txt" and info.st_size > MAX_TIMESTAMP_BYTES:
                found.append((relative, f"{info.st_size} bytes, more than the {MAX_TIMESTAMP_BYTES} "
                                        "a submission timestamp may have"))
            elif relative.endswith(".ipynb") and info.st_size > max_notebook_bytes:
                found.append((relative, f"{info.st_size} bytes, more than the {max_notebook_bytes} "
                                        "a notebook may have"))
    return found


def quarantine_submission(submission_dir: Path, quarantine_dir: Path, max_notebook_bytes: int) -> list[str]:
    """Move every unsafe entry of ``submission_dir`` to ``quarantine_dir`` (same relative path;
    ``max_notebook_bytes``: as for :func:`unsafe_entries`).

    Returns one line per moved entry (``"<path>: <why>"``); an empty list when the folder is clean.
    Entries are renamed, never opened; across filesystems a link or special file is deleted
    instead (an oversized regular file is then left in place and reported as such).
    """
    moved = []
    for relative, why in unsafe_entries(submission_dir, max_notebook_bytes):
        source = Path(submission_dir, relative)
        target = Path(quarantine_dir, relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        suffix = 1
        while os.path.lexists(target):
            target = Path(quarantine_dir, f"{relative}.{suffix}")
            suffix += 1
        try:
            os.rename(source, target)
        except OSError:
            if stat.S_ISREG(os.lstat(source).st_mode):
                log.error("Could not move %s out of the submission folder; it was left there", source)
                continue
            os.unlink(source)
        moved.append(f"{relative}: {why}")
        log.warning("Moved %s out of the submission folder (%s): nbgrader would have followed or "
                    "read it; it is kept in %s", relative, why, target)
    return moved


def quarantine_folder(course_root: Path, student: str, assignment: str) -> Path:
    """Where the unsafe entries of one submission are kept (inside the private ``.grader/``)."""
    from grader.course import Course
    from grader.state_folders import QUARANTINE

    return Course(Path(course_root)).state_dir / QUARANTINE / assignment / student


def make_pre_convert_hook(course_root: str | os.PathLike, max_notebook_bytes: Callable[[], int]):
    """An ``Autograde.pre_convert_hook`` that quarantines each submission before nbgrader copies it.

    nbgrader calls the hook once per submission with the paths of its notebooks, after deciding to
    grade it and before copying any of its files. ``max_notebook_bytes()``: the largest notebook
    the course grades, asked when the hook runs (the course's settings are read by then).
    """
    submitted_root = os.path.realpath(os.path.join(course_root, SUBMITTED))

    def quarantine_before_copy(assignment=None, student=None, notebooks=(), **_):
        for folder in sorted({os.path.dirname(os.path.abspath(path)) for path in notebooks or ()}):
            real = os.path.realpath(folder)
            if os.path.dirname(os.path.dirname(real)) != submitted_root:
                log.warning("Not checking %s: it is not a submission folder of this course", folder)
                continue
            student_id, assignment_id = Path(real).parent.name, Path(real).name
            quarantine_submission(Path(real), quarantine_folder(course_root, student_id, assignment_id),
                                  max_notebook_bytes())

    quarantine_before_copy.quarantines_submissions = True  # an app that quarantined already leaves it out
    return quarantine_before_copy


def remove_copies_of_links(submitted_dir: Path, working_dir: Path) -> list[str]:
    """Delete from ``working_dir`` the copy of every link or special file of ``submitted_dir``.

    Returns the submission-relative paths that were removed (empty when there were none).
    """
    submitted_dir, working_dir = Path(submitted_dir), Path(working_dir)
    if not submitted_dir.is_dir():
        return []
    removed = []
    for dirpath, dirnames, filenames in os.walk(submitted_dir):
        for name in dirnames + filenames:
            entry = Path(dirpath, name)
            if not entry.is_symlink() and (entry.is_file() or entry.is_dir()):
                continue
            relative = entry.relative_to(submitted_dir)
            copy = working_dir / relative
            if copy.is_dir() and not copy.is_symlink():
                shutil.rmtree(copy)
            elif copy.exists() or copy.is_symlink():
                copy.unlink()
            removed.append(str(relative))
    return removed
