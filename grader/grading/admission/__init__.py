"""The admission gate: where a hand-in is refused, and why. Every refusal code, every sentence a
refused author reads and every rule that refuses a hand-in before it is graded live in this
package (what happens while grading, ``grading-failed``, ``worker-died`` and ``service-fault``, is
told by the code that grades).

A refusal is typed: :class:`Refusal` carries a ``code`` (a key of :data:`CODES`), the sentence its
author reads and the line the instructor reads. The service's journal, the ungradable record and
the class report keep the code; nothing branches on the words.

- :mod:`~grader.grading.admission.codes`: :data:`CODES` (each code, where it is decided, its
  meaning and what its author is told) and :class:`Refusal`;
- :mod:`~grader.grading.admission.messages`: every sentence (:data:`REFUSAL_MESSAGES`, each a
  message of the language catalogue);
- :mod:`~grader.grading.admission.limits`: the course's limits (:class:`Limits` of a notebook,
  :class:`HandinBudget` of a hand-in folder), from its ``c.GradingService`` settings;
- :mod:`~grader.grading.admission.gate`: the rules of **every scheduler** (``grader autograde``,
  Dask, ``grader watch``): :func:`admit`, called by ``grader.grading.grade_one.grade_one`` before
  anything of the submission runs: the student id, file names, the notebook's presence, size,
  readability, cell count and assignment;
- :mod:`~grader.grading.admission.service_path`: the rules of the **service path**: what only an
  exchange's ``inbound/`` can hold (links and special files, foreign files, too many, too deep or
  too large hand-ins, a missing or forged secret, a name that is no hand-in's, an owner that is
  not the named student, a flood, an unfinished hand-in, a full archive, a reused secret), each a
  pure function of what the service already read. ``grader.service.inbound``,
  ``grader.service.exchange`` and ``grader.service.watch`` do the reading (file descriptors,
  ``O_NOFOLLOW``, the journal) and call them; none of them makes a refusal of its own.

Every name is imported from ``grader.grading.admission`` itself; its modules are its sections.
``docs/instructor/refusals.md`` is the table of the codes and of the function that decides each; a
test keeps it equal to :data:`CODES`.
"""
from __future__ import annotations

from grader.grading.admission.codes import (
    CODE_LINE,
    CODES,
    EVERY_SCHEDULER,
    GRADING,
    SERVICE,
    Refusal,
    RefusalCode,
    read_record,
    refused,
)
from grader.grading.admission.gate import (
    STUDENT_ID,
    admit,
    assignment_refusal,
    file_names_refusal,
    notebook_refusal,
    notebook_sizes_refusal,
    student_id_refusal,
)
from grader.grading.admission.limits import (
    MB,
    HandinBudget,
    Limits,
    course_limits,
    handin_budget,
    limits_from,
    limits_of,
)
from grader.grading.admission.messages import (
    ANOTHER_ASSIGNMENT,
    ARCHIVE_FULL,
    BAD_SECRET,
    BECAME_A_LINK,
    CANNOT_BE_READ,
    CHANGED_WHILE_READ,
    CUT_OFF,
    EMPTY_FILE,
    ENTRY_UNREADABLE,
    FEEDBACK_FAILED,
    FLOODED_TEXT,
    FOREIGN_FILE,
    GREW_WHILE_READ,
    HANDIN_TOO_LARGE,
    INVALID,
    LINK_NOT_FOLDER,
    MISSING,
    MISSING_BESIDE,
    MOVED_OUT,
    NAME_NOT_UTF8,
    NAMES_ANOTHER_STUDENT,
    NAMES_NO_STUDENT_ID,
    NAMES_NOT_UTF8,
    NESTED_TOO_DEEP,
    NEVER_FINISHED,
    NO_ACCOUNT,
    NO_NOTEBOOK,
    NO_NOTEBOOK_IN_JSON,
    NO_SECRET,
    NO_SUCH_ASSIGNMENT,
    NOT_A_DATE,
    NOT_A_FOLDER,
    NOT_A_HANDIN_NAME,
    NOT_A_STUDENTS_ACCOUNT,
    NOT_JSON,
    NOT_UTF8_TEXT,
    OWNER_CHANGED,
    REFUSAL_MESSAGES,
    ROOTS_FOLDER,
    SECRET_REUSED,
    SPECIAL_FILE,
    TOO_LARGE,
    TOO_MANY_CELLS,
    TOO_MANY_FILES,
    TOO_MANY_NOTEBOOKS,
    UNREADABLE,
)
from grader.grading.admission.service_path import (
    MAX_SECRET_BYTES,
    SECRET,
    SECRET_FILE,
    archive_full_refusal,
    bad_secret_refusal,
    became_a_link_refusal,
    entry_not_a_folder_refusal,
    feedback_failed,
    file_changed_refusal,
    flood_refusal,
    folder_changed_refusal,
    foreign_file_refusal,
    grew_while_read_refusal,
    handin_finished,
    handin_too_large_refusal,
    nameless_refusal,
    nested_too_deep_refusal,
    never_finished_refusal,
    no_secret,
    nobodys_handin_refusal,
    not_a_students_account_refusal,
    opened_folder_refusal,
    owner_changed_refusal,
    owner_refusal,
    parse_handin_name,
    secret_file_refusal,
    secret_reused_refusal,
    secret_text,
    special_file_refusal,
    too_many_files_refusal,
    too_many_notebooks_refusal,
    ungradable,
    unreadable_entry,
)

__all__ = [
    "EVERY_SCHEDULER", "SERVICE", "GRADING", "RefusalCode", "CODES", "Refusal", "CODE_LINE", "read_record",
    "refused", "NO_SUCH_ASSIGNMENT", "NAMES_NOT_UTF8", "TOO_LARGE", "NO_NOTEBOOK", "MISSING",
    "MISSING_BESIDE", "UNREADABLE", "INVALID", "TOO_MANY_CELLS", "ANOTHER_ASSIGNMENT", "NOT_UTF8_TEXT",
    "CANNOT_BE_READ", "EMPTY_FILE", "CUT_OFF", "NOT_JSON", "NO_NOTEBOOK_IN_JSON", "MOVED_OUT",
    "NAME_NOT_UTF8", "NOT_A_HANDIN_NAME", "NOT_A_DATE", "NOT_A_FOLDER", "NAMES_NO_STUDENT_ID", "ROOTS_FOLDER",
    "NO_ACCOUNT", "NOT_A_STUDENTS_ACCOUNT", "NAMES_ANOTHER_STUDENT", "OWNER_CHANGED", "LINK_NOT_FOLDER",
    "SPECIAL_FILE", "FOREIGN_FILE", "TOO_MANY_FILES", "NESTED_TOO_DEEP", "HANDIN_TOO_LARGE",
    "TOO_MANY_NOTEBOOKS", "CHANGED_WHILE_READ", "BECAME_A_LINK", "GREW_WHILE_READ", "NO_SECRET", "BAD_SECRET",
    "NEVER_FINISHED", "FLOODED_TEXT", "ENTRY_UNREADABLE", "SECRET_REUSED", "ARCHIVE_FULL", "FEEDBACK_FAILED",
    "REFUSAL_MESSAGES", "MB", "Limits", "limits_from", "limits_of", "course_limits", "HandinBudget",
    "handin_budget", "STUDENT_ID", "admit", "student_id_refusal", "assignment_refusal", "file_names_refusal",
    "notebook_sizes_refusal", "notebook_refusal", "SECRET_FILE", "SECRET", "MAX_SECRET_BYTES",
    "flood_refusal", "entry_not_a_folder_refusal", "parse_handin_name", "owner_refusal", "handin_finished",
    "never_finished_refusal", "not_a_students_account_refusal", "nameless_refusal", "nobodys_handin_refusal",
    "archive_full_refusal", "secret_reused_refusal", "unreadable_entry", "owner_changed_refusal",
    "opened_folder_refusal", "special_file_refusal", "foreign_file_refusal", "too_many_files_refusal",
    "nested_too_deep_refusal", "handin_too_large_refusal", "too_many_notebooks_refusal",
    "folder_changed_refusal", "became_a_link_refusal", "file_changed_refusal", "grew_while_read_refusal",
    "no_secret", "secret_file_refusal", "secret_text", "bad_secret_refusal", "ungradable", "feedback_failed",
]
