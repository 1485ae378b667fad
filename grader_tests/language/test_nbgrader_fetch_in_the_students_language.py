"""``nbgrader fetch_assignment``, run as a student runs it with the students' nbgrader config the
course hub writes, delivers the notebook in the language the hub's spawner named."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from fetched_notebooks import COURSE_ID, publish

from grader.demo.corpus import build_notebook, get_submission
from grader.hub.jupyter_config import write_notebook_catalogues, write_role_configs
from grader.hub.layout import HubLayout
from grader_tests.checkout import REPO_ROOT
from notebook_language.fetch import LANGUAGE_VARIABLE

pytestmark = pytest.mark.slow
ASSIGNMENT = "03_readout"


def _nbgrader_fetch(tmp_path, language: str | None) -> Path:
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    write_role_configs(layout, COURSE_ID, REPO_ROOT)
    write_notebook_catalogues(layout, REPO_ROOT)
    publish(REPO_ROOT / "release" / ASSIGNMENT, layout.exchange, ASSIGNMENT)
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if key != LANGUAGE_VARIABLE}
    env.update(HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
               JUPYTER_CONFIG_PATH=str(layout.student_config))
    if language:
        env[LANGUAGE_VARIABLE] = language
    result = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "fetch_assignment", ASSIGNMENT],
                            cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return home / ASSIGNMENT / "readout.ipynb"


def _title(notebook: Path) -> str:
    return "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][0]["source"]).splitlines()[0]


def test_nbgrader_fetch_assignment_delivers_chinese_to_a_student_the_hub_says_reads_chinese(tmp_path):
    assert _title(_nbgrader_fetch(tmp_path, "zh")) == "# 作业 03 — 指数拉开比例，softmax 给出分配"


def test_nbgrader_fetch_assignment_delivers_the_released_english_notebook_otherwise(tmp_path):
    fetched = _nbgrader_fetch(tmp_path, None)
    assert fetched.read_bytes() == (REPO_ROOT / "release" / ASSIGNMENT / "readout.ipynb").read_bytes()


def test_nbgrader_validate_passes_the_model_answer_in_the_notebook_fetched_in_chinese(tmp_path):
    fetched = _nbgrader_fetch(tmp_path, "zh")
    source = nbformat.read(REPO_ROOT / "source" / ASSIGNMENT / "readout.ipynb", as_version=4)
    answered = build_notebook(get_submission(ASSIGNMENT, "model_answer"), nbformat.read(fetched, as_version=4), source)
    nbformat.write(answered, fetched)
    result = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "validate", str(fetched)],
                            cwd=fetched.parent, capture_output=True, text=True, timeout=600)
    assert "Success! Your notebook passes all the tests." in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    assert "CHANGED" not in result.stdout.upper()
