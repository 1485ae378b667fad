"""The grader's changes to nbgrader are checked against the nbgrader they were written for.

Each change of ``grader.grading.nbgrader_compat`` (and each course class that re-implements an
nbgrader method) replaces or relies on nbgrader code; its source is hashed here. When nbgrader's
code changes, the test of that change fails and names it: re-read the change against the new
code, then update the hash.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import re
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from grader.grading import nbgrader_compat
from grader.grading.nbgrader_compat import PATCHED_FOR, UnsupportedNbgraderVersion, check_nbgrader_version

REPO = Path(__file__).resolve().parents[2]

# (nbgrader module, qualified name) -> sha256 of its source in nbgrader 0.9.6, and what relies on it
GUARDED = {
    ("nbgrader.api", "Gradebook.__init__"): (
        "f71f7e30a6aa3b52", "nbgrader_compat.reuse_gradebook_connections replaces it"),
    ("nbgrader.api", "Gradebook.close"): (
        "431ec0f62d1593c2", "nbgrader_compat.reuse_gradebook_connections replaces it"),
    ("nbgrader.nbgraderformat.common", "BaseMetadataValidator.validate_cell"): (
        "0bb8ecb80c7bb95f", "nbgrader_compat.validate_metadata_with_cached_schema replaces it"),
    ("nbgrader.preprocessors.base", "NbGraderPreprocessor"): (
        "0da34720a51b1d8e", "nbgrader_compat.declare_display_data_priority_configurable tags its trait"),
    ("nbgrader.preprocessors.saveautogrades", "SaveAutoGrades.preprocess"): (
        "163c1d6f4b7a1c6d", "BatchedSaveAutoGrades.preprocess re-implements it"),
    ("nbgrader.api", "Gradebook.find_source_cell"): (
        "28125731749153ce", "gradebook_lookups.answer_from_one_query answers it with the same joins"),
    ("nbgrader.api", "Gradebook.find_graded_cell"): (
        "a4c560499abbef22", "gradebook_lookups.answer_from_one_query answers it (grade cells, then task cells)"),
    ("nbgrader.api", "Gradebook.find_grade"): (
        "2006dab8a5650428", "gradebook_lookups.answer_from_one_query answers it (grade cells, then task cells)"),
    ("nbgrader.api", "Gradebook.find_comment"): (
        "adbe642c44c8778b", "gradebook_lookups.answer_from_one_query answers it (solution cells, then task cells)"),
    ("nbgrader.preprocessors.overwritecells", "OverwriteCells.preprocess"): (
        "ad387f3e871c7d50", "OverwriteCellsFromOneQuery reads the gradebook, notebook and assignment it sets"),
    ("nbgrader.preprocessors.overwritecells", "OverwriteCells.add_missing_grade_cells"): (
        "e3c50b79f719be96", "OverwriteCellsFromOneQuery skips it when no cell is missing by its rule"),
    ("nbgrader.preprocessors.overwritecells", "OverwriteCells.add_missing_task_cells"): (
        "d0517f987406bbfc", "OverwriteCellsFromOneQuery skips it when no cell is missing by its rule"),
    ("nbgrader.converters.base", "BaseConverter.start"): (
        "ad6b121440057b1a", "nbgrader_apps' warm feedback app re-implements it (start)"),
    ("nbgrader.converters.autograde", "Autograde._init_preprocessors"): (
        "6f4b086fec37b76a", "step_times.TimedAutograde wraps the preprocessors it registers"),
    ("nbgrader.converters.base", "BaseConverter.run_pre_convert_hook"): (
        "787273632eaa9b12", "step_times.TimedAutograde drops the quarantine hook grade_one already ran"),
    ("nbgrader.server_extensions.validate_assignment.handlers", "ValidateAssignmentHandler.validate_notebook"): (
        "1e4793629faae778", "course_page.use_course_validator replaces the Validator class it builds, in the "
                            "students' servers"),
}


def original_source(module: str, qualname: str) -> str:
    """The source text of ``module.qualname`` as nbgrader's file holds it (not as patched in this process)."""
    text = inspect.getsource(importlib.import_module(module))
    node: ast.AST = ast.parse(text)
    for part in qualname.split("."):
        node = next(child for child in ast.iter_child_nodes(node)
                    if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and child.name == part)
    return ast.get_source_segment(text, node)


@pytest.mark.parametrize("module, qualname", list(GUARDED))
def test_nbgrader_code_a_change_relies_on_is_the_code_it_was_written_against(module, qualname):
    expected, relied_on_by = GUARDED[(module, qualname)]
    digest = hashlib.sha256(original_source(module, qualname).encode()).hexdigest()[:16]
    assert digest == expected, (
        f"nbgrader's {module}.{qualname} changed: {relied_on_by}. Re-read that code in "
        f"grader/grading against the new nbgrader, fix it, then set this hash to {digest!r}.")


def test_every_change_of_the_compat_module_is_guarded():
    changes = {name for name, value in vars(nbgrader_compat).items()
               if inspect.isfunction(value) and value.__module__ == nbgrader_compat.__name__
               and name != "check_nbgrader_version"}
    guarded = {why.split()[0].split(".")[-1] for _, why in GUARDED.values() if why.startswith("nbgrader_compat.")}
    assert changes == guarded


def test_the_supported_range_is_the_range_pyproject_pins():
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    [pin] = [d for d in dependencies if re.match(r"nbgrader\b", d)]
    assert SpecifierSet(pin.removeprefix("nbgrader")) == PATCHED_FOR


def test_the_installed_nbgrader_is_accepted():
    assert check_nbgrader_version() == importlib.metadata.version("nbgrader")


@pytest.mark.parametrize("version", ["0.10.0", "0.9.5", "1.0.0"])
def test_another_nbgrader_version_is_refused_with_the_version_and_what_to_do(version):
    with pytest.raises(UnsupportedNbgraderVersion, match=rf"nbgrader {re.escape(version)} is installed.*pip install"):
        check_nbgrader_version(version)


def test_a_change_refuses_to_install_on_an_unsupported_nbgrader(monkeypatch):
    monkeypatch.setattr(nbgrader_compat, "_installed_version", lambda: "0.10.1")
    with pytest.raises(UnsupportedNbgraderVersion):
        nbgrader_compat.reuse_gradebook_connections()


def test_the_changes_are_installed_once_and_stay_installed():
    from nbgrader import api
    from nbgrader.nbgraderformat.common import BaseMetadataValidator

    nbgrader_compat.reuse_gradebook_connections()
    nbgrader_compat.validate_metadata_with_cached_schema()
    init, validate = api.Gradebook.__init__, BaseMetadataValidator.validate_cell
    nbgrader_compat.reuse_gradebook_connections()
    nbgrader_compat.validate_metadata_with_cached_schema()
    assert (api.Gradebook.__init__, BaseMetadataValidator.validate_cell) == (init, validate)
    assert init.reuses_connections and validate.uses_cached_schema


def test_no_other_module_assigns_to_nbgrader_classes():
    assignment = re.compile(r"^\s*(api\.)?(Gradebook|BaseMetadataValidator|NbGraderPreprocessor|SaveAutoGrades|"
                            r"Autograde|GenerateFeedback|BaseConverter)\.\w+\s*=|\.class_traits\(\)\[", re.M)
    offenders = [str(path.relative_to(REPO)) for path in (REPO / "grader").rglob("*.py")
                 if path.name != "nbgrader_compat.py" and assignment.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_an_sqlite_gradebook_keeps_its_connection_between_uses_until_its_file_is_replaced(tmp_path):
    from nbgrader.api import Gradebook

    nbgrader_compat.reuse_gradebook_connections()
    path = tmp_path / "gradebook.db"
    url = f"sqlite:///{path}"
    with Gradebook(url) as gb:
        gb.add_student("ada")
        engine = gb.engine
    with Gradebook(url) as gb:
        assert gb.engine is engine and engine.pool.checkedin() == 1  # returned to the pool, not disposed
        assert [s.id for s in gb.students] == ["ada"]
    path.unlink()
    with Gradebook(url) as gb:  # a new file at the same path: a new engine, the tables created again
        assert gb.engine is not engine
        assert gb.students == []
