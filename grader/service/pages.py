"""Feedback pages the service writes itself, for a submission that has no graded feedback (yet).

Each page replaces nbgrader's feedback page of one submission: it goes where
``nbgrader generate_feedback`` would write it (``feedback/<student>/<assignment>/<notebook>.html``,
beside that submission's ``timestamp.txt`` and ``submission_secret.txt``), so nbgrader's own
``release_feedback`` / ``fetch_feedback`` deliver it. A later page for the same submission (the
real feedback once it is graded) overwrites it in the exchange.
"""
from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

from grader.course import Course
from grader.course_folders import FEEDBACK
from grader.grading.readable_text import is_page_name
from grader.grading.status_page import refusal_detail, status_page
from grader.language.catalogue import SOURCE_LANGUAGE, translate
from grader.service.inbound import SECRET_FILE, TIMESTAMP_FILE, AnswerKey


def utc(epoch_seconds: float) -> str:
    """``2026-12-01 09:30 UTC``: how pages and log lines name a moment."""
    return datetime.fromtimestamp(epoch_seconds, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def status_page_of(student: str, assignment: str, timestamp: str, headline: str, detail: str, todo: str,
                   waiting: bool = False, language: str = SOURCE_LANGUAGE, values: dict | None = None,
                   code: str | None = None) -> str:
    """The HTML of a status page for one hand-in in ``language`` (``grader.grading.status_page``;
    every value escaped).

    ``detail`` is a message of the language catalogue whose ``{name}`` parts ``values`` fill; with
    ``code`` (``grader.grading.admission.CODES``) it is instead a refusal's recorded reason, shown
    under its code's sentence in ``language``.
    """
    if code is not None:
        shown, recorded = refusal_detail(code, detail, language)
    else:
        shown, recorded = translate(detail, language, **(values or {})), ""
    return status_page(assignment, headline, shown, todo, student=student, handed_in=timestamp, waiting=waiting,
                       language=language, recorded_reason=recorded)


def place(course: Course, student: str, assignment: str, archive: Path, page: str,
          root: Path | None = None) -> Path:
    """Write ``page`` as the feedback of the archived submission ``archive``; returns its path.

    The page goes to ``<root>/feedback/<student>/<assignment>/``, the course folder's unless
    another root is named (a staging folder, for a page that must not replace the student's own
    feedback in the course folder).

    nbgrader finds a student's feedback by the names of the notebooks they handed in, so the page
    is also written under the name of every other notebook in the hand-in (a misnamed notebook
    still gets the page that says what is wrong with it).
    """
    folder = course.feedback_folder(student, assignment, root)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name in sorted(page_names(course, assignment, archive)):
        path = folder / f"{name}.html"
        path.write_text(page, encoding="utf-8")
        path.chmod(0o644)  # nbgrader's release copies the mode: students read it through the exchange
    keep_only_recorded(course, folder, assignment, archive)
    return folder / f"{course.notebooks(assignment)[0]}.html"


def page_names(course: Course, assignment: str, archive: Path) -> set[str]:
    """The notebook names (without ``.ipynb``) a page of the archived hand-in ``archive`` goes
    under: the assignment's notebooks and every notebook of the hand-in whose name can name a page
    (a name that is not printable UTF-8 cannot: nbgrader's release would fail on it)."""
    handed_in = {os.fsdecode(name.removesuffix(b".ipynb")) for name in os.listdir(os.fsencode(archive))
                 if name.endswith(b".ipynb")}
    return set(course.notebooks(assignment)) | {name for name in handed_in if is_page_name(name)}


def keep_only_recorded(course: Course, folder: Path, assignment: str, archive: Path) -> None:
    """Make the feedback folder ``folder`` hold only what the grader wrote, ready for nbgrader's
    ``release_feedback``: the HTML pages of :func:`page_names`, and the hand-in's timestamp and
    submission secret as the service recorded them in its archive (``archive``: the archived
    hand-in, which no kernel can reach). Anything else there (what a student's kernel left in its
    working folder and nbgrader copied along, a secret it removed or rewrote) is replaced or removed.
    """
    pages = {f"{name}.html" for name in page_names(course, assignment, archive)}
    for entry in os.scandir(folder):
        if entry.name in pages and entry.is_file(follow_symlinks=False):
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    write_recorded_files(folder, archive)


def write_recorded_files(folder: Path, archive: Path) -> None:
    """Write the hand-in's ``timestamp.txt`` and ``submission_secret.txt`` into ``folder`` from the
    archived hand-in ``archive`` (the service's own record), replacing whatever is there."""
    for name in (TIMESTAMP_FILE, SECRET_FILE):
        target = folder / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.is_symlink():
            target.unlink()
        shutil.copyfile(archive / name, target)


def place_for_author(staging: Path, author: str, label: str, key: AnswerKey, page: str, timestamp: str) -> Path:
    """Write ``page`` as the feedback of a refused folder into ``staging`` (a course-like root that
    ``release_feedback`` reads); returns the folder.

    The page goes to ``<staging>/feedback/<author>/<label>/`` under the name of every notebook the
    folder held (nbgrader's ``fetch_feedback`` finds a page by the secret and the notebook names
    of the author's own copy of the hand-in), beside the secret verbatim. ``label`` names the
    folder only (the assignment the folder names, or a stand-in): the page is found by the secret.
    """
    folder = staging / FEEDBACK / author / label
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / TIMESTAMP_FILE).write_text(timestamp)
    (folder / SECRET_FILE).write_text(key.secret)
    for name in key.notebooks:
        path = folder / f"{name}.html"
        path.write_text(page, encoding="utf-8")
        path.chmod(0o644)  # nbgrader's release copies the mode: students read it through the exchange
    return folder
