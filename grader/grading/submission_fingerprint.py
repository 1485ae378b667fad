"""What a submission's hidden inputs follow: the behaviour of its code and the files it carries.

The fingerprint (``submission_fingerprint``, hex SHA-256) of one submitted notebook is made of

- its code (``notebook_fingerprint``): every code cell, in notebook order, as the kernel will run
  it. Each cell is first turned into plain Python the way IPython turns it before running it
  (``TransformerManager``: ``%magic``, ``%%cell magic``, ``!shell`` and ``name?`` lines become
  ``get_ipython()...`` calls whose arguments are string constants, common leading indentation and
  ``>>>`` prompts go), then parsed, and the parse tree, not the text, is hashed (``cell_form``):
  comments, blank lines, line breaks inside brackets, spacing, quote style and the spelling of a
  number (``0.10``/``0.1``, ``1_000``/``1000``) change nothing, while any changed name, operator,
  constant or statement does. Docstrings are kept: they are constants the code can read
  (``f.__doc__``), so a changed docstring is a changed submission. Cells whose parse tree is empty
  (blank or comment-only cells) are left out, since running them does nothing. A cell that does not
  parse (the kernel then raises ``SyntaxError``) is taken by its text instead, each line's
  whitespace collapsed to single spaces and blank lines dropped, so it still has a stable form.
  Markdown and raw cells, outputs and metadata run nothing and are left out.
- the files it carries beside the notebook (``handin_files_fingerprint``): the name and bytes of
  every file of the submission folder that nbgrader copies into the folder the kernel runs in
  (not notebooks, not what ``CourseDirectory.ignore`` names such as ``.ipynb_checkpoints``, not the
  instructor's files of the same name, which overwrite the student's), in sorted order. Code that
  reads ``data.csv`` beside the notebook behaves differently when that file changes, so it gets new
  inputs. The exchange's own ``timestamp.txt`` and ``submission_secret.txt``, new on every hand-in,
  are left out: they would give every hand-in new inputs. Hashing is bounded: the first
  ``MAX_HASHED_FILE_BYTES`` bytes in total are hashed; a file beyond that budget counts by its name
  and size only.

The parse tree is written in a canonical form (node and field names, constants by type and
``repr``, empty fields left out) rather than with ``ast.dump``, whose output changes between Python
versions, and it is walked without recursion, so that a deeply nested expression gives the same
form whatever the caller's stack depth.

What this cannot see: code that reads its own text (``inspect.getsource``, IPython's ``In``
history) behaves differently when a comment changes, and dead code (an unused ``_ = 2``) is a
change of the parse tree. Both need a deliberate hand-in; the service's limit of graded hand-ins
per hour bounds what they can gain.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Iterable

import cachetools
from nbgrader.utils import find_all_files

#: Files nbgrader's exchange writes into every hand-in (new values each time), not the student.
EXCHANGE_FILES = frozenset({"timestamp.txt", "submission_secret.txt"})
#: Bytes of extra files hashed per submission; files beyond this count by name and size.
MAX_HASHED_FILE_BYTES = 64 * 1024 ** 2
_CHUNK = 1024 ** 2


@functools.lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager  # ~0.1 s, only when grading

    return TransformerManager()


# IPython leaves a cell that is already valid Python as it is, except for pasted prompts
# ("In [1]: x" is valid Python, an annotated subscript); only those and invalid cells pay for it.
_IPYTHON_PROMPT = re.compile(r"^\s*In \[\d*\]:", re.MULTILINE)


def _parse(source: str) -> ast.Module:
    """``source`` parsed as IPython hands it to Python (magics and shell escapes as function calls).

    SyntaxError (or ValueError, RecursionError, MemoryError) when it is not Python even then.
    """
    if not _IPYTHON_PROMPT.search(source):
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    try:
        python = _transformer().transform_cell(source)
    except Exception:  # IPython could not read it either; Python's parser gets the text as it is
        python = source
    return ast.parse(python)


def canonical_tree(tree: ast.AST) -> str:
    """The canonical form of ``tree``: one line per node start, field, constant and end.

    Fields holding None or an empty list are left out, so a field added to the grammar by a later
    Python (empty in code that does not use it) leaves the form as it was.
    """
    out: list[str] = []
    stack: list = [tree]
    push, emit = stack.extend, out.append
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is _Mark:
            emit(item.text)
        elif isinstance(item, ast.AST):
            parts: list = [_mark(kind.__name__ + "(")]
            for field in item._fields:
                value = getattr(item, field, None)
                if value is None or (type(value) is list and not value):
                    continue
                parts.append(_mark(field + "="))
                parts.append(value)
            parts.append(_CLOSE)
            push(reversed(parts))
        elif kind is list:
            push((_LIST_CLOSE, *reversed(item), _LIST_OPEN))
        else:  # a constant: str, bytes, int, float, complex, bool, None, Ellipsis
            emit(f"{kind.__name__}:{item!r}")
    return "\n".join(out)


class _Mark:
    """A piece of the canonical form's structure (kept apart from string constants of the tree)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


@functools.lru_cache(maxsize=None)
def _mark(text: str) -> _Mark:
    return _Mark(text)


_CLOSE, _LIST_OPEN, _LIST_CLOSE = _mark(")"), _mark("["), _mark("]")


def _normalised_text(source: str) -> str:
    return "\n".join(" ".join(line.split()) for line in source.splitlines() if line.strip())


#: Canonical forms kept per process (by the SHA-256 of the cell's text; least recently used go): the
#: course's own cells and unchanged student cells come back in every submission of a class.
FORMS_KEPT = 4096
_forms = cachetools.LRUCache(maxsize=FORMS_KEPT)


def cell_form(source: str) -> str | None:
    """A code cell's canonical form: ``python:<sha256 of its parse tree>``, or ``text:<sha256>``
    of its whitespace-normalised text when it does not parse; None when it runs nothing.

    A text seen before in this process (among the last ``FORMS_KEPT``) is not parsed again."""
    key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).digest()
    if key not in _forms:
        _forms[key] = _parsed_form(source)
    return _forms[key]


def _parsed_form(source: str) -> str | None:
    try:
        tree = _parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: a NUL byte
        text = _normalised_text(source)
        return "text:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() if text else None
    if not tree.body:
        return None
    return "python:" + hashlib.sha256(canonical_tree(tree).encode("utf-8", "surrogatepass")).hexdigest()


def code_fingerprint(code_sources: Iterable[str]) -> str:
    """SHA-256 (hex) of the canonical forms of code cells, in order (cells that run nothing left out)."""
    forms = [form for form in map(cell_form, code_sources) if form is not None]
    return hashlib.sha256(json.dumps(forms).encode("ascii")).hexdigest()


def notebook_fingerprint(nb) -> str:
    """The code fingerprint of an nbformat notebook: its code cells, as ``code_fingerprint``."""
    return code_fingerprint(cell.source for cell in nb.cells if cell.cell_type == "code")


def handin_files(folder: Path, ignore: Iterable[str] = (), overwritten: Iterable[str] = ()) -> list[str]:
    """The relative paths (POSIX, sorted) of the regular files of ``folder`` the kernel gets.

    As nbgrader's autograde copies them: every file but notebooks and what ``ignore`` (glob
    patterns, ``CourseDirectory.ignore``) matches; minus ``overwritten`` (the instructor's files,
    relative paths) and the exchange's ``EXCHANGE_FILES`` at the top. Symbolic links and special
    files are not read (the grader moves them out of a submission before grading).
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    skipped = set(overwritten) | EXCHANGE_FILES
    found = []
    for path in find_all_files(str(folder), [*ignore, "*.ipynb"]):
        relative = Path(path).relative_to(folder).as_posix()
        if relative not in skipped and stat.S_ISREG(os.lstat(path).st_mode):
            found.append(relative)
    return sorted(found)


def handin_files_fingerprint(folder: Path, relative_paths: Iterable[str]) -> str:
    """SHA-256 (hex) over the name, size and bytes of each file (``handin_files``), in the given order.

    At most ``MAX_HASHED_FILE_BYTES`` bytes are read in all; a file that no longer fits the budget
    counts by its name and size only.
    """
    digest = hashlib.sha256()
    budget = MAX_HASHED_FILE_BYTES
    for relative in relative_paths:
        try:
            descriptor = os.open(Path(folder) / relative, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            digest.update(json.dumps([relative, "unreadable", exc.errno]).encode("utf-8", "surrogatepass") + b"\n")
            continue
        with os.fdopen(descriptor, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                continue
            content = hashlib.sha256()
            if size <= budget:
                budget -= size
                while chunk := handle.read(_CHUNK):
                    content.update(chunk)
                summary = content.hexdigest()
            else:
                summary = "not read"
        digest.update(json.dumps([relative, size, summary]).encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()


def submission_fingerprint(code: str, files: str) -> str:
    """The fingerprint a submission's seed is drawn from: its code and its files fingerprints."""
    return hashlib.sha256(json.dumps(["code", code, "files", files]).encode("ascii")).hexdigest()
