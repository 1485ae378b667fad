"""Every process-wide change the grader makes to nbgrader's classes, in one place.

Each change is one function below, named after what it does; each is idempotent and returns
nothing. They were written against the nbgrader versions in ``PATCHED_FOR`` (the same range
``pyproject.toml`` pins): every function first calls :func:`check_nbgrader_version`, which refuses
another version with an error naming it. ``grader_tests/grading/test_nbgrader_compat.py`` keeps a hash of
the source of every nbgrader function a change replaces or relies on, and fails, naming the change
to re-read, when nbgrader's code differs.

- :func:`declare_display_data_priority_configurable` (``NbGraderPreprocessor``'s trait metadata):
  a warning less per preprocessor on every page.
- :func:`reuse_gradebook_connections` (``nbgrader.api.Gradebook.__init__`` and ``close``): one
  database engine per URL and process, and an SQLite gradebook's connection kept open between uses.
- :func:`validate_metadata_with_cached_schema` (``BaseMetadataValidator.validate_cell``): the
  metadata schema checked once per process, not once per cell.

Subclasses that re-implement an nbgrader method without changing nbgrader
(``BatchedSaveAutoGrades.preprocess``, the warm feedback app's ``start``) are guarded by the same
test.
"""
from __future__ import annotations

import importlib.metadata
import os
from functools import cache

from packaging.specifiers import SpecifierSet
from packaging.version import Version

PATCHED_FOR = SpecifierSet(">=0.9.6,<0.10")  # the nbgrader versions whose code the changes below were read against


class UnsupportedNbgraderVersion(RuntimeError):
    """The installed nbgrader is outside ``PATCHED_FOR``."""


def check_nbgrader_version(installed: str | None = None) -> str:
    """The installed nbgrader version, or :class:`UnsupportedNbgraderVersion` when it is outside ``PATCHED_FOR``.

    ``installed``: a version string to check instead of the installed one.
    """
    version = installed if installed is not None else _installed_version()
    if not _patched_for(version):
        raise UnsupportedNbgraderVersion(
            f"nbgrader {version} is installed, but grader.grading.nbgrader_compat changes nbgrader's "
            f"classes as nbgrader {PATCHED_FOR} needs. Install a version in that range "
            f"(pip install 'nbgrader{PATCHED_FOR}'), or re-read every change in "
            "grader/grading/nbgrader_compat.py against the new nbgrader, then widen PATCHED_FOR and "
            "the pin in pyproject.toml and update the hashes in grader_tests/grading/test_nbgrader_compat.py.")
    return version


@cache
def _installed_version() -> str:
    """nbgrader's version, read from its distribution's metadata once per process: a gradebook
    opened per notebook asks each time (about 1 ms a read)."""
    return importlib.metadata.version("nbgrader")


@cache
def _patched_for(version: str) -> bool:
    return Version(version) in PATCHED_FOR


def declare_display_data_priority_configurable() -> None:
    """Tag ``NbGraderPreprocessor.display_data_priority`` ``config=True``, as nbconvert's own declaration is.

    nbgrader's preprocessors declare NbConvertBase's configurable ``display_data_priority`` again
    without ``config=True``, so the HTML exporters' default config (``NbConvertBase.display_data_priority``)
    made traitlets warn "not recognized" for each of them on every page; none of them reads it.
    """
    from nbgrader.preprocessors import NbGraderPreprocessor

    check_nbgrader_version()
    NbGraderPreprocessor.class_traits()["display_data_priority"].tag(config=True)


# database URL -> (its SQLAlchemy engine, (device, inode) of its SQLite file or None), in this process
_engines: dict[str, tuple[object, tuple[int, int] | None]] = {}
_checked_courses: set[tuple[str, str]] = set()  # (database URL, course id) whose course row was checked


def reuse_gradebook_connections() -> None:
    """Replace ``nbgrader.api.Gradebook.__init__`` and ``close``: every ``Gradebook`` opened on a
    database URL in this process shares one engine (one connection pool) and checks the schema and
    the course row once; closing an SQLite gradebook returns its connection to that pool.

    nbgrader opens the gradebook about fifteen times per notebook, and each opening builds an engine,
    inspects the tables, runs ``create_all`` and checks the course (a third of a second per notebook
    here); each closing disposes of the engine, so the next opening connects again, and the last
    connection to a write-ahead-logged file checkpoints and truncates its log as it closes. A grading
    worker opens the same database for every submission, so only the first opening needs to do that
    work; sessions, queries and commits are unchanged. An SQLite file that was replaced since
    (another inode at its path) gets a new engine; a database server's connections are closed on
    every ``close``, as nbgrader does. The replacement sets the attributes nbgrader 0.9's
    ``__init__`` sets (``engine``, ``db``, ``course_id``, ``authenticator``).
    """
    from nbgrader import api
    from sqlalchemy.engine import make_url
    from sqlalchemy.orm import scoped_session, sessionmaker

    check_nbgrader_version()
    if getattr(api.Gradebook.__init__, "reuses_connections", False):
        return
    original_init = api.Gradebook.__init__

    databases: dict[str, str | None] = {}  # URL -> the SQLite file it names, as SQLite opens it

    def sqlite_identity(db_url: str) -> tuple[int, int] | None:
        """(device, inode) of the SQLite file ``db_url`` names; None for a server database or no file yet."""
        if db_url not in databases:
            url = make_url(db_url)
            named = url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
            databases[db_url] = url.database if named else None
        try:
            stat = os.stat(databases[db_url]) if databases[db_url] is not None else None
        except OSError:
            return None
        return None if stat is None else (stat.st_dev, stat.st_ino)

    def __init__(self, db_url, course_id="default_course", authenticator=None):
        identity = sqlite_identity(db_url)
        engine, known_identity = _engines.get(db_url, (None, None))
        if engine is None or identity != known_identity:
            if engine is not None:
                engine.dispose()
                _checked_courses.difference_update({key for key in _checked_courses if key[0] == db_url})
            original_init(self, db_url, course_id, authenticator)
            _engines[db_url] = (self.engine, sqlite_identity(db_url))
            _checked_courses.add((db_url, course_id))
            return
        self.engine = engine
        self.db = scoped_session(sessionmaker(autoflush=True, bind=engine, future=True))
        if (db_url, course_id) not in _checked_courses:
            self.check_course(course_id=course_id)
            _checked_courses.add((db_url, course_id))
        self.course_id = course_id
        self.authenticator = authenticator

    def close(self):
        self.db.remove()
        if not any(engine is self.engine and identity is not None for engine, identity in _engines.values()):
            self.engine.dispose()

    __init__.reuses_connections = True
    api.Gradebook.__init__ = __init__
    api.Gradebook.close = close


def validate_metadata_with_cached_schema() -> None:
    """Replace ``BaseMetadataValidator.validate_cell``: cell metadata is checked with one validator
    per schema and process (``grader.grading.metadata_validation``).

    nbgrader checks every cell's ``nbgrader`` metadata with ``jsonschema.validate(metadata, schema)``,
    which first validates the schema itself against the meta-schema and builds a new validator,
    every time (about 1.8 s of a 40-notebook run). The replacement is nbgrader 0.9's method with
    that call swapped for a cached validator: the same schema-version errors, and the same
    best-matching ``ValidationError``.
    """
    from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError

    from grader.grading.metadata_validation import raise_best_error, validator_for

    check_nbgrader_version()
    if getattr(BaseMetadataValidator.validate_cell, "uses_cached_schema", False):
        return

    def validate_cell(self, cell) -> None:
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
            cached = self.__dict__["_checked_validator"] = (self.schema, validator_for(self.schema))
        raise_best_error(cell.metadata["nbgrader"], cached[1])

    validate_cell.uses_cached_schema = True
    BaseMetadataValidator.validate_cell = validate_cell
