"""The verdict records a graded probe cell carries: which check passed, its fraction, stage and misconception.

``DecideVerdicts`` writes them; the class report and the feedback page read them back, counting a
record only from a probe cell with exactly ``DecideVerdicts``' structure.
"""
from __future__ import annotations

from typing import Iterable

from grader import formats
from grader.grading.probe_cells import METADATA_KEY, probe_names


def verdict_records(cell, source: str | None = None) -> list[dict]:
    """The verdict summary DecideVerdicts wrote into an autograded probe cell (empty otherwise)."""
    return read_verdict_records(cell, source)[0]


def read_verdict_records(cell, source: str | None = None) -> tuple[list[dict], int]:
    """(the trusted verdict records of ``cell``, how many other outputs claimed to be one).

    source: the instructor's source of this cell from the gradebook, where the cell's own no longer
    holds its probe line (nbgrader's ClearHiddenTests removes it from feedback); default: the cell's.

    Trusted: the first output of a test cell (nbgrader ``grade``) whose source holds exactly one
    ``probe("<name>")`` line, carrying a record of the verdict record's format
    (``grader/formats/verdict_record.schema.json``) for that check; DecideVerdicts replaces every
    output of such a cell. Anything else carrying the metadata key (a display from an ordinary cell,
    a second output, a wrong structure) is forged or damaged: ignored and counted.
    """
    outputs = [o for o in cell.get("outputs", []) if isinstance(o, dict)]
    claims = [i for i, o in enumerate(outputs)
              if isinstance(o.get("metadata"), dict) and METADATA_KEY in o["metadata"]]
    if not claims:
        return [], 0
    nbgrader = cell.get("metadata", {}).get("nbgrader")
    if source is None:
        source = cell.get("source") if isinstance(cell.get("source"), str) else ""
    names = probe_names(source or "")
    is_probe_cell = (cell.get("cell_type") == "code" and isinstance(nbgrader, dict)
                     and nbgrader.get("grade") is True and len(names) == 1)
    if is_probe_cell and claims[0] == 0 and _well_formed(outputs[0]["metadata"][METADATA_KEY], names[0]):
        return [dict(outputs[0]["metadata"][METADATA_KEY])], len(claims) - 1
    return [], len(claims)


def _well_formed(record, check: str) -> bool:
    """Whether ``record`` matches the verdict record's format and names this cell's ``check``."""
    try:
        formats.check(formats.VERDICT_RECORD, record)
    except formats.FormatError:
        return False
    return record["check"] == check


def first_problem(records: Iterable[dict]) -> str | None:
    """``"<check>: <misconception or stage>"`` of the first record without full marks, or ``None``.

    ``records``: verdict records in notebook order (dicts with ``check``, ``fraction`` and optionally
    ``misconception`` / ``stage``), e.g. ``"softmax: no max subtraction"``.
    """
    for record in records:
        if float(record.get("fraction", 1.0)) < 1.0:
            return f"{record['check']}: {record.get('misconception') or record.get('stage') or 'not passed'}"
    return None
