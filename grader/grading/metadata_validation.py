"""Checking nbgrader's cell metadata with one validator per schema and process.

nbgrader checks every cell's ``nbgrader`` metadata with ``jsonschema.validate(metadata, schema)``
(``CheckCellMetadata`` runs before and after grading; the autograde converter reads each notebook
more than once). That call first validates the *schema itself* against the JSON Schema
meta-schema and builds a new validator, every time. The schema is a constant file of nbgrader's,
so a grading worker checks it once and reuses the validator; the metadata is checked against it
exactly as before and raises the same (best-matching) ``ValidationError``. nbgrader is made to use
these by ``grader.grading.nbgrader_compat.validate_metadata_with_cached_schema``.
"""
from __future__ import annotations

import json

import jsonschema
from jsonschema import exceptions

_validators: dict[str, object] = {}


def validator_for(schema: dict):
    """One checked validator per distinct schema content in this process."""
    key = json.dumps(schema, sort_keys=True)
    validator = _validators.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _validators[key] = cls(schema)
    return validator


def raise_best_error(instance, validator) -> None:
    """``jsonschema.validate(instance, schema)`` with an already checked schema's validator."""
    error = exceptions.best_match(validator.iter_errors(instance))
    if error is not None:
        raise error
