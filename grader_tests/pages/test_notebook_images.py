"""Images a notebook's markdown shows (a file next to it, or a cell attachment) appear on its
feedback page inlined as data: URLs, and only when they are real images within the limits."""
from __future__ import annotations

import base64
import io
import logging
import os
import re

import pytest
from nbformat.v4 import new_markdown_cell, new_notebook
from nbgrader.preprocessors import ClearHiddenTests, GetGrades
from PIL import Image

import grader.grading.pipeline  # noqa: F401  (the course's nbgrader set-up, as nbgrader_config.py loads it)
from grader.grading.preprocessors.feedback_page import FeedbackPage
from grader.pages.exporter import FeedbackExporter
from grader.pages.notebook_images import MAX_PIXELS, NotebookImages

LIMIT = 64 * 1024


def image_bytes(kind: str = "PNG", size: tuple[int, int] = (8, 6), mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, "red").save(buffer, kind)
    return buffer.getvalue()


def decoded(url: str) -> bytes:
    return base64.b64decode(url.split(",", 1)[1])


@pytest.fixture
def folder(tmp_path):
    """A notebook's folder (what the page's exporter gets as the notebook's path)."""
    notebook_folder = tmp_path / "submission"
    notebook_folder.mkdir()
    return notebook_folder


def test_an_image_file_next_to_the_notebook_becomes_a_data_url_of_the_type_found_in_it(folder):
    (folder / "figures").mkdir()
    (folder / "figures" / "plot.jpg").write_bytes(image_bytes("PNG"))  # named .jpg, a PNG inside
    url = NotebookImages(str(folder), LIMIT).data_url("figures/plot.jpg")
    assert url.startswith("data:image/png;base64,") and decoded(url) == image_bytes("PNG")


@pytest.mark.parametrize("kind, mime", [("JPEG", "image/jpeg"), ("GIF", "image/gif")])
def test_jpeg_and_gif_files_are_inlined_too(folder, kind, mime):
    (folder / "picture").write_bytes(image_bytes(kind))
    assert NotebookImages(str(folder), LIMIT).data_url("picture").startswith(f"data:{mime};base64,")


def test_a_file_that_is_not_an_image_is_not_inlined(folder):
    (folder / "jupyter.png").write_bytes(b"\x89PNG\r\n\x1a\n<script>alert(1)</script>")
    assert NotebookImages(str(folder), LIMIT).data_url("jupyter.png") is None


def test_an_image_file_past_the_size_limit_is_not_inlined(folder):
    content = image_bytes()
    (folder / "jupyter.png").write_bytes(content)
    assert NotebookImages(str(folder), len(content) - 1).data_url("jupyter.png") is None
    assert NotebookImages(str(folder), len(content)).data_url("jupyter.png") is not None


def test_an_image_declaring_more_pixels_than_the_bound_is_not_inlined(folder):
    side = int(MAX_PIXELS ** 0.5) + 1
    (folder / "huge.png").write_bytes(image_bytes(size=(side, side), mode="1"))  # a small file
    assert NotebookImages(str(folder), LIMIT).data_url("huge.png") is None


@pytest.mark.parametrize("reference", ["../outside.png", "/tmp/outside.png", "./jupyter.png",
                                       "file:jupyter.png", "https://example.org/jupyter.png", ""])
def test_a_reference_that_is_not_a_plain_name_inside_the_folder_is_not_read(folder, reference):
    (folder / "jupyter.png").write_bytes(image_bytes())
    (folder.parent / "outside.png").write_bytes(image_bytes())
    assert NotebookImages(str(folder), LIMIT).data_url(reference) is None


def test_a_link_to_an_image_elsewhere_is_not_followed(folder):
    (folder.parent / "secret.png").write_bytes(image_bytes())
    os.symlink(folder.parent / "secret.png", folder / "jupyter.png")
    os.symlink(folder.parent, folder / "up")
    images = NotebookImages(str(folder), LIMIT)
    assert images.data_url("jupyter.png") is None and images.data_url("up/secret.png") is None


def test_a_fifo_named_like_an_image_is_not_read(folder):
    os.mkfifo(folder / "jupyter.png")  # opening it for reading would wait for a writer
    assert NotebookImages(str(folder), LIMIT).data_url("jupyter.png") is None


def test_an_attachment_is_inlined_only_when_it_is_a_real_image(folder):
    images = NotebookImages(str(folder), LIMIT)
    real = base64.b64encode(image_bytes("GIF")).decode()
    fake = base64.b64encode(b"<svg onload=alert(1)>").decode()
    assert images.attachment_data_url({"image/png": real}).startswith("data:image/gif;base64,")
    assert images.attachment_data_url({"image/svg+xml": fake}) is None
    assert images.attachment_data_url({"image/png": "not base64 !"}) is None


# ---- on the page ---------------------------------------------------------------------------------

def page_images(html: str) -> dict[str, str]:
    """alt text -> src of every image of the page (empty src when it has none)."""
    images = {}
    for tag in re.findall(r"<img\b[^>]*>", html):
        alt = re.search(r'alt="([^"]*)"', tag)
        src = re.search(r'src="([^"]*)"', tag)
        images[alt.group(1) if alt else ""] = src.group(1) if src else ""
    return images


def test_the_feedback_page_shows_the_notebook_s_images_inline_and_drops_the_rest(folder):
    (folder / "jupyter.png").write_bytes(image_bytes())
    (folder / "fake.png").write_text("not an image")
    cell = new_markdown_cell("![the logo](jupyter.png) ![pasted](attachment:pasted.png) "
                             "![fake](fake.png) ![unknown](attachment:nothing.png)")
    cell.attachments = {"pasted.png": {"image/png": base64.b64encode(image_bytes("JPEG")).decode()}}
    html, _ = FeedbackExporter().from_notebook_node(new_notebook(cells=[cell]), {"metadata": {"path": str(folder)}})
    images = page_images(html)
    assert images["the logo"].startswith("data:image/png;base64,")
    assert images["pasted"].startswith("data:image/jpeg;base64,")
    assert images["fake"] == "" and images["unknown"] == ""


def test_the_feedback_exporter_and_its_preprocessors_raise_no_unrecognised_option_warning(caplog):
    exporter = FeedbackExporter()
    with caplog.at_level(logging.WARNING):
        for preprocessor in (GetGrades, ClearHiddenTests, FeedbackPage):
            exporter.register_preprocessor(preprocessor, enabled=True)
    assert "not recognized" not in caplog.text


# ---- with real nbgrader commands and a browser ----------------------------------------------------

def test_nbgrader_generate_feedback_keeps_a_notebook_s_image_without_config_warnings(course, browser,
                                                                                    browser_artefacts):
    import subprocess
    import sys

    import nbformat
    from browser import open_page

    from grader.demo.corpus import get_submission, hand_in

    student = "softmax_no_max_subtraction"
    hand_in(course, student, get_submission("02_softmax", student))
    notebook_path = course.submitted_notebook(student, "02_softmax")
    notebook = nbformat.read(notebook_path, 4)
    notebook.cells.insert(0, new_markdown_cell("My working: ![my sketch](jupyter.png)"))
    nbformat.write(notebook, notebook_path)
    (notebook_path.parent / "jupyter.png").write_bytes(image_bytes(size=(120, 80)))
    for command in (["autograde", "02_softmax", "--create", "--force"], ["generate_feedback", "02_softmax", "--force"]):
        run = subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=course.root, capture_output=True,
                             text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "not recognized" not in run.stderr
    measure = """() => [...document.querySelectorAll('img')].filter(img => img.alt === 'my sketch')
        .map(img => ({src: img.src.slice(0, 22), width: img.naturalWidth}))"""
    visit = open_page(browser, course.feedback_page(student, "02_softmax"),
                      browser_artefacts / "feedback-page-image.png", marks_script=f"({measure})()")
    assert visit.marks == [{"src": "data:image/png;base64,", "width": 120}]
    assert visit.network_requests == [] and visit.console_errors == []
