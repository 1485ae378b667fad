"""The course's private ``.grader/`` folder: every entry is named once, in grader.state_folders."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import grader
from grader import state_folders
from grader.state_folders import STATE_DIR_NAME, STATE_ENTRIES

PACKAGE = Path(grader.__file__).parent
NAMED_ENTRIES = {entry.name for entry in STATE_ENTRIES}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != Path(state_folders.__file__))


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the constants that are docstrings or other bare string statements."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}


def state_paths_from_literals(path: Path) -> list[str]:
    """Where ``path`` names something inside ``.grader/`` by a string of its own: the folder's name,
    ``<state_dir> / "literal"``, or a module constant holding an entry's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip, found = docstrings(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                and (node.value == STATE_DIR_NAME or node.value.startswith(STATE_DIR_NAME + "/")):
            found.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            sides = (node.left, node.right)
            if any("state_dir" in ast.unparse(side) for side in sides) and \
                    any(isinstance(side, ast.Constant) and isinstance(side.value, str) for side in sides):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and node.value.value in NAMED_ENTRIES:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_takes_its_state_folder_names_from_the_folders_module(path):
    assert state_paths_from_literals(path) == []


def test_each_state_entry_is_named_once():
    names = [entry.name for entry in STATE_ENTRIES]
    assert len(names) == len(set(names))


def test_each_state_entry_says_what_it_holds_and_who_reads_it():
    assert all(entry.holds and entry.readers for entry in STATE_ENTRIES)


def test_the_check_finds_a_state_path_built_from_a_literal(tmp_path):
    module = tmp_path / "example.py"
    module.write_text('def f(course):\n    return course.state_dir / "journal.sqlite"\n')
    assert state_paths_from_literals(module) == ["line 2: course.state_dir / 'journal.sqlite'"]
