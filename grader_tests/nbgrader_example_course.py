"""nbgrader's own example course ``course101/ps1`` as tests use it: an ordinary nbgrader assignment.

The assignment comes from the installed nbgrader package, which ships its documentation's example
course (``nbgrader/docs/source/user_guide``; nbgrader is BSD-3-Clause licensed): ``source/ps1/``
holds ``problem1.ipynb`` (test cells of plain asserts, answers graded by hand), ``problem2.ipynb``
(answers graded by hand only) and ``jupyter.png``; ``submitted/`` holds the example students
``bitdiddle`` and ``hacker``.

A course folder here is one of two kinds, with the same ``source/ps1/``:

- *stock*: nbgrader's defaults (``STOCK_CONFIG``), graded by plain ``nbgrader autograde``;
- *engine*: the repository's ``nbgrader_config.py`` (sandbox, zygote, the course's pipeline), graded
  by ``grader autograde`` or the grading service.

``hand_in_every_outcome`` writes the same submissions into a course of either kind, named by outcome.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import nbgrader
from nbgrader.api import Gradebook

from grader.course import Course
from grader_tests.checkout import REPO_ROOT

ASSIGNMENT = "ps1"
USER_GUIDE = Path(nbgrader.__file__).parent / "docs" / "source" / "user_guide"
PS1_SOURCE = USER_GUIDE / "source" / ASSIGNMENT
NOTEBOOKS = ("problem1", "problem2")
STOCK_CONFIG = 'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "course101"\n'
COMMAND_TIMEOUT = 600  # seconds: a hung command fails the test instead of the run
TIMESTAMP = "2026-12-01 10:00:00.000000 UTC"

# problem1's answer cells (grade_id -> source) of the submissions written here, besides the release.
_SQUARES_RIGHT = ("def squares(n):\n    if n < 1:\n        raise ValueError('n < 1')\n"
                  "    return [i ** 2 for i in range(1, n + 1)]\n")
_SUM_RIGHT = "def sum_of_squares(n):\n    return sum(squares(n))\n"
ANSWERS: dict[str, dict[str, str]] = {
    # every autograded test passes
    "passes_all": {"squares": _SQUARES_RIGHT, "sum_of_squares": _SUM_RIGHT},
    # off by one (0 .. n-1) and no ValueError: the tests' asserts fail
    "wrong_answer": {"squares": "def squares(n):\n    return [i ** 2 for i in range(n)]\n",
                     "sum_of_squares": _SUM_RIGHT},
    # the released stubs, untouched
    "blank": {},
    # squares raises an unexpected error, so every test calling it does too
    "raises": {"squares": "def squares(n):\n    raise KeyError(n)\n", "sum_of_squares": _SUM_RIGHT},
    # wrong, and turns every later cell into `pass`: under nbgrader's semantics every assert "passes"
    "input_transformer_attack": {"squares": "def squares(n):\n    return []\n"
                                            "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"},
}
EXAMPLE_STUDENTS = ("bitdiddle", "hacker")  # nbgrader's own example submissions, handed in as they are


def make_course(root: Path, engine: bool) -> Course:
    """A course folder at ``root`` holding ps1, generated (gradebook and ``release/``) by nbgrader.

    engine: the repository's config (True) or nbgrader's defaults (False).
    """
    root.mkdir(parents=True, exist_ok=True)
    if engine:
        shutil.copy2(REPO_ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    else:
        (root / "nbgrader_config.py").write_text(STOCK_CONFIG, encoding="utf-8")
    shutil.copytree(PS1_SOURCE, root / "source" / ASSIGNMENT)
    run_command(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], root)
    return Course(root)


def run_command(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``command`` (an executable of this environment) run in ``cwd``; AssertionError with its output
    when it fails."""
    executable = str(Path(sys.executable).parent / command[0])
    done = subprocess.run([executable, *command[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def submission_notebooks(course: Course, outcome: str) -> dict[str, nbformat.NotebookNode]:
    """notebook name -> the notebook handed in for ``outcome`` (a key of ``ANSWERS``): the released
    notebooks with that outcome's answer cells written in."""
    notebooks = {}
    for name in NOTEBOOKS:
        notebook = nbformat.read(course.root / "release" / ASSIGNMENT / f"{name}.ipynb", as_version=4)
        for cell in notebook.cells:
            answer = ANSWERS[outcome].get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            if answer is not None:
                cell.source = answer
        notebooks[name] = notebook
    return notebooks


def hand_in(course: Course, student: str, notebooks: dict[str, nbformat.NotebookNode]) -> Path:
    """Write ``notebooks`` as ``student``'s hand-in of ps1 (with nbgrader's timestamp and the image)."""
    folder = course.root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    for name, notebook in notebooks.items():
        nbformat.write(notebook, folder / f"{name}.ipynb")
    shutil.copy2(PS1_SOURCE / "jupyter.png", folder / "jupyter.png")
    (folder / "timestamp.txt").write_text(TIMESTAMP, encoding="utf-8")
    return folder


def hand_in_every_outcome(course: Course) -> list[str]:
    """Every submission of ``ANSWERS`` and nbgrader's two example students, handed in; the students."""
    for outcome in ANSWERS:
        hand_in(course, outcome, submission_notebooks(course, outcome))
    for student in EXAMPLE_STUDENTS:
        example = USER_GUIDE / "submitted" / student / ASSIGNMENT
        hand_in(course, student, {name: nbformat.read(example / f"{name}.ipynb", as_version=4) for name in NOTEBOOKS})
    return sorted([*ANSWERS, *EXAMPLE_STUDENTS])


def cell_scores(course: Course) -> dict[tuple[str, str, str], tuple]:
    """(student, notebook, grade_id) -> (auto score, manual score, score, needs manual grade), from
    the gradebook, for every graded cell of every ps1 submission."""
    scores = {}
    with Gradebook(course.db_url) as gb:
        for submission in gb.assignment_submissions(ASSIGNMENT):
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    scores[(submission.student.id, notebook.name, grade.name)] = (
                        grade.auto_score, grade.manual_score, grade.score, grade.needs_manual_grade)
    return scores
