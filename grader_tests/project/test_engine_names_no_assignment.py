"""The engine declares no course's assignments: the list is the course's folders (``Course.assignments``).

Only ``grader/demo`` names the repository course's assignments, as the demo of that course; a string
in the engine's code that equals an assignment id of the course (not a docstring's example) fails.
"""
from __future__ import annotations

import ast
from pathlib import Path

from grader_tests.checkout import REPO_ROOT, THE_COURSE

ENGINE = REPO_ROOT / "grader"
DEMO = ENGINE / "demo"


def assignment_strings(path: Path, ids: set[str], root: Path = REPO_ROOT) -> list[str]:
    """``path:line: 'id'`` (``path`` relative to ``root``) for each string constant of ``path`` that
    is one of ``ids``, docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [f"{path.relative_to(root)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids
            and id(node) not in docstrings]


def engine_files() -> list[Path]:
    return [path for path in sorted(ENGINE.rglob("*.py")) if DEMO not in path.parents]


def test_no_module_of_the_engine_names_an_assignment_of_the_course():
    ids = set(THE_COURSE.assignments())
    assert [found for path in engine_files() for found in assignment_strings(path, ids)] == []


def test_the_search_sees_an_assignment_named_in_code_but_not_in_a_docstring(tmp_path):
    module = tmp_path / "grader" / "listing.py"
    module.parent.mkdir()
    module.write_text('"""Grades 02_softmax."""\nCOURSE = {"02_softmax": "softmax"}\n', encoding="utf-8")
    assert assignment_strings(module, {"02_softmax"}, tmp_path) == ["grader/listing.py:2: '02_softmax'"]
