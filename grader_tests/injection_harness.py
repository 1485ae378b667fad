"""Injection submissions as data, graded and turned into pages by plain nbgrader.

Every file ``grader_tests/injections/<name>.toml`` is one submission of ``02_softmax`` that hides
HTML, JavaScript, SVG or CSS where a page made from it might run or load it. A submission starts
from the release notebook with every solution cell holding the model answer. Keys:

``about``             what the payloads try (required).
``markdown``          markdown cells inserted after the ``softmax`` solution cell.
``code``              code cells inserted after those; the grader runs them, so their outputs
                      (any MIME type, through ``IPython.display``) are what the pages show.
``solution``          the code of the ``softmax`` solution cell instead of the model answer.
``student``           the student id (the submission's folder name) instead of the file name.
``notebook_metadata`` merged into the notebook's metadata (e.g. widget state).
``control``           true for a legitimate submission whose maths, figures and tables must show.

Strings may use ``$mark``, JavaScript that records that a payload ran (``top.PWNED=1``; the tests
read ``window.PWNED`` after the page loaded), and ``$beacon``, an address on this machine where
nothing listens (any request to it, or anywhere else, fails the tests).

Submissions are spread over a few courses (one ``nbgrader autograde`` and one
``nbgrader generate_feedback`` run each), all graded at the same time.
"""
from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from attack_harness import merge_into
from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry

from grader.course import Course
from grader.notebook_cells import grade_id, is_solution_cell, model_answers
from grader_tests.checkout import notebook_name

INJECTIONS_DIR = Path(__file__).with_name("injections")
ASSIGNMENT = "02_softmax"
NOTEBOOK_NAME = notebook_name(ASSIGNMENT)
TARGET = "softmax"
MARK = "top.PWNED=1"
MARK_READER = "window.PWNED === undefined ? null : String(window.PWNED)"
BEACON = "http://127.0.0.1:9"
COURSES = 2
CELL_TIMEOUT = 15  # seconds, as in the end-to-end pipeline test
COMMAND_TIMEOUT = 900  # seconds: a hung command fails the test instead of the CI job
_KEYS = {"about", "markdown", "code", "solution", "student", "notebook_metadata", "control"}


@dataclass(frozen=True)
class Injection:
    """One submission of the corpus (see the module docstring for the meaning of each field)."""

    name: str
    about: str
    markdown: tuple = ()
    code: tuple = ()
    solution: str | None = None
    student: str | None = None
    notebook_metadata: dict = field(default_factory=dict)
    control: bool = False

    @property
    def student_id(self) -> str:
        return _substitute(self.student) if self.student else self.name


def load_injection(path: Path) -> Injection:
    """Read one corpus file; ValueError naming the file for an unknown key or a missing ``about``."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(data) - _KEYS
    if unknown or "about" not in data:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)} or no 'about'")
    for key in ("markdown", "code"):
        data[key] = tuple(data.get(key, ()))
    return Injection(name=path.stem, **data)


def load_injections(folder: Path = INJECTIONS_DIR) -> list[Injection]:
    return [load_injection(path) for path in sorted(folder.glob("*.toml"))]


def _substitute(value):
    if isinstance(value, str):
        return value.replace("$mark", MARK).replace("$beacon", BEACON)
    if isinstance(value, dict):
        return {k: _substitute(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_substitute(v) for v in value]
    return value


def submission_notebook(injection: Injection, release: NotebookNode, source: NotebookNode) -> NotebookNode:
    """The release notebook with the model answers and the injection's cells and metadata."""
    answers = model_answers(source)
    if injection.solution is not None:
        answers[TARGET] = _substitute(injection.solution)
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        if is_solution_cell(cell):
            cell.source = answers[grade_id(cell)]
    position = next(i for i, cell in enumerate(nb.cells) if grade_id(cell) == TARGET) + 1
    added = [nbformat.v4.new_markdown_cell(text) for text in _substitute(list(injection.markdown))] + \
        [nbformat.v4.new_code_cell(code) for code in _substitute(list(injection.code))]
    nb.cells[position:position] = added
    merge_into(nb.metadata, _substitute(injection.notebook_metadata))
    return nb


def hand_in(course: Course, injection: Injection) -> Path:
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    path = course.submitted_notebook(injection.student_id, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(submission_notebook(injection, release, source), path)
    return path


def nbgrader_command(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "nbgrader"), *args]


def grade_and_give_feedback(courses: list[Course]) -> list[dict]:
    """``nbgrader autograde`` then ``nbgrader generate_feedback`` in every course, all courses at
    the same time; each course's {"root", "autograde", "generate_feedback"} (exit codes) and log."""
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    script = " && ".join([
        " ".join(nbgrader_command("autograde", ASSIGNMENT, "--create", "--force",
                                  f"--SandboxedExecute.timeout={CELL_TIMEOUT}")) + "; echo autograde=$? >> exit-codes",
        " ".join(nbgrader_command("generate_feedback", ASSIGNMENT, "--force")) + "; echo generate_feedback=$? >> exit-codes",
    ])
    running = []
    for course in courses:
        log = open(course.root.parent / f"{course.root.name}.log", "wb")
        running.append((course, log, subprocess.Popen(["bash", "-c", script], cwd=course.root, env=env,
                                                       stdout=log, stderr=subprocess.STDOUT)))
    results = []
    for course, log, process in running:
        try:
            process.wait(timeout=COMMAND_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()
        codes = dict(line.split("=") for line in (course.root / "exit-codes").read_text().split())
        results.append({"root": str(course.root), **{k: int(v) for k, v in codes.items()},
                        "log": str(course.root.parent / f"{course.root.name}.log")})
    return results


def lay_out_courses(template: Course, folder: Path, corpus: list[Injection]) -> dict[str, Course]:
    """Copy the released course ``COURSES`` times under ``folder`` and hand the corpus in, spread
    over them; injection name -> its course."""
    courses = []
    for number in range(1, COURSES + 1):
        root = folder / f"injections-{number}" / "course"
        shutil.copytree(template.root, root)
        courses.append(Course(root))
    placed = {}
    for number, injection in enumerate(corpus):
        course = courses[number % COURSES]
        hand_in(course, injection)
        placed[injection.name] = course
    return placed


def total_score(course: Course, student: str) -> float | None:
    """The student's recorded total for the assignment's notebook; None if nbgrader recorded none."""
    with Gradebook(course.db_url) as gb:
        try:
            return float(gb.find_submission_notebook(NOTEBOOK_NAME, ASSIGNMENT, student).score)
        except MissingEntry:
            return None
