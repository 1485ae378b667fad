"""This repository's own course and its corpora of hand-ins, for the repository's own tooling.

The repository root is the scaled-attention course: ``nbgrader_config.py``, ``source/``,
``release/``, the reference package ``solutions/`` and ``course_numbers/``. Beside it,
``grader_tests/corpus/`` and ``grader_tests/similarity_corpus/`` hold realistic hand-ins of that
course. The test suite, the benchmarks and ``grader demo`` (through ``grader.demo.checkout``) take
the course folder and the corpora from here, and only from here: the engine (``grader``) works on
the course folder a command names and never looks beside its own code, and its wheel does not ship
this module.
"""
from __future__ import annotations

from pathlib import Path

from grader.course import Course, copy_course

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The repository's course (the repository root is its course folder).
THE_COURSE = Course(REPO_ROOT)
#: The course's assignments (its folders source/<id>/, in teaching order) -> each one's notebook name.
ASSIGNMENTS: dict[str, str] = {assignment: THE_COURSE.notebook_name(assignment) for assignment in THE_COURSE.assignments()}
#: Realistic hand-ins of every assignment (``grader.demo.corpus`` reads them).
CORPUS_DIR = REPO_ROOT / "grader_tests" / "corpus"
#: Hand-ins copied from a classmate's, disguised (``grader.similarity``).
SIMILARITY_CORPUS_DIR = REPO_ROOT / "grader_tests" / "similarity_corpus"
#: Where ``grader demo`` works by default (git-ignored).
DEMO_FOLDER = REPO_ROOT / "demo-course"


def notebook_name(assignment: str) -> str:
    """The name (without .ipynb) of the notebook of the course's ``assignment``."""
    return THE_COURSE.notebook_name(assignment)


def create_course(dest: Path, with_release: bool = False) -> Course:
    """A fresh course folder at ``dest`` from the repository's course: its config and source
    notebooks, and with_release its committed ``release/`` (see ``grader.course.copy_course``)."""
    return copy_course(THE_COURSE, dest, with_release=with_release)
