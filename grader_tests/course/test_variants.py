"""Per-student numbers: one derivation (``course_numbers``) in the notebooks and on the grading side, a short
``my_numbers`` cell first in every notebook, and draws that still teach."""
from __future__ import annotations

import ast
import contextlib
import io
import os
import string
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from check_harness import VARIANT_STUDENTS, judge

import course_numbers
from grader.checks import all_checks, get_check
from grader.checks.misconceptions import KNOWN_WRONG_ANSWERS
from grader.grading.student_numbers import NUMBERS_CELL, STUDENT_LINE, numbers_cell_source, with_graded_student
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT
from solutions.quiz import QUIZ_ANSWERS, quiz_answer
from solutions.variants import ASSIGNMENT_ITEMS, CULPRIT_OPTIONS, LESSON_NUMBERS, notebook_student_id, numbers_for

#: 500 student ids of the shapes nbgrader meets: login names, matriculation numbers, e-mail-like, unicode.
MANY_IDS = ([f"student{i}" for i in range(200)] + [f"s{1000000 + 7919 * i}" for i in range(150)]
            + [f"{a}{b}.{c}" for a, b, c in zip(string.ascii_lowercase * 4, range(100), string.ascii_lowercase * 4)]
            + [f"Zoë-{i}" for i in range(50)])
assignments = pytest.mark.parametrize("assignment", list(ASSIGNMENTS))


def numbers_cell(folder: str, assignment: str):
    notebook = nbformat.read(REPO_ROOT / folder / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_CELL)


def run_numbers_cell(source: str) -> tuple[dict, str]:
    """(the my_numbers the cell defines, what it prints)."""
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, NUMBERS_CELL, "exec"), namespace)
    return namespace["my_numbers"], printed.getvalue()


@assignments
def test_the_released_numbers_cell_is_the_generated_one_and_locked(assignment):
    cell = numbers_cell("release", assignment)
    assert cell.source == numbers_cell_source(assignment)
    assert cell.metadata["nbgrader"]["locked"] is True
    assert "import solutions" not in cell.source and "import grader" not in cell.source


@assignments
def test_the_notebooks_derivation_agrees_with_the_grading_side_for_many_ids(assignment):
    source = numbers_cell("release", assignment).source
    disagree = []
    for student in MANY_IDS:
        in_notebook, _ = run_numbers_cell(with_graded_student(source, student))
        if in_notebook != numbers_for(student, assignment):
            disagree.append(student)
    assert disagree == []


def test_the_notebook_shows_the_students_numbers_at_the_top():
    numbers, printed = run_numbers_cell(with_graded_student(numbers_cell("release", "03_readout").source, "ada"))
    assert printed.startswith("Your numbers (student id 'ada')")
    assert f"beta = {numbers['answer_ab_ratio']['beta']:g}" in printed


def test_without_a_student_id_the_notebook_says_so_and_uses_the_lessons_numbers():
    numbers, printed = run_numbers_cell(with_graded_student(numbers_cell("release", "01_variance").source, ""))
    assert printed.startswith("No student id")
    assert numbers == {item: LESSON_NUMBERS[item] for item in ASSIGNMENT_ITEMS["01_variance"]}


@pytest.mark.parametrize("variable", ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"])
def test_the_numbers_cell_speaks_the_language_of_the_students_jupyter(monkeypatch, variable):
    for name in ("STUDENT_LANGUAGE", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "zh_CN.UTF-8")
    numbers, printed = run_numbers_cell(with_graded_student(numbers_cell("release", "03_readout").source, "ada"))
    assert printed.startswith("你的数字（学号 'ada'）")
    assert f"beta = {numbers['answer_ab_ratio']['beta']:g}" in printed


def test_the_choice_items_options_are_shown_in_the_students_language_in_the_students_order():
    options = course_numbers.numbers_for("ada", "02_softmax")["answer_culprit"]["options"]
    chinese = course_numbers.show_numbers({"answer_culprit": {"options": options}}, "ada", "zh")
    english = course_numbers.show_numbers({"answer_culprit": {"options": options}}, "ada", "en")
    for letter, option in zip("ABCD", options):
        assert f"{letter}: {course_numbers.say(option, 'zh')}" in chinese
        assert f"{letter}: {option}" in english
    assert not any(option in chinese for option in options)


@pytest.mark.parametrize("setting", [{}, {"LANG": "C.UTF-8"}, {"LANG": "de_DE.UTF-8"}, {"LANGUAGE": "fr:de"}])
def test_a_jupyter_in_a_language_the_course_does_not_translate_gets_english(setting):
    assert course_numbers.kernel_language(setting) == "en"


def test_the_language_the_course_hub_gives_the_student_comes_before_the_locale():
    assert course_numbers.kernel_language({"STUDENT_LANGUAGE": "zh", "LANG": "C.UTF-8"}) == "zh"
    assert course_numbers.kernel_language({"STUDENT_LANGUAGE": "en", "LANG": "zh_CN.UTF-8"}) == "en"
    assert course_numbers.kernel_language({"STUDENT_LANGUAGE": "fr", "LANG": "zh_CN.UTF-8"}) == "zh"


def test_the_numbers_the_page_and_the_fetch_read_the_language_from_one_variable():
    from grader.hub import course_page
    from notebook_language import fetch

    assert course_numbers.STUDENT_LANGUAGE_VARIABLE == course_page.LANGUAGE_VARIABLE == fetch.LANGUAGE_VARIABLE


def test_the_first_language_of_the_students_list_that_the_course_translates_is_used():
    assert course_numbers.kernel_language({"LANGUAGE": "fr:zh_CN:en", "LANG": "C.UTF-8"}) == "zh"


def test_the_student_id_is_the_login_name_nbgrader_submits_under():
    from nbgrader.utils import get_username

    assert notebook_student_id() == get_username()


@pytest.mark.parametrize("hub_user", ["ada", None])
def test_on_the_shared_jovyan_account_the_id_is_the_one_nbgrader_submits_under(monkeypatch, hub_user):
    import pwd

    from nbgrader.utils import get_username

    monkeypatch.setattr(pwd, "getpwuid", lambda uid: ("jovyan",))
    if hub_user:
        monkeypatch.setenv("JUPYTERHUB_USER", hub_user)
    else:
        monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    assert notebook_student_id() == get_username() == (hub_user or "jovyan")


def test_a_process_without_a_login_name_has_no_student_id(monkeypatch):
    import pwd

    def no_account(uid):
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", no_account)
    assert notebook_student_id() is None


def test_grading_fixes_the_student_id_in_the_numbers_cell_only_on_its_own_line():
    source = numbers_cell_source("02_softmax")
    graded = with_graded_student(source, "o'brien")
    assert STUDENT_LINE not in graded and "_GRADED_STUDENT_ID = \"o'brien\"" in graded
    assert run_numbers_cell(graded)[0] == numbers_for("o'brien", "02_softmax")
    with pytest.raises(ValueError, match="_GRADED_STUDENT_ID"):
        with_graded_student("my_numbers = {}", "ada")


def test_two_students_get_different_numbers_and_each_always_the_same():
    assert numbers_for("ada") == numbers_for("ada")
    differing = [item for item in LESSON_NUMBERS if numbers_for("ada")[item] != numbers_for("ben")[item]]
    assert len(differing) >= len(LESSON_NUMBERS) // 2


def test_most_students_numbers_differ_from_the_lessons_on_every_assignment():
    for assignment, items in ASSIGNMENT_ITEMS.items():
        same = [s for s in MANY_IDS if all(numbers_for(s)[i] == LESSON_NUMBERS[i] for i in items)]
        assert len(same) < len(MANY_IDS) * 0.1, assignment


def test_every_quiz_item_has_numbers_an_answer_and_a_check():
    assert set(LESSON_NUMBERS) == set(QUIZ_ANSWERS) == {n for names in ASSIGNMENT_ITEMS.values() for n in names}
    assert set(QUIZ_ANSWERS) == {c.name for c in all_checks().values() if c.kind == "value"}


def test_the_lessons_numbers_give_the_lessons_answers():
    assert quiz_answer("answer_std_ratio") == 4.0
    assert quiz_answer("answer_var_component4") == 1024.0
    assert quiz_answer("answer_sigma_divide_dk") == 0.125
    assert quiz_answer("answer_culprit") == "B"
    assert np.allclose(quiz_answer("answer_ab_exp"), [54.598150, 11.023176])
    assert quiz_answer("answer_beta_equiv") == 8.0
    assert np.isclose(quiz_answer("answer_init_std"), 1 / np.sqrt(512))


# ---- the draws still teach what the lesson teaches --------------------------------------------

def test_a_saturated_example_still_saturates_and_scaling_still_spreads_it():
    for student in MANY_IDS:
        numbers = numbers_for(student)
        unscaled = quiz_answer("answer_weights_unscaled", numbers["answer_weights_unscaled"])
        scaled = quiz_answer("answer_weights_scaled", numbers["answer_weights_scaled"])
        worked = quiz_answer("answer_worked_example", numbers["answer_worked_example"])
        assert unscaled.max() >= 0.8, student
        assert 1 / 3 < scaled.max() < unscaled.max(), student
        assert 0.75 <= worked.max() <= 0.95 and worked.min() >= 0.002, student


def test_exponentials_stretch_every_students_ratio_without_rounding_it_to_0_or_1():
    for student in MANY_IDS:
        ab = numbers_for(student)["answer_ab_ratio"]
        ratio = quiz_answer("answer_ab_ratio", ab)
        assert 0.05 < ratio < 0.5 and ratio < ab["s_b"] / ab["s_a"], (student, ab)
        assert quiz_answer("answer_ab_exp", ab)[0] < 1000  # printable in a few digits


def test_every_number_prints_in_a_few_digits():
    for student in MANY_IDS:
        for item, params in numbers_for(student).items():
            for name, value in params.items():
                values = value if isinstance(value, list) else [value]
                if name == "options":
                    continue
                assert all(len(f"{v:g}") <= 5 for v in values), (student, item, name, value)


def test_known_mistakes_never_give_the_right_answer_for_any_students_numbers():
    """A draw where a misconception's value equals the answer would be degenerate (the mistake would pass)."""
    for name, known in KNOWN_WRONG_ANSWERS.items():
        check = get_check(name)
        if check.kind != "value":
            continue
        for student in MANY_IDS:
            numbers = numbers_for(student)[name]
            right = check.expected_value(numbers)
            for misconception in known:
                wrong = misconception.mistake(numbers)
                if isinstance(right, str):
                    assert wrong != right, (name, student, misconception.name)
                else:
                    assert not np.allclose(wrong, right, rtol=check.rtol, atol=check.atol), \
                        (name, student, misconception.name)


def test_the_choices_are_every_students_own_order_of_the_same_options():
    letters = set()
    for student in MANY_IDS:
        options = numbers_for(student)["answer_culprit"]["options"]
        assert sorted(options) == sorted(CULPRIT_OPTIONS.values())
        letters.add(quiz_answer("answer_culprit", numbers_for(student)["answer_culprit"]))
    assert letters == set("ABCD")


def test_a_choice_item_grades_the_students_own_letter():
    check = get_check("answer_culprit")
    for student in VARIANT_STUDENTS:
        numbers = numbers_for(student)["answer_culprit"]
        right = "ABCD"[numbers["options"].index(CULPRIT_OPTIONS["gap"])]
        for letter in "ABCD":
            verdict = judge(check, {"answer_culprit": letter, "my_numbers": {"answer_culprit": numbers}})
            assert verdict.passed == (letter == right), (student, letter)


def test_a_numeric_item_is_graded_for_the_students_numbers_and_says_so():
    check = get_check("answer_std_ratio")
    ada, ben = numbers_for("ada")["answer_std_ratio"], numbers_for("ben")["answer_std_ratio"]
    assert check.expected_value(ada) != check.expected_value(ben)
    verdict = judge(check, {"answer_std_ratio": check.expected_value(ben), "my_numbers": {"answer_std_ratio": ada}})
    assert not verdict.passed and "for your numbers" in verdict.problem


def test_the_lessons_answer_typed_in_is_named_as_such():
    check = get_check("answer_beta_equiv")
    numbers = numbers_for("ada")["answer_beta_equiv"]
    assert numbers != LESSON_NUMBERS["answer_beta_equiv"]
    verdict = judge(check, {"answer_beta_equiv": 8.0, "my_numbers": {"answer_beta_equiv": numbers}})
    assert verdict.misconception is not None and verdict.misconception.name == "lesson's numbers"


def test_the_numbers_cell_imports_only_the_numbers_package():
    env_before = dict(os.environ)
    numbers, _ = run_numbers_cell(with_graded_student(numbers_cell_source("04_attention"), "ada"))
    assert numbers == numbers_for("ada", "04_attention") and dict(os.environ) == env_before
    imports = [node for node in ast.walk(ast.parse(numbers_cell_source("04_attention")))
               if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [getattr(node, "module", None) for node in imports] == ["course_numbers"]


def test_the_numbers_package_needs_only_the_standard_library():
    imported = set()
    for module in Path(course_numbers.__file__).parent.glob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported |= {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                     for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported and imported <= set(sys.stdlib_module_names) | {"course_numbers"}, imported


@pytest.mark.parametrize("folder", ["source", "release"])
@assignments
def test_every_numbers_cell_is_at_most_15_lines(folder, assignment):
    assert len(numbers_cell(folder, assignment).source.splitlines()) <= 15


@pytest.mark.parametrize("folder", ["source", "release"])
@assignments
def test_the_numbers_cell_is_the_first_code_cell_under_its_heading(folder, assignment):
    notebook = nbformat.read(REPO_ROOT / folder / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)
    first_code = next(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code")
    assert notebook.cells[first_code].metadata["nbgrader"]["grade_id"] == NUMBERS_CELL
    assert first_code == 2 and notebook.cells[1].source.startswith("## Your numbers")


def test_the_numbers_of_an_unknown_assignment_are_refused_by_name():
    with pytest.raises(ValueError, match="'05_missing'.*01_variance"):
        course_numbers.notebook_numbers("05_missing", "ada")
