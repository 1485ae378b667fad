"""``grader translate``: check names every paragraph a language would show in English and fails;
extract brings the catalogue up to date; compile writes what the students' fetch reads."""
from __future__ import annotations

import json
import shutil

from grader.cli import main
from grader_tests.checkout import REPO_ROOT


def _course(tmp_path):
    for folder in ("source", "locales"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder)
    shutil.copy(REPO_ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    return tmp_path


def test_check_passes_when_every_paragraph_is_translated(tmp_path, capsys):
    assert main(["translate", "check", "--course", str(_course(tmp_path))]) == 0
    assert "every text of the checks files, is translated into zh" in capsys.readouterr().out


def test_check_fails_naming_the_notebook_and_the_paragraph_to_translate(tmp_path, capsys):
    course = _course(tmp_path)
    path = course / "source" / "04_attention" / "attention.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    notebook["cells"].append({"cell_type": "markdown", "id": "new", "metadata": {}, "source": "A new remark."})
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")
    assert main(["translate", "check", "--course", str(course)]) == 1
    assert "zh: source/04_attention/attention.ipynb:" in capsys.readouterr().out


def test_extract_writes_the_template_and_each_languages_catalogue(tmp_path, capsys):
    course = _course(tmp_path)
    (course / "locales" / "notebooks.pot").unlink()
    assert main(["translate", "extract", "--course", str(course)]) == 0
    assert (course / "locales" / "notebooks.pot").exists()
    assert "wrote locales/zh/LC_MESSAGES/notebooks.po" in capsys.readouterr().out


def test_compile_writes_the_catalogue_the_students_fetch_reads(tmp_path):
    course = _course(tmp_path / "course")
    assert main(["translate", "compile", str(tmp_path / "locales"), "--course", str(course)]) == 0
    assert (tmp_path / "locales" / "zh" / "LC_MESSAGES" / "notebooks.mo").stat().st_size > 1000
