"""``nbgrader export``'s ``grades.csv``, written through the course's CSV writer.

nbgrader's own ``CsvExportPlugin`` joins the values with commas as they are: a student's name
``=HYPERLINK(...)`` reaches the spreadsheet as a formula, and a name with a comma shifts every
column after it. ``GradesCsvExport`` (the course's ``ExportApp.plugin_class``) writes the same
columns and rows, with the same options (``--to``, ``--student``, ``--assignment``), through
``grader.reporting.csv_files``: quoted where needed, text a spreadsheet would run defused, scores
as numbers, and the file complete or not at all.
"""
from __future__ import annotations

from typing import Iterator

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import CsvExportPlugin

from grader.reporting.csv_files import write_csv_rows

COLUMNS = ("assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score")


class GradesCsvExport(CsvExportPlugin):
    """nbgrader's CSV export (same columns, rows and options), written safely for spreadsheets."""

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "grades.csv"
        self.log.info("Exporting grades to %s", dest)
        write_csv_rows(dest, [COLUMNS, *self.rows(gradebook)])

    def rows(self, gradebook: Gradebook) -> Iterator[list]:
        """One row per (assignment, student) of the gradebook, as nbgrader's export has them."""
        students = {str(s) for s in self.student}
        assignments = {str(a) for a in self.assignment}
        for assignment in gradebook.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for student in gradebook.students:
                if students and student.id not in students:
                    continue
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:  # nothing handed in: zero, as in nbgrader's export
                    timestamp, raw, penalty, score = "", 0.0, 0.0, 0.0
                else:
                    timestamp, raw, penalty = submission.timestamp, submission.score, submission.late_submission_penalty
                    score = max(0.0, raw - (penalty or 0.0))
                yield ["" if value is None else value for value in (
                    assignment.name, assignment.duedate, timestamp, student.id, student.last_name,
                    student.first_name, student.email, raw, penalty, score, assignment.max_score)]
