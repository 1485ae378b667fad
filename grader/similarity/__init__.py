"""Which submissions were written together: cell-by-cell code similarity that ignores the template.

For instructors only: nothing here is written where a student's page or notebook can show it.

- ``cells``: every submission's solution cells (nbgrader ``grade_id``) and the released ones,
  read from the course folder; ungradable or unreadable submissions are skipped and named;
- ``normalise``: a cell as tokens that copying does not change (template, docstrings, comments,
  names, literals and the order of independent statements removed);
- ``winnowing``: token k-grams selected by winnowing, as MOSS does;
- ``compare``: every pair of submissions, cell by cell, weighted by how rare the shared code is
  in the class; the pairs worth a look;
- ``report``: a pair's cells side by side with the matching parts marked, the CSV rows and the
  terminal table.
"""
from __future__ import annotations

from grader.course import Course
from grader.similarity.cells import read_class
from grader.similarity.compare import SimilarityReport, compare_class


def similar_pairs(course: Course, assignment: str) -> SimilarityReport:
    """Compare every pair of ``assignment``'s submissions in ``course`` (offline; runs no code)."""
    return compare_class(read_class(course, assignment))


__all__ = ["SimilarityReport", "similar_pairs"]
