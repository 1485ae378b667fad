"""A simulated class for the demo: who hands in what.

Every assignment gets the model answer (the source notebook, as a student who solved everything
would hand it in) and the untouched release (a student who handed in nothing), plus one file that
is not a notebook at all, to show that an unreadable submission is recorded, not lost.
"""
from __future__ import annotations

import nbformat
from nbformat import NotebookNode

from grader.course import ASSIGNMENTS, Course


def simulated_class(course: Course) -> list[tuple[str, str, NotebookNode | str]]:
    """(student, assignment, notebook or raw file text) for every submission of the class."""
    submissions: list[tuple[str, str, NotebookNode | str]] = []
    for assignment in ASSIGNMENTS:
        submissions.append(("ada", assignment, nbformat.read(course.source_notebook(assignment), as_version=4)))
        submissions.append(("blank_bo", assignment, nbformat.read(course.release_notebook(assignment), as_version=4)))
    submissions.append(("corrupt_cy", "01_variance", '{"cells": [ this is not JSON'))
    return submissions
