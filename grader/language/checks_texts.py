"""The texts of a course's checks files that a student reads on a feedback page.

A checks file (``source/<id>/checks.py``) says things to students in its own words: case labels
("a vector of {n} random logits"), the names of a function's outputs ("the mean"), its judges'
details and an item's discussion. They are messages of the course's catalogue beside the
notebooks' prose (:mod:`grader.language.notebook_catalogue`), read from the file's syntax tree: every
string or f-string with at least two words, except docstrings and the arguments of a
``Misconception`` (named misconceptions are messages of the engine's catalogue,
:mod:`grader.checks.misconceptions`). An f-string becomes a message with one ``{name}`` per
value, named after the value's expression (``f"d = {int(d)}"`` is ``"d = {d}"``); a feedback page
reads the rendered text back against it (:mod:`grader.language.text_patterns`).
"""
from __future__ import annotations

import ast
import re

#: A text worth translating: two words at least (a lone name, letter or dtype is code).
_WORDS = re.compile(r"[^\W\d_]{2,}\W+\S")
#: Calls whose arguments are not a student's reading here.
_NOT_READ_BY_STUDENTS = {"Misconception"}


def _value_name(node: ast.expr) -> str:
    """The name of an f-string value's placeholder: the variable it shows, through a call or an
    attribute (``int(d)`` -> ``d``, ``case.args`` -> ``args``), else ``value``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return node.attr
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            node = node.args[0]
            continue
        if isinstance(node, ast.Subscript):
            node = node.value
            continue
        return "value"


def message_of(node: ast.expr) -> str | None:
    """The message of a string or f-string node (``{name}`` per value, literal braces doubled), or
    None for any other node."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    text, used = "", {}
    for part in node.values:
        if isinstance(part, ast.Constant):
            text += str(part.value).replace("{", "{{").replace("}", "}}")
            continue
        name = _value_name(part.value)
        used[name] = used.get(name, 0) + 1
        text += "{" + (name if used[name] == 1 else f"{name}{used[name]}") + "}"
    return text


def _docstrings(tree: ast.Module) -> set[int]:
    nodes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return {id(n.body[0].value) for n in nodes
            if n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _skipped(tree: ast.Module) -> set[int]:
    """ids of the string nodes that are not a student's reading: docstrings, the parts of an
    f-string (the f-string is the message), and everything inside a ``Misconception(...)``."""
    skipped = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(part) for part in ast.walk(node) if part is not node)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in _NOT_READ_BY_STUDENTS:
            skipped.update(id(part) for part in ast.walk(node))
    return skipped


def checks_texts(source: str) -> list[tuple[int, str]]:
    """(line, message) of every text of the checks file ``source`` a student may read, in order of
    the file, each once; none when ``source`` is not Python."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    skipped, found, seen = _skipped(tree), [], set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        message = message_of(node)
        if message and _WORDS.search(message) and message not in seen:
            seen.add(message)
            found.append((node.lineno, message))
    return sorted(found)
