"""An instructor adds an exercise by editing one notebook and one checks file, as the guide
``docs/instructor/adding-an-exercise.md`` walks through: ``grader new-assignment``, one more
function item and one more quiz item, ``grader check-course``, ``nbgrader generate_assignment``,
``grader autograde``. The released folder holds no checks file; a correct, a wrong and a blank
hand-in get the expected scores and feedback."""
from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell
from nbgrader.api import Gradebook

from grader.cli import main
from grader.course import Course
from grader_tests.checkout import create_course
from grader.demo.corpus import write_submission
from grader.grading import nbgrader_apps
from grader.notebook_cells import grade_id, is_solution_cell, model_answer

pytestmark = pytest.mark.slow

ASSIGNMENT = "05_squares"
NOTEBOOK = "squares"

# ---- what the instructor adds: one function item and one quiz item ---------------------------

CUBE_SUM_CELL = '''def cube_sum(x):
    """Sum of the cubes of the entries of x (array-like, any shape), a float."""
    ### BEGIN SOLUTION
    return float(np.sum(np.asarray(x, dtype=np.float64) ** 3))
    ### END SOLUTION'''

CUBE_SUM_TEST = '''"""cube_sum: 1³ + 2³ = 9"""
assert cube_sum([1.0, 2.0]) == 9.0, "1³ + 2³ is 9"
### BEGIN HIDDEN TESTS
from grader.probe import probe
probe("cube_sum")
### END HIDDEN TESTS'''

CUBES_ANSWER_CELL = '''### BEGIN SOLUTION
answer_cubes_up_to = cube_sum(np.arange(1, my_numbers["answer_cubes_up_to"]["n"] + 1))
### END SOLUTION'''

CUBES_ANSWER_TEST = '''"""answer_cubes_up_to: one number"""
assert np.ndim(answer_cubes_up_to) == 0, "answer_cubes_up_to is a single number"
### BEGIN HIDDEN TESTS
from grader.probe import probe
probe("answer_cubes_up_to")
### END HIDDEN TESTS'''

MORE_CHECKS = '''

# ---- cube_sum and answer_cubes_up_to ---------------------------------------------------------

def cube_sum(x):
    return float(np.sum(np.asarray(x, dtype=np.float64) ** 3))


def _cube_sum_cases(rng):
    return [Case("a vector of 6 random numbers", (rng.normal(size=6),)),
            Case("a single number", ([2.5],))]


def cubes_up_to(n):
    return float((n * (n + 1) / 2) ** 2)


CHECKS += [
    function_check("cube_sum", cube_sum, _cube_sum_cases, "Part 3",
                   wrong_answers=(Misconception("squares", "you summed squares, not cubes", "Part 3",
                                                lambda x: float(np.sum(np.square(x)))),)),
    value_check("answer_cubes_up_to", cubes_up_to, "Part 4", numbers={"n": (3, 12)}),
]
'''

WRONG_ANSWERS = {
    "square_sum": "def square_sum(x):\n    return float(np.sum(np.asarray(x, dtype=np.float64))) ** 2",
    "answer_squares_up_to": "answer_squares_up_to = -1.0",
    "cube_sum": "def cube_sum(x):\n    return float(np.sum(np.asarray(x, dtype=np.float64) ** 2))",
    "answer_cubes_up_to": "answer_cubes_up_to = 0.0",
}
POINTS = {"test_square_sum": 2.0, "test_answer_squares_up_to": 1.0, "test_cube_sum": 2.0, "test_answer_cubes_up_to": 1.0}


def _nbgrader(name: str, **extra) -> dict:
    return {"nbgrader": {"grade_id": name, "schema_version": 3, **extra}}


def add_exercise(course: Course) -> None:
    """Edit only the new notebook and its checks file: one function item and one quiz item more."""
    path = course.root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    numbers = next(c for c in notebook.cells if grade_id(c) == "my_numbers")
    numbers.source = numbers.source.replace("{'answer_squares_up_to': {'n': (5, 20)}}",
                                            "{'answer_squares_up_to': {'n': (5, 20)}, 'answer_cubes_up_to': {'n': (3, 12)}}")
    notebook.cells += [
        new_markdown_cell("## Part 3 — The sum of cubes (2 points)"),
        new_code_cell(CUBE_SUM_CELL, metadata=_nbgrader("cube_sum", solution=True, grade=False, locked=False)),
        new_code_cell(CUBE_SUM_TEST, metadata=_nbgrader("test_cube_sum", solution=False, grade=True, locked=True,
                                                        points=2)),
        new_markdown_cell("## Part 4 — Cubes up to n (1 point)"),
        new_code_cell(CUBES_ANSWER_CELL, metadata=_nbgrader("answer_cubes_up_to", solution=True, grade=False,
                                                            locked=False)),
        new_code_cell(CUBES_ANSWER_TEST, metadata=_nbgrader("test_answer_cubes_up_to", solution=False, grade=True,
                                                            locked=True, points=1)),
    ]
    nbformat.write(notebook, path)
    checks = course.root / "source" / ASSIGNMENT / "checks.py"
    checks.write_text(checks.read_text(encoding="utf-8") + MORE_CHECKS, encoding="utf-8")


def submission(course: Course, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The released notebook with ``answers`` (grade_id -> code) in its solution cells."""
    notebook = nbformat.read(course.root / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    for cell in notebook.cells:
        if grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return notebook


def scores(course: Course, student: str) -> dict[str, float]:
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
        return {g.name: g.score for g in notebook.grades}


def feedback_of(course: Course, student: str, test_cell: str) -> str:
    """The text outputs of one test cell of the autograded notebook."""
    notebook = nbformat.read(course.autograded_notebook(student, ASSIGNMENT), as_version=4)
    cell = next(c for c in notebook.cells if grade_id(c) == test_cell)
    return "\n".join(str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
                     + str(output.get("evalue", "")) for output in cell.outputs)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Course:
    """A course copy with the new assignment scaffolded, extended, released, and three hand-ins graded."""
    course = create_course(tmp_path_factory.mktemp("new-assignment") / "course")
    assert main(["new-assignment", ASSIGNMENT, "--course", str(course.root)]) == 0
    add_exercise(course)
    assert main(["check-course", "--course", str(course.root)]) == 0
    result = nbgrader_apps.generate_assignment(course, ASSIGNMENT)
    assert result["success"], result.get("log")
    source = nbformat.read(course.root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    correct = {grade_id(c): model_answer(c.source) for c in source.cells if is_solution_cell(c)}
    write_submission(course, "correct", ASSIGNMENT, submission(course, correct))
    write_submission(course, "wrong", ASSIGNMENT, submission(course, WRONG_ANSWERS))
    write_submission(course, "blank", ASSIGNMENT, submission(course, {}))
    assert main(["autograde", ASSIGNMENT, "--course", str(course.root), "--workers", "1"]) == 0
    return course


def test_the_released_folder_holds_the_notebook_and_no_checks_file(graded):
    assert sorted(p.name for p in (graded.root / "release" / ASSIGNMENT).iterdir()) == [f"{NOTEBOOK}.ipynb"]


def test_no_graded_working_folder_holds_the_checks_file(graded):
    assert not list((graded.root / "autograded").rglob("checks.py"))


def test_the_model_answer_earns_every_point(graded):
    assert scores(graded, "correct") == POINTS


def test_wrong_answers_earn_only_the_cases_they_happen_to_pass_and_the_declared_misconception_is_named(graded):
    # the square of the sum is right on one of square_sum's four cases (the empty array): a quarter of 2 points
    assert scores(graded, "wrong") == {**{name: 0.0 for name in POINTS}, "test_square_sum": 0.5}
    assert "square of the sum" in feedback_of(graded, "wrong", "test_square_sum")
    assert "Likely misconception (squares)" in feedback_of(graded, "wrong", "test_cube_sum")


def test_a_blank_hand_in_earns_nothing_and_is_told_it_is_not_attempted(graded):
    assert scores(graded, "blank") == {name: 0.0 for name in POINTS}
    assert "not attempted yet" in feedback_of(graded, "blank", "test_cube_sum")


def test_the_feedback_page_names_the_declared_misconception_and_shows_no_reference(graded):
    assert main(["feedback", ASSIGNMENT, "--course", str(graded.root)]) == 0
    page = graded.feedback_page("wrong", ASSIGNMENT).read_text(encoding="utf-8")
    assert "square of the sum" in page
    assert "def squares_up_to" not in page and "_square_sum_cases" not in page


def test_grader_release_regenerates_a_new_assignments_release_without_its_checks_file(tmp_path):
    course = create_course(tmp_path / "course")
    assert main(["new-assignment", ASSIGNMENT, "--course", str(course.root)]) == 0
    assert main(["release", ASSIGNMENT, "--course", str(course.root)]) == 0
    assert sorted(p.name for p in (course.root / "release" / ASSIGNMENT).iterdir()) == [f"{NOTEBOOK}.ipynb"]
