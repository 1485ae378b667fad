"""nbgrader's SaveAutoGrades with one gradebook commit per notebook instead of one per cell.

nbgrader commits after every graded and every solution cell (about 30 SQLite transactions, each
synced to disk, per notebook here). The scores written are the same; they become visible, and
durable, together when the notebook's last cell has been saved.
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
