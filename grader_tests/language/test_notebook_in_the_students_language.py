"""A released notebook in Chinese: its prose is Chinese, and every cell nbgrader tracks (grade,
solution, locked, tests) is byte-identical to the English one, so its checksums, grade ids and
hidden checks are the same; nbgrader's fetch delivers it to a student whose language is Chinese."""
from __future__ import annotations

import json
import re

import nbformat
import pytest
from fetched_notebooks import fetch, publish
from nbgrader.utils import compute_checksum, is_grade, is_locked, is_solution

from grader.language.notebook_catalogue import compile_catalogues
from grader_tests.checkout import REPO_ROOT
from notebook_language.cells import is_prose, translate_notebook
from notebook_language.fetch import LANGUAGE_VARIABLE, prose_translations

CHINESE = re.compile(r"[\u4e00-\u9fff]")
RELEASED = sorted((REPO_ROOT / "release").glob("*/*.ipynb"))


@pytest.fixture(scope="module")
def locales(tmp_path_factory):
    folder = tmp_path_factory.mktemp("locales")
    compile_catalogues(REPO_ROOT, folder)
    return folder


@pytest.fixture(scope="module")
def chinese(locales):
    return prose_translations(locales, "zh").gettext


def _in_chinese(path, translate):
    return translate_notebook(json.loads(path.read_text(encoding="utf-8")), translate)


def _text(cell):
    return "".join(cell["source"])


@pytest.mark.parametrize("released", RELEASED, ids=lambda p: p.parent.name)
def test_every_cell_nbgrader_tracks_is_byte_identical_in_chinese(released, chinese):
    english = json.loads(released.read_text(encoding="utf-8"))
    translated = _in_chinese(released, chinese)
    tracked = [(a, b) for a, b in zip(english["cells"], translated["cells"]) if "nbgrader" in a["metadata"]]
    assert len(tracked) > 5
    assert all(json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) for a, b in tracked)


@pytest.mark.parametrize("released", RELEASED, ids=lambda p: p.parent.name)
def test_the_chinese_notebook_has_the_same_cells_in_the_same_order_with_the_same_ids(released, chinese):
    english = json.loads(released.read_text(encoding="utf-8"))
    translated = _in_chinese(released, chinese)
    assert [(c["id"], c["cell_type"], c["metadata"]) for c in translated["cells"]] == \
        [(c["id"], c["cell_type"], c["metadata"]) for c in english["cells"]]
    assert translated["metadata"] == english["metadata"]


@pytest.mark.parametrize("released", RELEASED, ids=lambda p: p.parent.name)
def test_nbgrader_checksums_still_match_in_the_chinese_notebook(released, chinese):
    notebook = nbformat.reads(json.dumps(_in_chinese(released, chinese)), as_version=4)  # as nbgrader reads it
    checked = [cell for cell in notebook.cells if (is_grade(cell) or is_solution(cell) or is_locked(cell))
               and "checksum" in cell.metadata.nbgrader]
    assert checked
    assert all(compute_checksum(cell) == cell.metadata.nbgrader.checksum for cell in checked)


@pytest.mark.parametrize("released", RELEASED, ids=lambda p: p.parent.name)
def test_every_prose_cell_of_the_chinese_notebook_is_in_chinese(released, chinese):
    translated = _in_chinese(released, chinese)
    prose = [cell for cell in translated["cells"] if is_prose(cell)]
    assert prose and all(CHINESE.search(_text(cell)) for cell in prose)
    assert nbformat.validate(nbformat.from_dict(translated)) is None


def test_code_and_formulas_named_in_the_prose_survive_translation(chinese):
    translated = _in_chinese(REPO_ROOT / "release" / "02_softmax" / "softmax.ipynb", chinese)
    prose = "\n".join(_text(cell) for cell in translated["cells"] if is_prose(cell))
    for kept in ("`answer_culprit`", "`my_numbers`", "softmax(x)ᵢ = exp(xᵢ) / Σⱼ exp(xⱼ)", "“为什么必须用√d_k缩放点积”",
                 "| `test_softmax` | 4 |"):
        assert kept in prose


def test_a_paragraph_the_catalogue_does_not_know_stays_in_english(chinese):
    notebook = {"cells": [{"cell_type": "markdown", "id": "x", "metadata": {},
                           "source": ["## Your numbers\n", "\n", "A paragraph no translator has seen."]}]}
    assert _text(translate_notebook(notebook, chinese)["cells"][0]) == "## 你的数字\n\nA paragraph no translator has seen."


def test_a_markdown_cell_with_nbgrader_metadata_is_never_translated(chinese):
    cell = {"cell_type": "markdown", "id": "answer", "metadata": {"nbgrader": {"solution": True, "grade": True,
                                                                             "grade_id": "explain", "points": 1}},
            "source": "## Your numbers"}
    assert translate_notebook({"cells": [cell]}, chinese)["cells"][0]["source"] == "## Your numbers"


# ---- the fetch ----------------------------------------------------------------------------------

def _exchange_with(tmp_path, assignment="01_variance"):
    publish(REPO_ROOT / "release" / assignment, tmp_path / "exchange", assignment)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return home


def _fetch(tmp_path, home, locales, assignment="01_variance", **traits):
    return fetch(tmp_path / "exchange", home, assignment, locales, **traits)


def _first_line(path):
    return _text(json.loads(path.read_text(encoding="utf-8"))["cells"][0]).splitlines()[0]


def test_a_student_whose_language_is_chinese_fetches_the_notebook_in_chinese(tmp_path, locales, monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    fetched = _fetch(tmp_path, _exchange_with(tmp_path), locales)
    assert _first_line(fetched) == "# 作业 01 — 为什么未缩放的分数按 √d_k 扩散"


def test_a_student_without_a_language_fetches_the_english_notebook_unchanged(tmp_path, locales, monkeypatch):
    monkeypatch.delenv(LANGUAGE_VARIABLE, raising=False)
    fetched = _fetch(tmp_path, _exchange_with(tmp_path), locales)
    assert fetched.read_bytes() == (REPO_ROOT / "release" / "01_variance" / "variance.ipynb").read_bytes()


def test_the_configured_language_overrides_the_environment(tmp_path, locales, monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    fetched = _fetch(tmp_path, _exchange_with(tmp_path), locales, language="en")
    assert _first_line(fetched).startswith("# Assignment 01")


def test_a_language_without_a_catalogue_fetches_english_and_does_not_fail(tmp_path, monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    fetched = _fetch(tmp_path, _exchange_with(tmp_path), tmp_path / "no-locales")
    assert _first_line(fetched).startswith("# Assignment 01")


def test_a_released_file_that_is_not_a_notebook_is_fetched_as_it_is(tmp_path, locales, monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    home = _exchange_with(tmp_path)
    (tmp_path / "exchange" / "scaled-attention-lab" / "outbound" / "01_variance" / "notes.ipynb").write_text("{not json")
    fetched = _fetch(tmp_path, home, locales)
    assert (fetched.parent / "notes.ipynb").read_text() == "{not json"
    assert _first_line(fetched) == "# 作业 01 — 为什么未缩放的分数按 √d_k 扩散"


def test_fetching_again_never_rewrites_the_students_own_copy(tmp_path, locales, monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    home = _exchange_with(tmp_path)
    fetched = _fetch(tmp_path, home, locales)
    fetched.write_text(fetched.read_text(encoding="utf-8").replace("作业 01", "my edit"), encoding="utf-8")
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    _fetch(tmp_path, home, locales, replace_missing_files=True)
    assert _first_line(fetched).startswith("# my edit")
