"""The engine finds a course's checks in ``source/<id>/checks.py``, by path, and says plainly what is wrong with one."""
from __future__ import annotations

import os

import pytest

from grader.authoring.scaffold import new_assignment
from grader.checks import all_checks, assignment_checks
from grader.checks.discovery import CheckDiscoveryError, discover, module_name_of


@pytest.fixture
def course_root(tmp_path):
    new_assignment(tmp_path, "05_squares")
    return tmp_path


def test_the_checks_of_a_course_are_those_of_its_checks_files_in_their_order(course_root):
    assert assignment_checks(course_root) == {"05_squares": ("square_sum", "answer_squares_up_to")}


def test_the_course_shipped_with_the_engine_declares_its_four_assignments_beside_their_notebooks():
    assert list(assignment_checks()) == ["01_variance", "02_softmax", "03_readout", "04_attention"]


def test_two_courses_with_the_same_assignment_id_load_their_own_checks_files(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    new_assignment(first, "05_squares")
    new_assignment(second, "05_squares")
    checks = second / "source" / "05_squares" / "checks.py"
    checks.write_text(checks.read_text(encoding="utf-8").replace('"Part 1"', '"Part one"'), encoding="utf-8")
    assert module_name_of(first / "source/05_squares/checks.py") != module_name_of(checks)
    assert all_checks(first)["square_sum"].lesson == "Part 1"
    assert all_checks(second)["square_sum"].lesson == "Part one"


def test_a_checks_file_with_a_syntax_error_is_named_with_the_error(course_root):
    (course_root / "source" / "05_squares" / "checks.py").write_text("CHECKS = [\n", encoding="utf-8")
    with pytest.raises(CheckDiscoveryError, match=r"05_squares/checks.py cannot be imported: SyntaxError"):
        discover(course_root)


def test_a_check_name_declared_in_two_checks_files_names_both_files(course_root):
    new_assignment(course_root, "06_more_squares")
    with pytest.raises(CheckDiscoveryError, match=r"'square_sum' is declared twice: in .*05_squares/checks.py "
                                                  r"and in .*06_more_squares/checks.py"):
        discover(course_root)


def test_a_checks_file_without_a_list_of_checks_says_what_it_must_define(course_root):
    (course_root / "source" / "05_squares" / "checks.py").write_text("CHECKS = 'square_sum'\n", encoding="utf-8")
    with pytest.raises(CheckDiscoveryError, match=r"must define CHECKS, a list of checks"):
        discover(course_root)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root refuses files other accounts can change")
def test_as_root_a_checks_file_other_accounts_can_change_is_refused(course_root):
    checks = course_root / "source" / "05_squares" / "checks.py"
    checks.chmod(0o666)
    with pytest.raises(CheckDiscoveryError, match=r"checks.py is writable by every account"):
        discover(course_root)


def test_root_counts_the_checks_files_among_what_it_loads_for_a_course(course_root):
    from grader.root_trust import course_load_problems

    checks = course_root / "source" / "05_squares" / "checks.py"
    checks.chmod(0o666)
    problems, _ = course_load_problems(course_root)
    assert checks in [problem.path for problem in problems]


def test_probe_in_a_source_notebook_folder_judges_with_that_courses_checks(course_root):
    from grader.probe import course_of_notebook_folder

    assert course_of_notebook_folder(course_root / "source" / "05_squares") == course_root.resolve()
    assert course_of_notebook_folder(course_root) is None
