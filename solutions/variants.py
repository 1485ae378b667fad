"""Per-student numbers on the grading side: the numbers of a submission, from its recorded student id.

The derivation itself is ``course_numbers`` (the package the notebooks' ``my_numbers`` cell
imports, so the notebook and the grader draw the numbers one way); this module re-exports what the
reference and the grader use from it. The grading side calls :func:`numbers_for` with the student
id nbgrader recorded for the submission, never with anything the student's kernel printed or stored.
"""
from __future__ import annotations

from course_numbers import (  # noqa: F401 (re-exported for the reference and the grader)
    ASSIGNMENT_ITEMS,
    CULPRIT_OPTIONS,
    LESSON_NUMBERS,
    notebook_student_id,
    numbers_for,
    variant_numbers,
)


def choice_letters(options: list[str]) -> dict[str, str]:
    """option text -> its letter in the order ``options`` lists them (A, B, C, ...)."""
    return {option: "ABCD"[i] for i, option in enumerate(options)}

