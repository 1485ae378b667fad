"""A solution cell as the token sequence that copying tools cannot change.

``normalise(code, template)`` tokenizes a cell with Python's ``tokenize`` and keeps only what
survives the usual disguises of a copy:

- what the release gave everyone goes: every line of the released cell (signature, docstring,
  ``# YOUR CODE HERE``), the ``raise NotImplementedError`` stub, and every docstring (a statement
  that is only a string);
- comments and blank lines go, and so do line breaks inside brackets and after a backslash
  (a statement split over lines is the same statement); ``;`` is a line break (merged lines are
  the same statements); a colon's line break goes too (``if x: return y`` is the two-line form);
- identifiers a student chooses become ``V``: every name except keywords, builtins, attribute
  names (after a dot), keyword-argument names (``keepdims=``) and the names of ``numpy`` and
  ``math`` functions, so ``np.exp`` and ``sum`` stay what they are while ``logits`` and ``x`` are
  the same symbol;
- literal values become ``N`` (numbers) and ``S`` (strings, f-strings included);
- runs of consecutive simple assignments at the same indentation are put into one canonical order
  that respects their dependencies (a topological order, ties broken by the normalised text), so
  moving independent statements around changes nothing.

Each kept token remembers where it was in the cell (line, start column, end column; lines from 1)
so that a match can be marked in the code as the student wrote it. Code that ``tokenize`` cannot
read (an unterminated string, inconsistent indentation) is read by a plain regular expression
instead: the cell is still compared, only less tolerantly.
"""
from __future__ import annotations

import builtins
import heapq
import io
import keyword
import math
import re
import token as token_types
import tokenize
from dataclasses import dataclass
from functools import lru_cache

IDENTIFIER = "V"
NUMBER = "N"
STRING = "S"
STATEMENT_END = "⏎"
_STUB = re.compile(r"^\s*raise\s+NotImplementedError\b")
_MODULE_ALIASES = frozenset({"np", "numpy", "math"})
_FALLBACK_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"[^\"\n]*\"?|'[^'\n]*'?|#[^\n]*|\S")


@dataclass(frozen=True)
class Token:
    """One kept token: its normalised symbol and where it was (line from 1, columns [start, end))."""

    symbol: str
    line: int
    start: int
    end: int


@lru_cache(maxsize=1)
def library_names() -> frozenset[str]:
    """Names that keep their spelling: builtins, and functions of numpy and math (3+ letters)."""
    import numpy

    names = set(dir(builtins)) | _MODULE_ALIASES
    for module in (numpy, math):
        names |= {name for name in dir(module) if len(name) >= 3 and not name.startswith("_")
                  and callable(getattr(module, name, None))}
    return frozenset(names)


@dataclass
class _Statement:
    """One logical line: its kept tokens, indentation depth, and the names it writes and reads."""

    tokens: list[Token]
    depth: int
    assignment: bool
    writes: frozenset[str]
    reads: frozenset[str]

    @property
    def key(self) -> str:
        return " ".join(t.symbol for t in self.tokens)


def template_lines(template: str) -> frozenset[str]:
    """The stripped, non-empty lines of a released cell: what every student was given."""
    return frozenset(line.strip() for line in template.splitlines() if line.strip())


def normalise(code: str, template: str = "") -> list[Token]:
    """The kept tokens of ``code`` in canonical order (see the module docstring)."""
    given = template_lines(template)
    lines = code.splitlines()
    dropped = {number for number, line in enumerate(lines, start=1)
               if line.strip() in given or _STUB.match(line)}
    try:
        statements = _statements(code, dropped)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        statements = _fallback_statements(lines, dropped)
    return [t for statement in _canonical_order(statements) for t in statement.tokens]


def _statements(code: str, dropped: set[int]) -> list[_Statement]:
    statements: list[_Statement] = []
    current: list[tokenize.TokenInfo] = []
    depth = 0
    reader = io.StringIO(code if code.endswith("\n") else code + "\n").readline
    for info in tokenize.generate_tokens(reader):
        kind = info.type
        if kind == token_types.INDENT:
            depth += 1
        elif kind == token_types.DEDENT:
            depth -= 1
        elif kind == token_types.NEWLINE or (kind == token_types.OP and info.string == ";"):
            _close(statements, current, depth, dropped)
            current = []
        elif kind not in (token_types.COMMENT, token_types.NL, token_types.ENCODING, token_types.ENDMARKER):
            current.append(info)
    _close(statements, current, depth, dropped)
    return statements


def _close(statements: list[_Statement], raw: list[tokenize.TokenInfo], depth: int, dropped: set[int]) -> None:
    raw = [t for t in raw if t.start[0] not in dropped]
    if not raw or all(t.type == token_types.STRING for t in raw):
        return  # nothing left, or a docstring
    statements.append(_statement(raw, depth))


def _statement(raw: list[tokenize.TokenInfo], depth: int) -> _Statement:
    known = library_names()
    kept: list[Token] = []
    writes: set[str] = set()
    reads: set[str] = set()
    nesting = 0
    assignment_at = None
    for index, info in enumerate(raw):
        text, kind = info.string, info.type
        previous = raw[index - 1].string if index else ""
        if kind == token_types.NAME:
            following = raw[index + 1].string if index + 1 < len(raw) else ""
            if (keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in known or previous == "."
                    or (nesting > 0 and following == "=")):  # a keyword argument names the callee's API
                symbol = text
            else:
                symbol = IDENTIFIER
                (writes if assignment_at is None else reads).add(text)
        elif kind == token_types.NUMBER:
            symbol = NUMBER
        elif kind == token_types.STRING or kind == getattr(token_types, "FSTRING_START", -1):
            symbol = STRING
        else:
            symbol = text
            if text in "([{":
                nesting += 1
            elif text in ")]}":
                nesting -= 1
            elif nesting == 0 and assignment_at is None and (text == "=" or _augmented(text)):
                assignment_at = index
                if _augmented(text):
                    reads |= writes
        line, start = info.start
        end = info.end[1] if info.end[0] == line else start + len(text.splitlines()[0] if text else "")
        kept.append(Token(symbol, line, start, end))
    if kept and kept[-1].symbol != ":":
        kept.append(Token(STATEMENT_END, kept[-1].line, kept[-1].end, kept[-1].end))
    first = raw[0].string
    assignment = assignment_at is not None and not keyword.iskeyword(first) and raw[-1].string != ":"
    if not assignment:
        reads |= writes
    return _Statement(kept, depth, assignment, frozenset(writes), frozenset(reads))


def _augmented(text: str) -> bool:
    return len(text) >= 2 and text.endswith("=") and text not in ("==", "<=", ">=", "!=")


def _fallback_statements(lines: list[str], dropped: set[int]) -> list[_Statement]:
    """One statement per line, from a regular expression: for code ``tokenize`` cannot read."""
    known = library_names()
    statements = []
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            continue
        kept = []
        for match in _FALLBACK_TOKEN.finditer(line):
            text = match.group()
            if text.startswith("#"):
                break
            if text[0].isalpha() or text[0] == "_":
                symbol = text if keyword.iskeyword(text) or text in known else IDENTIFIER
            elif text[0].isdigit():
                symbol = NUMBER
            elif text[0] in "\"'":
                symbol = STRING
            else:
                symbol = text
            kept.append(Token(symbol, number, match.start(), match.end()))
        if kept:
            kept.append(Token(STATEMENT_END, number, kept[-1].end, kept[-1].end))
            statements.append(_Statement(kept, 0, False, frozenset(), frozenset()))
    return statements


def _canonical_order(statements: list[_Statement]) -> list[_Statement]:
    """Statements with every run of consecutive simple assignments (same depth) in canonical order."""
    ordered: list[_Statement] = []
    run: list[_Statement] = []
    for statement in statements:
        if statement.assignment and (not run or run[-1].depth == statement.depth):
            run.append(statement)
            continue
        ordered += _sorted_run(run)
        run = [statement] if statement.assignment else []
        if not statement.assignment:
            ordered.append(statement)
    return ordered + _sorted_run(run)


def _sorted_run(run: list[_Statement]) -> list[_Statement]:
    """A topological order of ``run`` (a statement stays after those it depends on), smallest key first."""
    if len(run) < 2:
        return run
    after: dict[int, list[int]] = {i: [] for i in range(len(run))}
    waiting = [0] * len(run)
    for i, first in enumerate(run):
        for j in range(i + 1, len(run)):
            second = run[j]
            if first.writes & (second.reads | second.writes) or second.writes & first.reads:
                after[i].append(j)
                waiting[j] += 1
    ready = [(run[i].key, i) for i in range(len(run)) if waiting[i] == 0]
    heapq.heapify(ready)
    result = []
    while ready:
        _, i = heapq.heappop(ready)
        result.append(run[i])
        for j in after[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, (run[j].key, j))
    return result
