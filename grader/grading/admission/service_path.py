"""Rules of the service path: what the grading service refuses while it reads a folder exchange's
``inbound/``, which any account can write.

Each rule is a pure function of data the service already read (an ``os.stat_result`` taken
without following anything, a count, a name, the owner's account, the course's
:class:`~grader.grading.admission.limits.HandinBudget`) and returns the :class:`Refusal` or None.
The service keeps the reading (``grader.service.inbound``: every folder opened with
``O_NOFOLLOW`` relative to its parent, ``fstat`` on what was opened; ``grader.service.exchange``:
the owner's account; ``grader.service.watch``: the journal, the clock and the archive) and calls
these in the order below, which is the order the checks run in.
"""
from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable

from grader.course import Course
from grader.grading.admission.codes import Refusal, refused
from grader.grading.admission.gate import assignment_refusal, student_id_refusal
from grader.grading.admission.limits import MB, HandinBudget
from grader.grading.admission.messages import (
    ARCHIVE_FULL,
    BAD_SECRET,
    BECAME_A_LINK,
    CHANGED_WHILE_READ,
    ENTRY_UNREADABLE,
    FEEDBACK_FAILED,
    FLOODED_TEXT,
    FOREIGN_FILE,
    GREW_WHILE_READ,
    HANDIN_TOO_LARGE,
    LINK_NOT_FOLDER,
    NAME_NOT_UTF8,
    NAMES_ANOTHER_STUDENT,
    NAMES_NO_STUDENT_ID,
    NESTED_TOO_DEEP,
    NEVER_FINISHED,
    NO_ACCOUNT,
    NO_SECRET,
    NOT_A_DATE,
    NOT_A_FOLDER,
    NOT_A_HANDIN_NAME,
    NOT_A_STUDENTS_ACCOUNT,
    OWNER_CHANGED,
    ROOTS_FOLDER,
    SECRET_REUSED,
    SPECIAL_FILE,
    TOO_MANY_FILES,
    TOO_MANY_NOTEBOOKS,
)
from grader.sandbox.submitted_links import special_kind

SECRET_FILE = "submission_secret.txt"
SECRET = re.compile(r"[0-9a-f]{128}")  # what nbgrader's submit writes: secrets.token_hex(64)
MAX_SECRET_BYTES = 1024


# ---- listing inbound/: each entry on its own --------------------------------------------------------

def flood_refusal(new_entries: int, max_per_account: int | None) -> Refusal | None:
    """The refusal of every one of an account's ``new_entries`` (entries it made since the last
    look) when they are more than ``max_per_account`` (``max_inbound_entries_per_pass``; None: no
    limit); they are refused unread. None when they are not a flood."""
    if max_per_account is None or new_entries <= max_per_account:
        return None
    return refused("flooded", FLOODED_TEXT)


def entry_not_a_folder_refusal(info: os.stat_result) -> Refusal | None:
    """Why an entry of ``inbound/``, ``lstat``-ed (``info``), is no hand-in folder (a symbolic link
    or a file), or None when it is a folder."""
    if stat.S_ISDIR(info.st_mode):
        return None
    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
    return refused("not-a-folder", NOT_A_FOLDER.format(entry=kind))


def parse_handin_name(name: bytes) -> tuple[str, str, str] | Refusal:
    """(student, assignment, timestamp) of an entry named as nbgrader submit names a hand-in
    (``<student>+<assignment>+<timestamp>+<random>``, the timestamp a date), or the refusal saying
    why ``name`` is not one. A student id holding ``+`` is split as nbgrader splits it."""
    try:
        text = name.decode("utf-8")
    except UnicodeDecodeError:
        return refused("not-a-handin-name", NAME_NOT_UTF8)
    parts = text.rsplit("+", 3) if text.count("+") >= 3 else text.split("+")
    if len(parts) not in (3, 4) or not all(parts[:3]):
        return refused("not-a-handin-name", NOT_A_HANDIN_NAME)
    student, assignment, timestamp = parts[:3]
    from nbgrader.utils import parse_utc  # here: a process that only loads the course's config needs no nbgrader

    try:
        parse_utc(timestamp)
    except Exception:  # dateutil raises several kinds for text that is not a date
        return refused("not-a-handin-name", NOT_A_DATE.format(timestamp=repr(timestamp[:40])))
    return student, assignment, timestamp


def owner_refusal(student: str, uid: int, owner: str, check_owner: bool) -> Refusal | None:
    """Why a folder owned by ``uid`` (whose account is ``owner``, ``uid N`` when the uid has none)
    cannot be the hand-in of ``student``, the student its name gives; None when it can.
    ``check_owner`` is nbgrader's ``ExchangeCollect.check_owner`` (off: the owner need not be the
    named student)."""
    if student_id_refusal(student) is not None:  # the same code as grader autograde's, in the service's words
        return refused("not-a-student-id", NAMES_NO_STUDENT_ID.format(student=repr(student)))
    if uid == 0:
        return refused("not-a-student-account", ROOTS_FOLDER)
    if owner.startswith("uid "):
        return refused("not-a-student-account", NO_ACCOUNT.format(owner=owner))
    if owner != student and check_owner:
        return refused("names-another-student", NAMES_ANOTHER_STUDENT.format(student=student, owner=owner))
    return None


def handin_finished(secret_info: os.stat_result | None) -> bool:
    """Whether nbgrader submit has finished a hand-in folder, from the ``lstat`` of its
    ``submission_secret.txt`` (None: there is none): submit writes the secret last."""
    return secret_info is not None and stat.S_ISREG(secret_info.st_mode) and secret_info.st_size > 0


# ---- deciding what to do with a listed entry ---------------------------------------------------------

def never_finished_refusal(waited: float, incomplete_handin_seconds: float) -> Refusal | None:
    """The refusal of an unfinished hand-in folder first seen ``waited`` seconds ago once that is
    at least ``incomplete_handin_seconds`` (the course's setting); None while it may still finish."""
    if waited < incomplete_handin_seconds:
        return None
    return refused("incomplete-handin", NEVER_FINISHED.format(file=SECRET_FILE,
                                                              seconds=f"{incomplete_handin_seconds:g}"))


def not_a_students_account_refusal(owner: str, attributed: str | None) -> Refusal | None:
    """Why a folder whose account is ``owner`` is nobody's hand-in when it is attributed to no
    student (``attributed`` None: ``grader.service.attribution.owner_of``), else None."""
    if attributed is not None:
        return None
    return refused("not-a-student-account", NOT_A_STUDENTS_ACCOUNT.format(owner=owner))


def nameless_refusal(named_student: str | None) -> Refusal | None:
    """Why a folder whose name gives no student (``named_student`` None) is no hand-in, else None."""
    return None if named_student is not None else refused("not-a-handin-name", NOT_A_HANDIN_NAME)


def nobodys_handin_refusal(course: Course, listed: Refusal | None, assignment: str | None,
                           attributed: str | None, owner: str, named_student: str | None) -> Refusal | None:
    """Why a listed entry is nobody's hand-in, or None when it is the hand-in of ``attributed``.

    Takes what the listing found: ``listed`` (its refusal, or None), the ``assignment`` and
    ``named_student`` its name gives, its ``owner`` account, and the student it is attributed to.
    A folder named after a classmate (``names-another-student``) is still its maker's hand-in: it
    is recorded under its maker, refused with a page to them, so that refusal is not this one.
    """
    if listed is not None and listed.code == "names-another-student":
        listed = None
    return (listed or assignment_refusal(course, assignment) or not_a_students_account_refusal(owner, attributed)
            or nameless_refusal(named_student))


def archive_full_refusal(used_bytes: int, max_archive_megabytes: float) -> Refusal | None:
    """Why a new hand-in of an account is not kept when its archived hand-ins take ``used_bytes``,
    at least ``max_archive_megabytes`` (``max_archive_megabytes_per_account``); else None."""
    allowed = max_archive_megabytes * 1e6
    if used_bytes < allowed:
        return None
    return refused("archive-full", ARCHIVE_FULL.format(used=f"{used_bytes / 1e6:.1f}", limit=f"{allowed / 1e6:g}"))


def secret_reused_refusal(earlier_folder: bytes | None) -> Refusal | None:
    """Why a hand-in is refused when ``earlier_folder``, another inbound entry already recorded,
    has its submission secret (nbgrader names a feedback page after the secret); None when no
    entry has it."""
    return None if earlier_folder is None else refused("secret-reused", SECRET_REUSED)


def unreadable_entry(exc: BaseException) -> Refusal:
    """The refusal of an entry whose reading raised ``exc`` (an error of the file system, or
    anything else the entry made the service raise)."""
    return refused("entry-unreadable", ENTRY_UNREADABLE.format(error=f"{type(exc).__name__}: {exc}"))


# ---- reading one hand-in folder, before anything is copied -------------------------------------------

def owner_changed_refusal(listed_uid: int, opened: os.stat_result) -> Refusal | None:
    """Why a hand-in folder listed as owned by ``listed_uid`` is refused when the folder opened
    (``fstat``: ``opened``) has another owner; else None."""
    return None if opened.st_uid == listed_uid else refused("owner-changed", OWNER_CHANGED)


def opened_folder_refusal(exc: OSError, path: str) -> Refusal | None:
    """Why opening the folder ``path`` with ``O_NOFOLLOW | O_DIRECTORY`` failed with ``exc`` for a
    reason of the hand-in's (it is a link or not a folder); None for any other error."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return refused("special-file", LINK_NOT_FOLDER.format(path=path))
    return None


def special_file_refusal(info: os.stat_result, path: str) -> Refusal | None:
    """Why the entry ``path`` of a hand-in (``lstat``: ``info``) is refused when it is a link,
    FIFO, socket or device; None for a regular file or a folder."""
    if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
        return None
    return refused("special-file", SPECIAL_FILE.format(path=path, special=special_kind(info.st_mode)))


def foreign_file_refusal(info: os.stat_result, owner_uid: int, path: str,
                         account_of: Callable[[int], str]) -> Refusal | None:
    """Why the entry ``path`` (``lstat``: ``info``) of a hand-in folder owned by ``owner_uid`` is
    refused when another uid owns it (``account_of`` names that uid's account); else None."""
    if info.st_uid == owner_uid:
        return None
    return refused("foreign-file", FOREIGN_FILE.format(path=path, account=account_of(info.st_uid)))


def too_many_files_refusal(entries: int, budget: HandinBudget) -> Refusal | None:
    """Why a hand-in of ``entries`` files and folders (so far) is refused: more than
    ``budget.max_entries``; else None."""
    if entries <= budget.max_entries:
        return None
    return refused("too-many-files", TOO_MANY_FILES.format(limit=budget.max_entries))


def nested_too_deep_refusal(depth: int, budget: HandinBudget) -> Refusal | None:
    """Why a folder ``depth`` levels below the hand-in's own is refused: deeper than
    ``budget.max_depth``; else None."""
    if depth <= budget.max_depth:
        return None
    return refused("nested-too-deep", NESTED_TOO_DEEP.format(limit=budget.max_depth))


def handin_too_large_refusal(total_bytes: int, budget: HandinBudget) -> Refusal | None:
    """Why a hand-in whose files hold ``total_bytes`` (so far) is refused: more than
    ``budget.max_bytes``; else None."""
    if total_bytes <= budget.max_bytes:
        return None
    return refused("handin-too-large", HANDIN_TOO_LARGE.format(limit=f"{budget.max_bytes / MB:g}"))


def too_many_notebooks_refusal(notebooks: int, budget: HandinBudget) -> Refusal | None:
    """Why a hand-in holding ``notebooks`` notebooks at its top level (so far) is refused: more
    than ``budget.max_notebooks``; else None."""
    if notebooks <= budget.max_notebooks:
        return None
    return refused("too-many-notebooks", TOO_MANY_NOTEBOOKS.format(limit=budget.max_notebooks))


def folder_changed_refusal(listed: os.stat_result, opened: os.stat_result, path: str) -> Refusal | None:
    """Why the folder ``path`` is refused when the folder opened (``fstat``: ``opened``) is not
    the one listed (``lstat``: ``listed``): it was replaced meanwhile; else None."""
    if (opened.st_ino, opened.st_dev) == (listed.st_ino, listed.st_dev):
        return None
    return refused("changed-while-read", CHANGED_WHILE_READ.format(path=path))


# ---- copying the planned files ------------------------------------------------------------------------

def became_a_link_refusal(exc: OSError, path: str) -> Refusal | None:
    """Why opening the planned file ``path`` with ``O_NOFOLLOW`` failed with ``exc`` for a reason of
    the hand-in's (it became a link); None for any other error."""
    return refused("changed-while-read", BECAME_A_LINK.format(path=path)) if exc.errno == errno.ELOOP else None


def file_changed_refusal(opened: os.stat_result, owner_uid: int, planned: tuple[int, int],
                         path: str) -> Refusal | None:
    """Why the file ``path`` opened for copying (``fstat``: ``opened``) is refused when it is no
    longer the regular file of ``owner_uid`` that was planned (``planned``: its device and inode);
    else None."""
    if stat.S_ISREG(opened.st_mode) and opened.st_uid == owner_uid and (opened.st_dev, opened.st_ino) == planned:
        return None
    return refused("changed-while-read", CHANGED_WHILE_READ.format(path=path))


def grew_while_read_refusal(written: int, allowance: int, path: str) -> Refusal | None:
    """Why the file ``path`` is refused once ``written`` bytes of it were copied, more than the
    ``allowance`` the hand-in's byte budget left for it (it grew since it was planned); else None."""
    return refused("changed-while-read", GREW_WHILE_READ.format(path=path)) if written > allowance else None


# ---- the submission secret ----------------------------------------------------------------------------

def no_secret() -> Refusal:
    """The refusal of a hand-in without a ``submission_secret.txt`` nbgrader submit wrote."""
    return refused("no-secret", NO_SECRET.format(file=SECRET_FILE))


def secret_file_refusal(opened: os.stat_result, owner_uid: int) -> Refusal | None:
    """Why the secret file opened (``fstat``: ``opened``) is not one nbgrader submit wrote in a
    folder of ``owner_uid``: not a regular file of that uid (:func:`no_secret`); else None."""
    return None if stat.S_ISREG(opened.st_mode) and opened.st_uid == owner_uid else no_secret()


def secret_text(raw: bytes) -> str:
    """The submission secret ``raw`` (the secret file's bytes) holds, as the service keeps it."""
    return raw.decode("ascii", "replace").strip()


def bad_secret_refusal(raw: bytes) -> Refusal | None:
    """Why the secret file's bytes ``raw`` (up to ``MAX_SECRET_BYTES + 1`` of them) are not what
    nbgrader submit writes (128 lowercase hex digits, ``secrets.token_hex(64)``); else None."""
    if len(raw) > MAX_SECRET_BYTES or not SECRET.fullmatch(secret_text(raw)):
        return refused("bad-secret", BAD_SECRET.format(file=SECRET_FILE))
    return None


# ---- after grading, in the service ---------------------------------------------------------------------

def ungradable(code: str | None, reason: str | None) -> Refusal:
    """The refusal of a hand-in that was not graded, from its ``code`` and ``reason`` as grading
    (or a record of the service) gave them; ``grading-failed`` when it gave no code."""
    return refused(code or "grading-failed", reason or "")


def feedback_failed() -> Refusal:
    """The refusal of a graded hand-in whose feedback page could not be made."""
    return refused("feedback-failed", FEEDBACK_FAILED)
