"""A bound on how much output one page shows, whatever the notebook it is made from holds.

The grading kernel's outputs are bounded per notebook when it runs (``SandboxedExecute``), but a
page can also be made from a notebook graded before that bound existed, or by other means.
:func:`limit_outputs` keeps a notebook's code cell outputs, in reading order, until together they
reach the page's limit, and replaces the rest by one line per cell saying so.
"""
from __future__ import annotations

import json

from nbformat.v4 import new_output

MiB = 2**20


def page_limit_note(max_bytes: int) -> str:
    """The line a cell shows when its outputs were left off the page."""
    return f"[output removed from this page: its limit of {max_bytes / MiB:g} MiB of output was reached]\n"


def output_size(output) -> int:
    """Characters an output holds (text, traceback, every MIME type's data)."""
    kind = output.get("output_type")
    if kind == "stream":
        return len(_text(output.get("text", "")))
    if kind == "error":
        return len(str(output.get("evalue", ""))) + sum(len(str(line)) for line in output.get("traceback", []))
    return sum(len(_text(value)) if isinstance(value, (str, list)) else len(json.dumps(value, default=str))
               for value in (output.get("data") or {}).values())


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def limit_outputs(nb, max_bytes: int) -> int:
    """Keep at most ``max_bytes`` of output in ``nb`` (in place); how many outputs were removed."""
    used, removed = 0, 0
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            size = output_size(output)
            if used + size <= max_bytes:
                used += size
                kept.append(output)
            else:
                used = max_bytes + 1  # later outputs go too, even small ones: the page reads in order
                removed += 1
        if len(kept) < len(cell.get("outputs", [])):
            cell.outputs = kept + [new_output("stream", name="stdout", text=page_limit_note(max_bytes))]
    return removed
