"""nbgrader's cell-metadata validation with one validator per schema and process.

nbgrader checks every cell's ``nbgrader`` metadata with ``jsonschema.validate(metadata, schema)``
(``CheckCellMetadata`` runs before and after grading; the autograde converter reads each notebook
more than once). That call first validates the *schema itself* against the JSON Schema
meta-schema and builds a new validator, every time: about 1.8 s of a 40-notebook run here, most
of nbgrader's own work per notebook apart from the gradebook. The schema is a constant file of
nbgrader's, so a grading worker checks it once and reuses the validator; the metadata is checked
against it exactly as before and raises the same (best-matching) ``ValidationError``.
"""
from __future__ import annotations

import json

import jsonschema
from jsonschema import exceptions
from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError

_validators: dict[str, object] = {}


def _validator_for(schema: dict):
    """One checked validator per distinct schema content in this process."""
    key = json.dumps(schema, sort_keys=True)
    validator = _validators.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _validators[key] = cls(schema)
    return validator


def _validate(instance, validator) -> None:
    """``jsonschema.validate(instance, schema)`` with an already checked schema's validator."""
    error = exceptions.best_match(validator.iter_errors(instance))
    if error is not None:
        raise error


def validate_metadata_with_cached_schema() -> None:
    """From now on in this process, nbgrader validates cell metadata with cached validators."""
    if getattr(BaseMetadataValidator.validate_cell, "uses_cached_schema", False):
        return

    def validate_cell(self, cell) -> None:  # BaseMetadataValidator.validate_cell of nbgrader 0.9
        if "nbgrader" not in cell.metadata:
            return
        version = cell.metadata["nbgrader"].get("schema_version", 0)
        if version < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        if version > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        cached = self.__dict__.get("_checked_validator")  # (this validator's schema, its checker)
        if cached is None or cached[0] is not self.schema:
            cached = self.__dict__["_checked_validator"] = (self.schema, _validator_for(self.schema))
        _validate(cell.metadata["nbgrader"], cached[1])

    validate_cell.uses_cached_schema = True
    BaseMetadataValidator.validate_cell = validate_cell
