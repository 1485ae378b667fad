"""The process that schedules grading starts without the grading code: its workers import nbgrader
and the pipeline while it is still starting (``grader.scheduling.pool``, ``grader.grading.outcome``)."""
import subprocess
import sys

import pytest

HEAVY = ("nbgrader", "nbconvert", "jupyterhub", "grader.grading.grade_one", "grader.grading.pipeline")


def modules_loaded_by(code: str) -> set[str]:
    """The heavy modules (HEAVY and their submodules) that a fresh interpreter has loaded after
    running ``code``."""
    probe = code + "\nimport sys\nprint(' '.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {m for m in result.stdout.split() if any(m == h or m.startswith(h + ".") for h in HEAVY)}


def test_building_the_command_line_parser_imports_no_grading_hub_or_catalogue_code():
    assert modules_loaded_by("from grader.cli import build_parser\nbuild_parser()") == set()


@pytest.mark.parametrize("module", ["grader.scheduling.class_run", "grader.scheduling.pool"])
def test_the_scheduling_modules_import_no_nbgrader(module):
    assert modules_loaded_by(f"import {module}") == set()


def test_reading_a_hand_in_name_imports_nbgrader_only_when_a_name_is_read():
    assert modules_loaded_by("import grader.grading.admission") == set()
    assert "nbgrader" in modules_loaded_by(
        "from grader.grading.admission import parse_handin_name\n"
        "parse_handin_name(b'ada+02_softmax+2026-12-07 08:00:00.000000 UTC+abc')")


def test_a_worker_imports_the_grading_code_before_its_first_submission():
    assert "grader.grading.grade_one" in modules_loaded_by(
        "from grader.scheduling.pool import _worker_init\n_worker_init()")
