"""The engine as an instructor installs it: a wheel holding ``grader`` and its data files, which,
installed into a new virtual environment, grades a course folder it is pointed at. Nothing of
the repository takes part in that run: the course is a copy outside it, the commands run there
with a scrubbed environment, and no file the run writes names the repository."""
from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader_example_course import ASSIGNMENT as PS1
from nbgrader_example_course import PS1_SOURCE, cell_scores, hand_in_every_outcome

from grader.course import Course, copy_course
from grader.demo.corpus import build_notebook, get_submission, write_submission
from grader_tests.checkout import REPO_ROOT, THE_COURSE

pytestmark = pytest.mark.xdist_group("wheel")  # one worker builds and installs the wheel once
ASSIGNMENT = "01_variance"
HANDED_IN = {"ada": "model_answer", "fay": "blank"}  # student -> corpus submission
PIP_TIMEOUT = 900  # seconds: a new environment installs nbgrader, Jupyter, numpy ... (pip's cache helps)
RUN_TIMEOUT = 600


def package_data_patterns() -> list[str]:
    """The package-data globs of ``grader`` in pyproject.toml, relative to the repository."""
    with open(REPO_ROOT / "pyproject.toml", "rb") as handle:
        declared = tomllib.load(handle)["tool"]["setuptools"]["package-data"]["grader"]
    return [f"grader/{pattern}" for pattern in declared]


def engine_data_files() -> list[str]:
    """Every file of the engine's package that is neither Python nor a cache, relative to the repository."""
    return sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "grader").rglob("*")
                  if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts)


def test_every_data_file_of_the_engine_is_declared_package_data():
    patterns = package_data_patterns()
    undeclared = [f for f in engine_data_files() if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    assert undeclared == [], "add these to [tool.setuptools.package-data] in pyproject.toml"


# ---- the wheel, installed into a new environment -------------------------------------------------

def clean_environment(venv: Path) -> dict[str, str]:
    """What a shell of the new environment has: its bin folder first on PATH, no PYTHONPATH."""
    return {"PATH": os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"]), "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8", "VIRTUAL_ENV": str(venv)}


def run(command: list[str], cwd: Path, env: dict[str, str],
        timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


#: The top-level packages of the distribution: the engine, and the fetch of the students' environment.
DISTRIBUTED_PACKAGES = ("grader", "notebook_language")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip wheel`` builds from the distribution's own files (pyproject.toml,
    ``grader/`` and ``notebook_language/``), copied out of the checkout so that the build writes
    nothing into it."""
    sources, out = tmp_path_factory.mktemp("sources"), tmp_path_factory.mktemp("wheel")
    shutil.copy2(REPO_ROOT / "pyproject.toml", sources / "pyproject.toml")
    for package in DISTRIBUTED_PACKAGES:
        shutil.copytree(REPO_ROOT / package, sources / package, ignore=shutil.ignore_patterns("__pycache__"))
    pip_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run([sys.executable, "-m", "pip", "wheel", str(sources), "--no-deps", "--quiet", "-w", str(out)],
        cwd=out, env=pip_env, timeout=PIP_TIMEOUT)
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel (and its dependencies, from pip's cache) installed."""
    folder = tmp_path_factory.mktemp("installed") / "venv"
    pip_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run([sys.executable, "-m", "venv", str(folder)], cwd=folder.parent, env=pip_env)
    run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], cwd=folder.parent,
        env=pip_env, timeout=PIP_TIMEOUT)
    return folder


@pytest.fixture(scope="module")
def graded_copy(venv, tmp_path_factory) -> tuple[Course, str]:
    """A copy of the course outside the repository, its assignment generated with plain nbgrader,
    a model answer and a blank notebook handed in, graded by the installed ``grader``; the course
    and everything the commands printed."""
    course = copy_course(THE_COURSE, tmp_path_factory.mktemp("elsewhere") / "course", with_release=True,
                         with_packages=True)
    env = clean_environment(venv)
    printed = [run(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], course.root, env)]
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    for student, submission in HANDED_IN.items():
        write_submission(course, student, ASSIGNMENT, build_notebook(get_submission(ASSIGNMENT, submission),
                                                                     release, source))
    printed.append(run(["grader", "autograde", ASSIGNMENT, "--workers", "2"], course.root, env))
    printed.append(run(["grader", "feedback", ASSIGNMENT], course.root, env))
    return course, "\n".join(p.stdout + p.stderr for p in printed)


@pytest.mark.slow
def test_the_wheel_holds_the_engine_the_students_fetch_and_their_data_files_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == set(DISTRIBUTED_PACKAGES)
    assert set(engine_data_files()) <= set(names)


@pytest.mark.slow
def test_grader_in_the_new_environment_is_the_installed_one_without_the_course_packages(venv, tmp_path):
    env = clean_environment(venv)
    shown = run(["sh", "-c", "command -v grader; python -c 'import grader; print(grader.__file__)'"],
                tmp_path, env).stdout.split()
    assert shown[0] == str(venv / "bin" / "grader")
    assert Path(shown[1]).is_relative_to(venv) and not Path(shown[1]).is_relative_to(REPO_ROOT)
    missing = subprocess.run([str(venv / "bin" / "python"), "-c", "import solutions"], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
    assert "No module named 'solutions'" in missing.stderr


@pytest.mark.slow
def test_the_installed_grader_records_full_marks_for_the_model_answer_and_none_for_a_blank_notebook(graded_copy):
    course, _ = graded_copy
    with Gradebook(course.db_url) as gradebook:
        submissions = {s: gradebook.find_submission(ASSIGNMENT, s) for s in HANDED_IN}
        scores = {s: (submission.score, submission.max_score) for s, submission in submissions.items()}
    (full,) = {maximum for _, maximum in scores.values()}
    assert full > 0 and scores == {"ada": (full, full), "fay": (0.0, full)}


@pytest.mark.slow
def test_the_installed_grader_writes_a_feedback_page_per_student(graded_copy):
    course, _ = graded_copy
    assert all(course.feedback_page(student, ASSIGNMENT).is_file() for student in HANDED_IN)


@pytest.mark.slow
def test_no_path_of_the_repository_appears_in_the_run(graded_copy):
    course, printed = graded_copy
    assert not course.root.is_relative_to(REPO_ROOT)
    assert str(REPO_ROOT) not in printed
    naming = [str(p.relative_to(course.root)) for p in course.root.rglob("*")
              if p.is_file() and str(REPO_ROOT).encode() in p.read_bytes()]
    assert naming == []


@pytest.mark.slow
def test_the_installed_grader_grades_an_ordinary_nbgrader_course_that_has_no_course_packages(venv, tmp_path):
    course = Course(tmp_path / "course101")
    shutil.copytree(PS1_SOURCE, course.root / "source" / PS1)
    shutil.copy2(REPO_ROOT / "nbgrader_config.py", course.root / "nbgrader_config.py")
    env = clean_environment(venv)
    run(["nbgrader", "generate_assignment", PS1, "--force"], course.root, env)
    students = hand_in_every_outcome(course)
    for command in (["grader", "autograde", PS1, "--workers", "2"], ["grader", "feedback", PS1],
                    ["grader", "report", PS1]):
        run(command, course.root, env)
    automatic = {student: 0.0 for student in students}
    for (student, _, _), (auto_score, *_) in cell_scores(course).items():
        automatic[student] += auto_score or 0.0
    assert automatic["passes_all"] > automatic["wrong_answer"] and automatic["blank"] == 0.0
    assert all(course.feedback_page(student, PS1).is_file() for student in students)
