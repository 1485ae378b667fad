"""Changing one override of the policy file, keeping every other line (comments too) as it is."""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from grader.policy.declaration import HEADER


def with_override(text: str, who: str, assignment: str, setting: str, value: str) -> str:
    """``text`` (a policy file; "" for none yet) with ``who``'s ``setting`` for ``assignment`` set to
    ``value``: the line that set it before is replaced, else a line is added at the end. A ``group``
    row is only ever added (a student may be in several groups)."""
    line = _csv_line(who, assignment, setting, value)
    lines = text.splitlines() if text.strip() else [",".join(HEADER)]
    for index, existing in enumerate(lines):
        if not existing.strip() or existing.lstrip().startswith("#") or index == _header_index(lines):
            continue
        cells = [cell.strip() for cell in next(csv.reader([existing]))]
        if len(cells) == len(HEADER) and cells[:3] == [who, assignment, setting] and setting != "group":
            lines[index] = line
            return "\n".join(lines) + "\n"
    return "\n".join(lines + [line]) + "\n"


def _header_index(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#"))


def _csv_line(*cells: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(cells)
    return out.getvalue()


def write_policy_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a reader sees the old file or the new one)."""
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
