"""The grading process imports the course's packages (solutions, course_numbers) from the course folder."""
from __future__ import annotations

import sys

import pytest

from grader import course_imports
from grader.course_imports import import_from_course
from grader.root_trust import UntrustedError
from grader.scheduling.course_on_workers import CoursePackagesOnWorker


@pytest.fixture
def import_path(monkeypatch) -> list[str]:
    """This process's import path, restored after the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    return sys.path


def course_folder(root, packages=("solutions", "course_numbers")):
    for name in packages:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text("")
    return root


def test_a_course_folder_with_its_packages_goes_first_on_the_import_path(tmp_path, import_path):
    import_from_course(course_folder(tmp_path / "course"))
    assert sys.path[0] == str((tmp_path / "course").resolve())


def test_a_course_folder_is_put_on_the_import_path_once(tmp_path, import_path):
    course = course_folder(tmp_path / "course")
    import_from_course(course)
    import_from_course(course)
    assert sys.path.count(str(course.resolve())) == 1


def test_a_folder_without_course_packages_leaves_the_import_path_alone(tmp_path, import_path):
    before = list(sys.path)
    (tmp_path / "course").mkdir()
    import_from_course(tmp_path / "course")
    assert sys.path == before


def test_as_root_a_course_folder_other_accounts_can_write_is_refused_before_it_is_on_the_import_path(
        tmp_path, import_path, monkeypatch):
    monkeypatch.setattr(course_imports, "enforced", lambda: True)
    course = course_folder(tmp_path / "course")
    course.chmod(0o777)
    before = list(sys.path)
    with pytest.raises(UntrustedError, match="refusing to load the course's packages"):
        import_from_course(course)
    assert sys.path == before


def test_each_dask_worker_puts_the_course_folder_on_its_import_path(tmp_path, import_path):
    course = course_folder(tmp_path / "course", packages=("course_numbers",))
    CoursePackagesOnWorker(str(course)).setup(worker=None)
    assert sys.path[0] == str(course.resolve())



def test_a_command_in_a_course_folder_without_its_reference_package_names_the_package_and_the_folder(
        tmp_path, monkeypatch):
    from grader import cli

    def missing_package(args):
        raise ModuleNotFoundError("No module named 'solutions'", name="solutions")

    monkeypatch.setattr(cli, "cmd_autograde", missing_package)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["autograde", "01_variance", "--course", str(tmp_path)])
    assert f"'solutions' is not in the course folder {tmp_path.resolve()}" in str(stopped.value)
    assert "copy it from the course's repository" in str(stopped.value)
