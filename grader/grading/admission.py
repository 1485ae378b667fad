"""The admission gate: every rule that refuses a hand-in, and the one function every scheduler calls.

A refusal is typed: :class:`Refusal` carries a ``code`` (a key of :data:`CODES`), the sentence its
author reads and the line the instructor reads. The service's journal, the ungradable record and
the class report keep the code; nothing branches on the words.

Two groups of rules, told apart by :attr:`RefusalCode.applies_in`:

- ``every scheduler`` (``grader autograde``, Dask, ``grader watch``): :func:`admit`, called by
  ``grader.grading.grade_one.grade_one`` before anything of the submission runs — the student id,
  file names, the notebook's presence, size, readability, cell count and assignment;
- ``service``: what only an exchange's ``inbound/`` can hold (links, foreign files, a reused
  secret, a flood), decided while the service reads the folder (``grader.service.inbound``,
  ``grader.service.watch``) with the codes below, before anything is copied.

``docs/instructor/refusals.md`` is the table of these codes; a test keeps it equal to
:data:`CODES`.
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nbformat

from grader.course import Course, load_config
from grader.grading.readable_text import readable

EVERY_SCHEDULER = "every scheduler"
SERVICE = "service"
GRADING = "grading"


@dataclass(frozen=True)
class RefusalCode:
    """One kind of refusal: where it is decided and what its author is told to do."""

    code: str
    applies_in: str  # EVERY_SCHEDULER, SERVICE or GRADING
    meaning: str     # the instructor's one-line summary (the docs table's)
    student_summary: str = ""  # what it means for its author, a message of the language catalogue


_CODES = (
    # decided by admit(), in every scheduler
    RefusalCode("not-a-student-id", EVERY_SCHEDULER, "the submission folder's name is not a student id",
                "The submission folder's name is not a student id, so nothing was graded."),
    RefusalCode("file-name-not-utf8", EVERY_SCHEDULER, "a file of the hand-in has a name that is not UTF-8",
                "Your hand-in holds a file whose name the grader cannot read. Rename or remove it and hand in again."),
    RefusalCode("notebook-missing", EVERY_SCHEDULER, "the assignment's notebook is not in the hand-in",
                "The assignment's notebook is not in your hand-in. Hand in the folder you fetched, with its notebook in it."),
    RefusalCode("notebook-too-large", EVERY_SCHEDULER, "the notebook is larger than `max_notebook_megabytes`",
                "Your notebook is larger than this course grades. Clear the outputs, save and hand in again."),
    RefusalCode("notebook-unreadable", EVERY_SCHEDULER, "the notebook is not JSON, not a notebook, or not valid",
                "Your notebook could not be read as a notebook. Hand in the file Jupyter saved."),
    RefusalCode("too-many-cells", EVERY_SCHEDULER, "the notebook has more cells than `max_cells`",
                "Your notebook has more cells than this course grades. Start again from the released notebook."),
    RefusalCode("another-assignment", EVERY_SCHEDULER, "the notebook holds another assignment's cells",
                "Your notebook holds the cells of another assignment. Put this assignment's work in its own notebook."),
    # decided while the service reads inbound/
    RefusalCode("not-a-folder", SERVICE, "the inbound entry is a link or a file, not a folder",
                "What was handed in is not a folder. Hand in with the Submit button."),
    RefusalCode("not-a-handin-name", SERVICE, "the entry's name is not nbgrader's <student>+<assignment>+<timestamp>",
                "The hand-in folder is not named as nbgrader names one. Hand in with the Submit button."),
    RefusalCode("unknown-assignment", SERVICE, "the name's assignment is not one of the course's",
                "The hand-in names an assignment this course does not have."),
    RefusalCode("not-a-student-account", SERVICE, "the folder belongs to root, to no account, or to a non-student",
                "The hand-in was not made from a student's account."),
    RefusalCode("names-another-student", SERVICE, "the folder names a student other than the account that made it",
                "The hand-in names another student. Hand in your own work from your own account."),
    RefusalCode("incomplete-handin", SERVICE, "no submission secret appeared within `incomplete_handin_seconds`",
                "The hand-in was never finished (nbgrader's submission secret did not appear). Hand in again with the Submit button."),
    RefusalCode("entry-unreadable", SERVICE, "the entry could not be read (an error of the file system)",
                "The hand-in folder could not be read. Hand in again with the Submit button."),
    RefusalCode("flooded", SERVICE, "the account made more entries at once than `max_inbound_entries_per_pass`",
                "Your account made too many hand-ins at once; they were not read."),
    RefusalCode("archive-full", SERVICE, "the account's archived hand-ins reach `max_archive_megabytes_per_account`",
                "Your earlier hand-ins fill the space this course keeps for you. Ask the instructor."),
    RefusalCode("secret-reused", SERVICE, "the submission secret is another hand-in's",
                "The hand-in reuses the submission secret of another hand-in."),
    RefusalCode("special-file", SERVICE, "the hand-in holds a link, FIFO, socket or device",
                "Your hand-in holds a link or a special file. Hand in only ordinary files."),
    RefusalCode("foreign-file", SERVICE, "a file of the hand-in belongs to another account",
                "Your hand-in holds a file of another account. Hand in only your own files."),
    RefusalCode("owner-changed", SERVICE, "the folder changed owner while it was read",
                "The hand-in folder changed owner while it was read. Hand in again with the Submit button."),
    RefusalCode("too-many-files", SERVICE, "more files and folders than `max_handin_files`",
                "Your hand-in holds more files than this course accepts. Remove what the assignment does not need."),
    RefusalCode("nested-too-deep", SERVICE, "folders nested deeper than `max_handin_depth`",
                "Your hand-in has folders nested deeper than this course accepts."),
    RefusalCode("handin-too-large", SERVICE, "more bytes in all than `max_handin_megabytes`",
                "Your hand-in is larger than this course accepts. Remove large files and clear the outputs."),
    RefusalCode("too-many-notebooks", SERVICE, "more top-level notebooks than `max_handin_notebooks`",
                "Your hand-in holds more notebooks than this course accepts."),
    RefusalCode("changed-while-read", SERVICE, "a file changed, grew or became a link while it was copied",
                "A file of your hand-in changed while it was read. Hand in again, without editing the folder meanwhile."),
    RefusalCode("no-secret", SERVICE, "no submission_secret.txt written by nbgrader submit",
                "The hand-in has no submission secret written by nbgrader. Hand in with the Submit button."),
    RefusalCode("bad-secret", SERVICE, "a submission_secret.txt that nbgrader submit did not write",
                "The hand-in's submission secret was not written by nbgrader. Hand in with the Submit button."),
    # decided while grading an admitted hand-in
    RefusalCode("grading-failed", GRADING, "nbgrader could not grade the admitted notebook (its error is kept)",
                "The grader could not grade your notebook; the reason is below."),
    RefusalCode("worker-died", GRADING, "the grading process or Dask worker died (the run exits 1; grade again)",
                "The grading process stopped while it graded your notebook. It will be graded again."),
    RefusalCode("feedback-failed", GRADING, "the feedback page could not be made",
                "Your notebook was graded, but its feedback page could not be made. The instructor has been told."),
    RefusalCode("service-fault", GRADING, "the service failed `max_grading_attempts` times for a reason not the student's",
                "The grading service could not handle your hand-in. The instructor has been told."),
)
CODES: dict[str, RefusalCode] = {c.code: c for c in _CODES}


@dataclass(frozen=True)
class Refusal:
    """Why a hand-in is not graded: ``code`` (a key of :data:`CODES`), the sentence its author reads
    (``student_text``: what is wrong and what to do) and the instructor's line (``instructor_text``)."""

    code: str
    student_text: str
    instructor_text: str = ""

    def __post_init__(self):
        if self.code not in CODES:
            raise ValueError(f"unknown refusal code {self.code!r}; the codes are listed in grader.grading.admission.CODES")
        if not self.instructor_text:
            object.__setattr__(self, "instructor_text", f"{self.code}: {self.student_text}")

    def __str__(self) -> str:
        return self.student_text

    def as_record(self) -> str:
        """The text a refusal is kept as on disk: ``code: <code>`` on the first line, then the reason."""
        return f"{CODE_LINE}{self.code}\n{self.student_text.strip()}\n"


CODE_LINE = "code: "


def read_record(text: str) -> tuple[str | None, str]:
    """(code, reason) of a text written by :meth:`Refusal.as_record`; the code is None when the
    text names none or one not in :data:`CODES` (a record written before codes existed)."""
    text = text.strip()
    first, _, rest = text.partition("\n")
    if not first.startswith(CODE_LINE):
        return None, text
    code = first.removeprefix(CODE_LINE).strip()
    return (code if code in CODES else None), rest.strip()


def refused(code: str, student_text: str) -> Refusal:
    """A refusal whose instructor line is its code and the student's sentence."""
    return Refusal(code, student_text)


# ---- the limits -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Limits:
    """What a course refuses to grade: the notebook's size (bytes) and its number of cells."""

    max_bytes: int
    max_cells: int


def limits_from(policy) -> Limits:
    """The limits of a course's ``c.GradingService`` settings (``grader.service_policy.GradingService``):
    ``max_notebook_megabytes`` and ``max_cells``."""
    return Limits(int(policy.max_notebook_megabytes * 1e6), policy.max_cells)


def limits_of(course: Course) -> Limits:
    """The course's limits (the settings' declared defaults when the course sets none): the same
    limits in every scheduler."""
    from grader.service_policy import GradingService

    return limits_from(GradingService(config=load_config(course)))


_limits: dict[str, tuple[float, Limits]] = {}


def course_limits(course: Course) -> Limits:
    """:func:`limits_of`, read once per process (again when the course's config file changed)."""
    path = course.root / "nbgrader_config.py"
    mtime = path.stat().st_mtime if path.exists() else 0.0
    cached = _limits.get(str(path))
    if cached is None or cached[0] != mtime:
        cached = _limits[str(path)] = (mtime, limits_of(course))
    return cached[1]


# ---- what the refused author reads ----------------------------------------------------------------
# Messages of the engine's catalogue: a status page in another language says them by reading them
# back (``grader.language.text_patterns``); the values (file names, sizes, parsers' words) stay.
NO_SUCH_ASSIGNMENT = "the course has no assignment {assignment} (its assignments: {assignments})"
NAMES_NOT_UTF8 = ("the submission holds files whose names are not UTF-8 text ({names}); rename them (letters, "
                  "digits, - and _) or remove them from your assignment folder, and hand in again.")
TOO_LARGE = ("{notebook} is {size} MB, more than the {limit} MB this course grades; clear the outputs "
             "(Kernel > Restart & Clear Output), save and hand in again.")
NO_NOTEBOOK = "no notebook was submitted: {notebook} is missing from the submission folder."
MISSING = ("{notebook} is missing from your submission. Hand in the folder {assignment} fetched with Fetch "
           "(nbgrader fetch_assignment), with {notebook} in it.")
MISSING_BESIDE = ("{notebook} is missing from your submission; the submission holds {notebooks}. Hand in the "
                  "folder {assignment} fetched with Fetch (nbgrader fetch_assignment), with {notebook} in it.")
UNREADABLE = "{notebook} is not a readable notebook: {problem}; resubmit the file saved by Jupyter."
INVALID = "{notebook} is not a valid notebook ({problem}); resubmit the file saved by Jupyter."
TOO_MANY_CELLS = ("{notebook} has {cells} cells, more than the {limit} this course grades; start again from the "
                  "released notebook.")
ANOTHER_ASSIGNMENT = ("{notebook} holds the cells of assignment {other}, not {assignment}; put your {assignment} "
                      "work in {notebook} and hand in again.")
NOT_UTF8_TEXT = "the file is not UTF-8 text (byte {byte} is not), so Jupyter did not save it"
CANNOT_BE_READ = "the file cannot be read ({error})"
EMPTY_FILE = "the file is empty"
CUT_OFF = ("the file stops in the middle of the notebook (after {lines} lines), as a file cut off while it was "
           "saved or copied does")
NOT_JSON = "the file is not valid JSON from line {line}, column {column} on ({error})"
NO_NOTEBOOK_IN_JSON = "the file is JSON but holds no notebook"
MOVED_OUT = "{reason} Moved out of the submission folder: {entries}."
# ... and by the grading service, while it reads inbound/ (grader.service) or after grading
NAME_NOT_UTF8 = "its name is not UTF-8 text"
NOT_A_HANDIN_NAME = "its name is not <student>+<assignment>+<timestamp>+<random>, as nbgrader submit names a hand-in"
NOT_A_DATE = "the timestamp part of its name ({timestamp}) is not a date"
NOT_A_FOLDER = "it is {entry}, not a hand-in folder"
NAMES_NO_STUDENT_ID = "the hand-in's name gives {student} as its student, which is not a student id"
ROOTS_FOLDER = "the folder belongs to root, not to a student's account"
NO_ACCOUNT = "the folder belongs to {owner}, which has no account"
NOT_A_STUDENTS_ACCOUNT = "the folder belongs to the account {owner}, which is not a student's"
NAMES_ANOTHER_STUDENT = ("this hand-in names student {student} but was handed in by the account {owner}; hand in "
                         "your own work as yourself (nbgrader submit without --student).")
OWNER_CHANGED = "the hand-in folder changed owner while it was read"
LINK_NOT_FOLDER = "{path} is not a folder (a link or special file)"
SPECIAL_FILE = ("{path} is a {special}; hand in only the files of your assignment folder (nbgrader submit copies "
                "them)")
FOREIGN_FILE = "{path} belongs to the account {account}, not to you; hand in only your own files"
TOO_MANY_FILES = "the hand-in holds more than {limit} files and folders; hand in only your assignment folder"
NESTED_TOO_DEEP = "the hand-in has folders nested more than {limit} deep; hand in only your assignment folder"
HANDIN_TOO_LARGE = ("the hand-in holds more than {limit} MB; clear the outputs of your notebooks and remove large "
                    "files")
TOO_MANY_NOTEBOOKS = "the hand-in holds more than {limit} notebooks; hand in only your assignment folder"
CHANGED_WHILE_READ = "{path} changed while it was read"
BECAME_A_LINK = "{path} became a link while it was read"
GREW_WHILE_READ = "{path} grew while it was read, past the hand-in's size budget"
NO_SECRET = "the hand-in has no {file} written by nbgrader submit; hand in with Submit (nbgrader submit)"
BAD_SECRET = "the hand-in's {file} is not one nbgrader submit wrote; hand in with Submit (nbgrader submit)"
NEVER_FINISHED = ("it still had no {file} {seconds} s after it appeared, so nbgrader submit did not write it; hand "
                  "in with Submit (nbgrader submit)")
FLOODED_TEXT = "its owner made more new entries in inbound/ at once than the course allows"
ENTRY_UNREADABLE = "it could not be read ({error})"
SECRET_REUSED = "its submission secret is the one of another hand-in"
ARCHIVE_FULL = ("your earlier hand-ins already take {used} MB of the course's archive, its limit per student "
                "({limit} MB); this one was not kept")
FEEDBACK_FAILED = "the feedback page could not be generated; the instructor has been told"
#: Every message above (each translated in every language's catalogue: tested).
REFUSAL_MESSAGES = (NO_SUCH_ASSIGNMENT, NAMES_NOT_UTF8, TOO_LARGE, NO_NOTEBOOK, MISSING, MISSING_BESIDE, UNREADABLE,
                    INVALID, TOO_MANY_CELLS, ANOTHER_ASSIGNMENT, NOT_UTF8_TEXT, CANNOT_BE_READ, EMPTY_FILE, CUT_OFF,
                    NOT_JSON, NO_NOTEBOOK_IN_JSON, MOVED_OUT, NAME_NOT_UTF8, NOT_A_HANDIN_NAME, NOT_A_DATE, NOT_A_FOLDER,
                    NAMES_NO_STUDENT_ID, ROOTS_FOLDER, NO_ACCOUNT, NOT_A_STUDENTS_ACCOUNT, NAMES_ANOTHER_STUDENT,
                    OWNER_CHANGED, LINK_NOT_FOLDER, SPECIAL_FILE, FOREIGN_FILE, TOO_MANY_FILES, NESTED_TOO_DEEP,
                    HANDIN_TOO_LARGE, TOO_MANY_NOTEBOOKS, CHANGED_WHILE_READ, BECAME_A_LINK, GREW_WHILE_READ, NO_SECRET,
                    BAD_SECRET, NEVER_FINISHED, FLOODED_TEXT, ENTRY_UNREADABLE, SECRET_REUSED, ARCHIVE_FULL,
                    FEEDBACK_FAILED)


# ---- the gate -------------------------------------------------------------------------------------

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
