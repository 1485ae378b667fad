"""Which cells of a notebook are prose, and a notebook's prose in another language.

Prose is a markdown cell nbgrader does not track: no ``nbgrader`` metadata at all. nbgrader
computes a checksum of every grade, solution and locked cell (``nbgrader.utils.compute_checksum``,
over the source), checks it when validating and restores those cells from the gradebook when
grading, so a cell with ``nbgrader`` metadata keeps its English source, byte for byte. Prose cells
carry no checksum and no grade id: nothing in validation or grading reads them.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

from notebook_language.paragraphs import paragraphs, translate_text


def is_prose(cell: dict) -> bool:
    """Whether ``cell`` (a notebook cell as JSON) is a markdown cell nbgrader does not track."""
    return cell.get("cell_type") == "markdown" and "nbgrader" not in cell.get("metadata", {})


def cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def prose_paragraphs(notebook: dict) -> list[tuple[str, str]]:
    """(cell id, paragraph) for every paragraph of every prose cell, in order."""
    return [(cell.get("id", str(index)), paragraph)
            for index, cell in enumerate(notebook.get("cells", [])) if is_prose(cell)
            for paragraph in paragraphs(cell_text(cell))]


def is_test_cell(cell: dict) -> bool:
    """Whether ``cell`` is a visible-test cell: a graded, locked code cell that is not a solution."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return (cell.get("cell_type") == "code" and bool(nbgrader.get("grade"))
            and not nbgrader.get("solution") and bool(nbgrader.get("locked", True)))


def assert_messages(source: str) -> list[str]:
    """The plain-string messages of the ``assert`` statements in the Python ``source``, in order
    (an f-string or a computed message is left out: it has no fixed text to translate). A cell that
    is not plain Python (an IPython magic) has none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [node.msg.value for node in ast.walk(tree) if isinstance(node, ast.Assert)
            and isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str) and node.msg.value]


def visible_test_messages(notebook: dict) -> list[tuple[str, str]]:
    """(cell id, message) for every assert message of every visible-test cell, in order: what a
    student reads when a visible test fails. The cells stay in English (nbgrader checksums them);
    the student's kernel shows the message translated (:mod:`notebook_language.assertions`)."""
    return [(cell.get("id", str(index)), message)
            for index, cell in enumerate(notebook.get("cells", [])) if is_test_cell(cell)
            for message in assert_messages(cell_text(cell))]


def translate_notebook(notebook: dict, translate) -> dict:
    """``notebook`` (JSON) with each prose paragraph replaced by ``translate(paragraph)``
    (a gettext ``gettext``: a paragraph it does not know comes back unchanged). Every other cell,
    and every cell's id and metadata, is left as it was. Changes ``notebook`` and returns it."""
    for cell in notebook.get("cells", []):
        if is_prose(cell):
            text = translate_text(cell_text(cell), translate)
            cell["source"] = text.splitlines(keepends=True) if isinstance(cell.get("source"), list) else text
    return notebook


def translate_notebook_file(path: Path, translate) -> None:
    """Rewrite the notebook file ``path`` with its prose translated (nbformat's layout: one-space
    indent, keys sorted, non-ASCII written as itself)."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    translated = translate_notebook(notebook, translate)
    Path(path).write_text(json.dumps(translated, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                          encoding="utf-8")
