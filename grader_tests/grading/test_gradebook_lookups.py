"""What grading one notebook reads from the gradebook: nbgrader's per-cell look-ups answered from one
read of the notebook's rows (grader.grading.gradebook_lookups), with nbgrader's own answers, order and
refusals; the instructor's cells in four queries (grader.grading.gradebook_cells)."""
from __future__ import annotations

import pytest
from nbgrader.api import Gradebook, MissingEntry
from sqlalchemy import event
from sqlalchemy.engine import Engine

from grader.grading.gradebook_cells import GradebookCell, notebook_cells
from grader.grading.gradebook_lookups import answer_from_one_query

NOTEBOOK, ASSIGNMENT, STUDENT = "lesson", "ps1", "ada"
GRADED = ["test_a", "test_b", "both"]  # "both" is a grade cell and a task cell of the same name
SOLUTIONS = ["answer_a", "both"]


@pytest.fixture()
def gradebook(tmp_path):
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        for name in GRADED:
            gb.add_grade_cell(name, NOTEBOOK, ASSIGNMENT, max_score=2, cell_type="code")
        gb.add_task_cell("both", NOTEBOOK, ASSIGNMENT, max_score=5, cell_type="markdown")
        gb.add_task_cell("essay", NOTEBOOK, ASSIGNMENT, max_score=3, cell_type="markdown")
        for name in SOLUTIONS:
            gb.add_solution_cell(name, NOTEBOOK, ASSIGNMENT)
        for name in [*GRADED, "essay", "answer_a"]:
            gb.add_source_cell(name, NOTEBOOK, ASSIGNMENT, cell_type="code", source=f"# {name}", checksum=name)
        gb.add_student(STUDENT)
        gb.add_student("grace")
        gb.add_submission(ASSIGNMENT, STUDENT)
        gb.add_submission(ASSIGNMENT, "grace")
        yield gb


# every look-up the notebook answers: (gradebook method, name)
LOOKUPS = ([("find_source_cell", name) for name in [*GRADED, "essay", "answer_a"]]
           + [(method, name) for method in ("find_graded_cell", "find_grade") for name in [*GRADED, "essay"]]
           + [("find_comment", name) for name in [*SOLUTIONS, "essay"]])


def answers(lookup_of) -> dict:
    """(method, name) -> the row ``lookup_of(method)`` answers (the student's, for a grade or a comment)."""
    return {(method, name): lookup_of(method)(name, NOTEBOOK, ASSIGNMENT,
                                              *([STUDENT] if method in ("find_grade", "find_comment") else []))
            for method, name in LOOKUPS}


def own_answers(gb: Gradebook) -> dict:
    """What nbgrader's own queries answer."""
    return answers(lambda method: getattr(type(gb), method).__get__(gb))


def answered(gb: Gradebook) -> dict:
    """What the gradebook answers now."""
    return answers(lambda method: getattr(gb, method))


def test_every_lookup_returns_the_row_nbgraders_own_query_returns(gradebook):
    expected = own_answers(gradebook)
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT)
    assert answered(gradebook) == expected
    assert all(answered(gradebook)[key] is row for key, row in expected.items())


def test_a_grade_cell_comes_before_a_task_cell_of_the_same_name(gradebook):
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT)
    assert type(gradebook.find_graded_cell("both", NOTEBOOK, ASSIGNMENT)).__name__ == "GradeCell"
    assert type(gradebook.find_grade("both", NOTEBOOK, ASSIGNMENT, STUDENT).cell).__name__ == "GradeCell"
    assert type(gradebook.find_comment("both", NOTEBOOK, ASSIGNMENT, STUDENT).cell).__name__ == "SolutionCell"


def test_the_lookups_of_a_notebook_cost_one_query_per_kind_of_row(gradebook):
    statements = []
    event.listen(gradebook.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT)
    read = len(statements)
    answered(gradebook)
    assert read == 7  # source, grade and task cells; grades of grade and task cells; comments of solution and task cells
    assert [s for s in statements[read:] if s.lstrip().upper().startswith("SELECT")] == []


def test_saving_scores_reads_only_the_students_grades_and_comments(gradebook):
    expected = own_answers(gradebook)
    statements = []
    event.listen(gradebook.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT, cell_lookups=False)
    assert len(statements) == 4  # grades of grade and task cells; comments of solution and task cells
    assert "find_source_cell" not in vars(gradebook) and "find_graded_cell" not in vars(gradebook)
    assert {key: row for key, row in answered(gradebook).items() if key[0] in ("find_grade", "find_comment")} == {
        key: row for key, row in expected.items() if key[0] in ("find_grade", "find_comment")}


def test_an_unknown_name_is_refused_as_nbgrader_refuses_it(gradebook):
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT)
    with pytest.raises(MissingEntry, match="No such source cell"):
        gradebook.find_source_cell("forged", NOTEBOOK, ASSIGNMENT)
    with pytest.raises(MissingEntry, match="No such grade"):
        gradebook.find_grade("forged", NOTEBOOK, ASSIGNMENT, STUDENT)


def test_a_row_added_after_the_read_is_still_found(gradebook):
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT)
    added = gradebook.add_source_cell("late", NOTEBOOK, ASSIGNMENT, cell_type="code", source="", checksum="x")
    assert gradebook.find_source_cell("late", NOTEBOOK, ASSIGNMENT) is added


def test_another_students_grade_is_their_own_not_the_read_students(gradebook):
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT, STUDENT)
    grade = gradebook.find_grade("test_a", NOTEBOOK, ASSIGNMENT, "grace")
    assert grade.student.id == "grace"
    assert grade is not gradebook.find_grade("test_a", NOTEBOOK, ASSIGNMENT, STUDENT)


def test_without_a_student_only_the_cell_lookups_are_answered(gradebook):
    answer_from_one_query(gradebook, NOTEBOOK, ASSIGNMENT)
    assert "find_source_cell" in vars(gradebook) and "find_grade" not in vars(gradebook)


def test_the_instructors_cells_come_with_their_flags_and_points_in_four_queries(gradebook):
    statements = []

    def count(*args):
        statements.append(args[2])

    event.listen(Engine, "before_cursor_execute", count)  # notebook_cells opens its own gradebook
    try:
        cells = notebook_cells(str(gradebook.engine.url), NOTEBOOK, ASSIGNMENT)
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    assert len([s for s in statements if "notebook.name = " in s]) == 4  # besides opening the gradebook
    assert cells["test_a"] == GradebookCell("test_a", "# test_a", False, False, False, 2.0)
    assert cells["both"] == GradebookCell("both", "# both", False, True, True, 2.0)
    assert cells["essay"] == GradebookCell("essay", "# essay", False, False, True, None)
    assert cells["answer_a"] == GradebookCell("answer_a", "# answer_a", False, True, False, None)
    assert set(cells) == {*GRADED, "essay", "answer_a"}


def test_a_notebook_the_gradebook_does_not_know_has_no_cells(gradebook):
    assert notebook_cells(str(gradebook.engine.url), "other", ASSIGNMENT) == {}
