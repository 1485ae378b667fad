"""The students' environment of a course hub gets the course's numbers package, importable on its own."""
from __future__ import annotations

import subprocess
import sys

import pytest

from course_numbers import numbers_for
from grader.hub.environment import install_student_packages


def site_packages(env):
    site = env / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    return site


def test_the_numbers_package_is_importable_in_the_students_environment_without_the_project(tmp_path):
    site = site_packages(tmp_path / "env")
    install_student_packages(tmp_path / "env")
    # -S: no site hooks, so the project's own (editable) install cannot be what answers the import
    shown = subprocess.run([sys.executable, "-S", "-c", f"import sys; sys.path[:0] = [{str(site)!r}]\n"
                            "import course_numbers; print(course_numbers.__file__)\n"
                            "print(course_numbers.numbers_for('ada', '03_readout'))"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    assert shown == [str(site / "course_numbers" / "__init__.py"), str(numbers_for("ada", "03_readout"))]


def test_installing_again_replaces_an_older_copy(tmp_path):
    site = site_packages(tmp_path / "env")
    (site / "course_numbers").mkdir()
    (site / "course_numbers" / "stale.py").write_text("")
    install_student_packages(tmp_path / "env")
    assert not (site / "course_numbers" / "stale.py").exists()
    assert (site / "course_numbers" / "__init__.py").exists()


def test_an_environment_without_site_packages_is_named(tmp_path):
    with pytest.raises(RuntimeError, match="env has 0 site-packages folders"):
        install_student_packages(tmp_path / "env")


def test_the_students_environment_gets_the_installed_graders_requirements_without_its_extras():
    from packaging.requirements import Requirement

    from grader.hub.environment import course_packages

    names = [Requirement(requirement).name for requirement in course_packages()]
    assert {"nbgrader", "numpy", "matplotlib", "ipykernel"} <= set(names)
    assert not {"pytest", "mkdocs", "dask"} & set(names)
