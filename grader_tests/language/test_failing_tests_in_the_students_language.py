"""A failing visible test speaks the student's language: the catalogue of the notebooks holds every
visible test's message, a student's kernel (loaded with the course hub's IPython config) shows a
translated ``AssertionError`` in their language, still an error, while the test cell stays in English,
and the feedback page quotes it in the page's language."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.application import ENV_CONFIG_DIRS
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from grader.grading.preprocessors.feedback_page import say_visible_test_in
from grader.hub.environment import install_kernel_config
from grader.language.notebook_catalogue import compile_catalogues, course_gettext, source_notebooks, template
from grader_tests.checkout import REPO_ROOT
from notebook_language.assertions import kernel_config_text, translated
from notebook_language.cells import visible_test_messages
from notebook_language.fetch import LANGUAGE_VARIABLE, prose_translations

MESSAGE = "large logits must not give nan or inf"  # 02_softmax's visible test of the max subtraction
KERNEL_TIMEOUT = 120  # seconds per cell, generous for a loaded machine


def _cell(cell_type: str, source: str, **nbgrader) -> dict:
    metadata = {"nbgrader": nbgrader} if nbgrader else {}
    return {"cell_type": cell_type, "id": f"c{abs(hash(source)) % 10_000}", "metadata": metadata, "source": source}


def test_the_visible_test_messages_are_the_plain_assert_messages_of_the_locked_test_cells():
    notebook = {"cells": [
        _cell("code", 'assert x == 1, "x must be one"\nassert y, f"y is {y}"\nassert z', grade=True, locked=True,
              solution=False, grade_id="t1"),
        _cell("code", 'assert x, "written by the student"', grade=True, solution=True, grade_id="s1"),
        _cell("code", 'assert x, "an unlocked helper"'),
        _cell("code", '%time assert x, "not plain Python"', grade=True, locked=True, solution=False, grade_id="t2"),
    ]}
    assert [message for _, message in visible_test_messages(notebook)] == ["x must be one"]


def test_the_notebooks_catalogue_holds_every_visible_test_message_of_the_course():
    messages = {message.id for message in template(REPO_ROOT)}
    found = [text for path in source_notebooks(REPO_ROOT)
             for _, text in visible_test_messages(json.loads(path.read_text(encoding="utf-8")))]
    assert MESSAGE in found and len(found) > 50
    assert [text for text in found if text not in messages] == []


def test_an_assertion_is_translated_keeping_its_type_and_traceback():
    try:
        raise AssertionError(MESSAGE)  # as a failing `assert ..., MESSAGE` raises it
    except AssertionError as error:
        catalogue = {MESSAGE: "很大的 logits 不得产生 nan 或 inf"}
        shown = translated(error, lambda text: catalogue.get(text, text))
        assert type(shown) is AssertionError and shown.args == ("很大的 logits 不得产生 nan 或 inf",)
        assert shown.__traceback__ is error.__traceback__


@pytest.mark.parametrize("error", [AssertionError("a message no catalogue has"), AssertionError(),
                                   AssertionError(MESSAGE, "a second argument")])
def test_an_assertion_the_catalogue_does_not_know_is_shown_as_raised(error):
    assert translated(error, lambda text: text) is error


@pytest.fixture(scope="module")
def locales(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("locales")
    compile_catalogues(REPO_ROOT, folder)
    return folder


def _run_failing_test(language: str, locales: Path, ipython_dir: Path, monkeypatch) -> dict:
    """Run a visible test's failing assert in a real kernel configured as the hub configures the
    students' kernels; its error output."""
    profile = ipython_dir / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_kernel_config.py").write_text(kernel_config_text(locales), encoding="utf-8")
    monkeypatch.setenv("IPYTHONDIR", str(ipython_dir))
    monkeypatch.setenv(LANGUAGE_VARIABLE, language)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"assert 1 + 1 == 3, {MESSAGE!r}")])
    client = NotebookClient(notebook, kernel_name="python3", timeout=KERNEL_TIMEOUT, allow_errors=False)
    with pytest.raises(CellExecutionError):
        client.execute()
    errors = [output for output in notebook.cells[0].outputs if output.output_type == "error"]
    assert len(errors) == 1
    return errors[0]


@pytest.mark.slow
def test_a_chinese_students_kernel_shows_a_failing_visible_test_in_chinese_and_it_still_fails(
        locales, tmp_path, monkeypatch):
    error = _run_failing_test("zh", locales, tmp_path / "ipython", monkeypatch)
    chinese = prose_translations(locales, "zh").gettext(MESSAGE)
    assert chinese != MESSAGE
    assert error.ename == "AssertionError" and error.evalue == chinese
    assert any(chinese in line for line in error.traceback)


@pytest.mark.slow
def test_an_english_students_kernel_shows_the_visible_test_as_written(locales, tmp_path, monkeypatch):
    error = _run_failing_test("en", locales, tmp_path / "ipython", monkeypatch)
    assert error.ename == "AssertionError" and error.evalue == MESSAGE


def test_the_hub_writes_the_kernel_config_where_ipython_reads_it_for_the_environments_kernels(tmp_path):
    written = install_kernel_config(tmp_path / "env", tmp_path / "locales")
    where_ipython_reads = Path(ENV_CONFIG_DIRS[0]).relative_to(sys.prefix)
    assert written == tmp_path / "env" / where_ipython_reads / "ipython_kernel_config.py"
    assert "notebook_language.assertions" in written.read_text(encoding="utf-8")
    assert str(tmp_path / "locales") in written.read_text(encoding="utf-8")


def _graded_test_cell(solution: bool = False) -> dict:
    cell = nbformat.v4.new_code_cell(f"assert x, {MESSAGE!r}")
    cell.metadata["nbgrader"] = {"grade": True, "solution": solution, "locked": not solution, "grade_id": "t"}
    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=MESSAGE,
                                           traceback=["Traceback ...", f"\x1b[0;31mAssertionError\x1b[0m: {MESSAGE}"])]
    return cell


def test_a_chinese_readers_feedback_page_says_a_failing_visible_tests_message_in_chinese():
    cell = _graded_test_cell()
    say_visible_test_in(cell, course_gettext(REPO_ROOT, "zh"))
    chinese = course_gettext(REPO_ROOT, "zh")(MESSAGE)
    assert chinese != MESSAGE
    assert cell.outputs[0]["evalue"] == chinese and cell.outputs[0]["ename"] == "AssertionError"
    assert cell.outputs[0]["traceback"][-1] == f"\x1b[0;31mAssertionError\x1b[0m: {chinese}"


def test_an_english_readers_feedback_page_keeps_the_visible_tests_message():
    cell = _graded_test_cell()
    say_visible_test_in(cell, course_gettext(REPO_ROOT, "en"))
    assert cell.outputs[0]["evalue"] == MESSAGE


def test_an_error_in_a_students_own_cell_is_shown_as_raised_on_every_page():
    cell = _graded_test_cell(solution=True)
    say_visible_test_in(cell, course_gettext(REPO_ROOT, "zh"))
    assert cell.outputs[0]["evalue"] == MESSAGE
