"""A figure the student's code draws reaches the autograded notebook and the feedback page.

Students (and the notebooks themselves) draw with ``plt.show()`` or leave a figure at the end of a
cell, as in any Jupyter kernel. The submission is graded and its page written with plain
``nbgrader autograde`` and ``nbgrader generate_feedback`` and the course config, so the sandboxed
kernel (forked from the zygote) and the page sanitizer are the real ones.
"""
from __future__ import annotations

import base64
import io
import shutil
import subprocess
import sys

import nbformat
import pytest
from bs4 import BeautifulSoup
from PIL import Image
from nbformat.v4 import new_code_cell

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission, write_submission
from grader.pages.scan import scan_file

pytestmark = pytest.mark.slow

ASSIGNMENT = "02_softmax"
STUDENT = "draws"
SHOWN = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.title('shown')\nplt.show()"
LEFT_OPEN = "plt.figure()\nplt.plot([0, 1], [1, 0])\nplt.title('left open')"


@pytest.fixture(scope="module")
def graded(released_course_template, tmp_path_factory):
    """The model answer with two drawing cells appended, graded and given feedback."""
    root = tmp_path_factory.mktemp("figures") / "course"
    shutil.copytree(released_course_template.root, root)
    course = Course(root)
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    notebook = build_notebook(get_submission(ASSIGNMENT, "model_answer"), release, source)
    notebook.cells += [new_code_cell(SHOWN), new_code_cell(LEFT_OPEN)]
    write_submission(course, STUDENT, ASSIGNMENT, notebook)
    for command in (["autograde", ASSIGNMENT, "--create", "--force"],
                    ["generate_feedback", ASSIGNMENT, "--force"]):
        run = subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=root,
                             capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
    return course


def _cell_with(notebook, source: str):
    return next(cell for cell in notebook.cells if cell.source == source)


def _pngs(cell) -> list[str]:
    return [o["data"]["image/png"] for o in cell.outputs if "image/png" in o.get("data", {})]


def test_a_figure_shown_with_plt_show_is_a_png_in_the_autograded_notebook(graded):
    notebook = nbformat.read(graded.autograded_notebook(STUDENT, ASSIGNMENT), as_version=4)
    assert len(_pngs(_cell_with(notebook, SHOWN))) == 1


def test_a_figure_left_open_at_the_end_of_a_cell_is_shown_as_in_jupyter(graded):
    notebook = nbformat.read(graded.autograded_notebook(STUDENT, ASSIGNMENT), as_version=4)
    assert len(_pngs(_cell_with(notebook, LEFT_OPEN))) == 1


def test_the_feedback_page_holds_the_student_figures_as_inline_png_images(graded):
    page = graded.feedback_page(STUDENT, ASSIGNMENT)
    images = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find_all("img")
    inline_png = [img for img in images if img.get("src", "").startswith("data:image/png;base64,")]
    # the notebook's own figure cell, plus the two cells of the student's
    assert len(inline_png) >= 3


def test_pages_with_figures_hold_no_active_content(graded):
    assert scan_file(graded.feedback_page(STUDENT, ASSIGNMENT)) == []
    assert scan_file(graded.autograded_notebook(STUDENT, ASSIGNMENT)) == []


def test_every_figure_on_the_feedback_page_has_an_alt_text(graded):
    page = graded.feedback_page(STUDENT, ASSIGNMENT)
    images = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find_all("img")
    assert images and all(img.get("alt") for img in images)


def test_a_figure_is_drawn_as_laid_out_not_cropped(graded):
    notebook = nbformat.read(graded.autograded_notebook(STUDENT, ASSIGNMENT), as_version=4)
    [png] = _pngs(_cell_with(notebook, SHOWN))
    # matplotlib's default figure, 6.4 x 4.8 inches at 100 dpi, whole (bbox_inches=None, not "tight")
    assert Image.open(io.BytesIO(base64.b64decode(png))).size == (640, 480)
