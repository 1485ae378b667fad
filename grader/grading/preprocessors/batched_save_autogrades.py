"""``BatchedSaveAutoGrades``: nbgrader's ``SaveAutoGrades`` in one transaction per notebook.

nbgrader commits after every graded and every solution cell (about 30 SQLite transactions, each
synced to disk, per notebook here). The scores written are the same; they become visible, and
durable, together when the notebook's last cell is saved. Each cell's grade and comment rows are
read in one query per kind (:func:`grader.grading.gradebook_lookups.answer_from_one_query`).
``preprocess`` is nbgrader 0.9's ``SaveAutoGrades.preprocess`` with the commits deferred (guarded
like the changes of ``grader.grading.nbgrader_compat``).
"""
from __future__ import annotations

from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor, SaveAutoGrades

from grader.grading.gradebook_lookups import answer_from_one_query


class BatchedSaveAutoGrades(SaveAutoGrades):
    """Same scores as :class:`SaveAutoGrades`, written in a single transaction."""

    reads = {"resources.nbgrader", "cell.metadata.nbgrader: from the gradebook", "cell.outputs: judged",
             "gradebook: submission"}
    writes = {"gradebook: scores"}
    timed_as = "gradebook"

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.gradebook = Gradebook(self.db_url)
        with self.gradebook:
            # SaveAutoGrades looks up grades and comments only (its grades' cells are never loaded).
            answer_from_one_query(self.gradebook, self.notebook_id, self.assignment_id, self.student_id,
                                  cell_lookups=False)
            session = self.gradebook.db
            session.commit = session.flush  # the per-cell commits become flushes ...
            try:
                nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            finally:
                del session.commit
            session.commit()  # ... and this is the one transaction
        return nb, resources
