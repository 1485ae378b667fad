"""A correct submission that prints up to every cell's output limit, graded and given feedback by
plain nbgrader: its graded notebook and feedback page stay within the notebook's output limit and
say so, and its functions keep every hidden-test point."""
from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from attack_harness import ASSIGNMENT, ATTACKS_DIR, NOTEBOOK_NAME, hand_in, load_attack, max_scores, scores

from grader.release import generate_release
from grader.sandbox import SandboxedExecute
from grader_tests.checkout import create_course

pytestmark = pytest.mark.slow

FLOOD = load_attack(ATTACKS_DIR / "output_flood_in_every_cell.toml")
LIMIT = SandboxedExecute.class_traits()["max_notebook_output_bytes"].default_value
NOTE = f"output limit of {LIMIT / 2**20:g} MiB for the whole notebook reached; later output removed"
MiB = 2**20


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course where the flooding submission was graded by ``nbgrader autograde`` and given
    feedback by ``nbgrader generate_feedback``."""
    course = create_course(tmp_path_factory.mktemp("flood") / "course")
    generate_release(course, ASSIGNMENT)
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    hand_in(course, "flood", FLOOD, {}, release, source)
    for command in (["autograde", ASSIGNMENT, "--create", "--force"], ["generate_feedback", ASSIGNMENT, "--force"]):
        run = subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=course.root, capture_output=True,
                             text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-3000:]
    return course


def graded_notebook(course):
    return course.root / "autograded" / "flood" / ASSIGNMENT / f"{NOTEBOOK_NAME}.ipynb"


def test_the_graded_notebook_of_a_flood_stays_within_the_notebook_output_limit(course):
    assert graded_notebook(course).stat().st_size < LIMIT + MiB


def test_the_graded_notebook_says_its_later_output_was_removed(course):
    nb = nbformat.read(graded_notebook(course), as_version=4)
    flooding = [cell for cell in nb.cells if cell.source.startswith("print(")]
    notes = [o.evalue for cell in flooding for o in cell.outputs if o.output_type == "error"]
    assert len(flooding) == 20 and notes == [NOTE] * 18  # two cells fit in 16 MiB


def test_the_feedback_page_of_a_flood_is_bounded_and_shows_the_note(course):
    page = course.feedback_page("flood", ASSIGNMENT)
    assert page.stat().st_size < LIMIT + 2 * MiB
    assert NOTE in page.read_text(encoding="utf-8")


def test_correct_functions_in_a_flooding_notebook_keep_their_hidden_test_credit(course):
    assert scores(course, "flood") == max_scores(course)
