"""nbgrader's cell-metadata validation with a cached validator: same verdicts, schema checked once."""
from __future__ import annotations

import jsonschema
import pytest
from nbformat.v4 import new_code_cell
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.nbgraderformat.common import SchemaTooOldError

from grader.grading.nbgrader_compat import validate_metadata_with_cached_schema


@pytest.fixture(scope="module", autouse=True)
def cached_validation():
    validate_metadata_with_cached_schema()


def graded_cell(**changes):
    meta = {"schema_version": 3, "grade": True, "solution": False, "locked": True,
            "grade_id": "test_x", "points": 2.0}
    meta.update(changes)
    return new_code_cell("assert True", metadata={"nbgrader": meta})


def test_valid_metadata_passes():
    MetadataValidator().validate_cell(graded_cell())


def test_metadata_of_the_wrong_type_raises_the_same_error_as_jsonschema():
    cell = graded_cell(points="two")
    with pytest.raises(jsonschema.ValidationError) as cached:
        MetadataValidator().validate_cell(cell)
    with pytest.raises(jsonschema.ValidationError) as uncached:
        jsonschema.validate(cell.metadata.nbgrader, MetadataValidator().schema)
    assert cached.value.message == uncached.value.message


def test_an_old_schema_version_is_still_refused():
    with pytest.raises(SchemaTooOldError):
        MetadataValidator().validate_cell(graded_cell(schema_version=1))


def test_the_schema_itself_is_checked_once_for_many_cells(monkeypatch):
    validator = MetadataValidator()
    validator.validate_cell(graded_cell())  # the first check of this schema may happen here
    cls = jsonschema.validators.validator_for(validator.schema)
    checks = []
    monkeypatch.setattr(cls, "check_schema", classmethod(lambda c, schema, **kw: checks.append(schema)))
    for i in range(50):
        validator.validate_cell(graded_cell(grade_id=f"test_{i}"))
    assert checks == []
