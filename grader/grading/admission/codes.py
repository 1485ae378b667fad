"""The refusal codes: :data:`CODES` (where each is decided, what it means, what its author is told)
and the typed :class:`Refusal` every rule of the admission gate returns."""
from __future__ import annotations

from dataclasses import dataclass

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

