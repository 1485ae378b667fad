"""Gradebook work amortised in a grading worker: fewer transactions and one engine per process.

- :class:`BatchedSaveAutoGrades`: nbgrader commits after every graded and every solution cell
  (about 30 SQLite transactions, each synced to disk, per notebook here). The scores written are
  the same; they become visible, and durable, together when the notebook's last cell is saved.
- :func:`reuse_gradebook_connections`: one engine per database URL per process.
"""
from __future__ import annotations

from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor, SaveAutoGrades


class BatchedSaveAutoGrades(SaveAutoGrades):
    """Same scores as :class:`SaveAutoGrades`, written in a single transaction."""

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.gradebook = Gradebook(self.db_url)
        with self.gradebook:
            session = self.gradebook.db
            session.commit = session.flush  # the per-cell commits become flushes ...
            try:
                nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            finally:
                del session.commit
            session.commit()  # ... and this is the one transaction
        return nb, resources


_engines: dict[str, object] = {}
_checked_courses: set[tuple[str, str]] = set()


def reuse_gradebook_connections() -> None:
    """In this process, every nbgrader ``Gradebook`` opened on a database URL shares one engine
    (one connection pool) and checks the schema and the course row once.

    nbgrader opens the gradebook about ten times per notebook, and each opening builds an
    engine, inspects the tables, runs ``create_all`` and checks the course (a third of a second
    per notebook here). A grading worker opens the same database for every submission, so only
    the first opening needs to do that work; sessions, queries and commits are unchanged.
    """
    from nbgrader import api
    from sqlalchemy.orm import scoped_session, sessionmaker

    if getattr(api.Gradebook.__init__, "reuses_connections", False):
        return
    original_init = api.Gradebook.__init__

    def __init__(self, db_url, course_id="default_course", authenticator=None):
        engine = _engines.get(db_url)
        if engine is None:
            original_init(self, db_url, course_id, authenticator)
            _engines[db_url] = self.engine
            _checked_courses.add((db_url, course_id))
            return
        self.engine = engine
        self.db = scoped_session(sessionmaker(autoflush=True, bind=engine, future=True))
        if (db_url, course_id) not in _checked_courses:
            self.check_course(course_id=course_id)
            _checked_courses.add((db_url, course_id))
        self.course_id = course_id
        self.authenticator = authenticator

    __init__.reuses_connections = True
    api.Gradebook.__init__ = __init__
