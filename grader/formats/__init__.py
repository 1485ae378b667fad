"""The JSON formats the grader writes and reads back, each declared once as a JSON Schema (draft 2020-12).

One file per format in this folder, ``<name>.schema.json``; :func:`check` validates a document
against it and raises :class:`FormatError`, which names the format and the offending field. A
document that jsonschema-rs (compiled: about a hundred times faster on a kernel's report) finds
valid is accepted; any other is judged, and its error worded, by jsonschema (a property test holds
that the first accepts nothing the second refuses). Rules that need something outside the document
(a report answers its cell's plan, a record names its cell's check) stay with the reader.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

FOLDER = Path(__file__).parent
KERNEL_REPORT = "kernel_report"
VERDICT_RECORD = "verdict_record"
RUN_RECORD = "run_record"
LAUNCHER_SPEC = "launcher_spec"
LAUNCHER_REPORT = "launcher_report"
FORMATS = (KERNEL_REPORT, VERDICT_RECORD, RUN_RECORD, LAUNCHER_SPEC, LAUNCHER_REPORT)
# A message of jsonschema quotes the offending value; a value sent by a kernel may be megabytes long.
MAX_PROBLEM_CHARS = 200


class FormatError(ValueError):
    """A document that does not match its format: ``format_name``, ``field`` (a JSON path such as
    ``$.results[0].ok.shape[0]``) and ``problem`` (jsonschema's message, shortened)."""

    def __init__(self, format_name: str, field: str, problem: str):
        self.format_name, self.field, self.problem = format_name, field, problem
        super().__init__(f"{schema(format_name)['title']} ({format_name}.schema.json) does not match its "
                         f"format at {field}: {problem}")


def schema_path(name: str) -> Path:
    if name not in FORMATS:
        raise KeyError(f"no format {name!r} is declared; the formats are {', '.join(FORMATS)}")
    return FOLDER / f"{name}.schema.json"


@cache
def schema(name: str) -> dict:
    """The JSON Schema of the format ``name`` (one of :data:`FORMATS`)."""
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


def max_length(name: str, field: str) -> int:
    """The ``maxLength`` the format ``name`` declares for its top-level ``field``."""
    return schema(name)["properties"][field]["maxLength"]


def _valid_at_once(name: str, document) -> bool:
    """True when jsonschema-rs finds ``document`` valid; False when it does not, or cannot take it
    (a number beyond 64 bits, a string holding a lone surrogate: Python's json reads both)."""
    try:
        return _compiled_validator(name).is_valid(document)
    except Exception:  # noqa: BLE001 - whatever it cannot convert, jsonschema judges
        return False


@cache
def _compiled_validator(name: str):
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(name))


@cache
def _validator(name: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema(name))


def check(name: str, document) -> None:
    """Raise :class:`FormatError` unless ``document`` (parsed JSON) matches the format ``name``."""
    from jsonschema.exceptions import best_match

    if _valid_at_once(name, document):
        return
    error = best_match(_validator(name).iter_errors(document))
    if error is not None:
        # "not" declares what is not allowed in its description (jsonschema would quote the schema `{}`)
        problem = error.schema.get("description", error.message) if error.validator == "not" else error.message
        if len(problem) > MAX_PROBLEM_CHARS:
            problem = problem[:MAX_PROBLEM_CHARS] + "…"
        raise FormatError(name, error.json_path, problem)
