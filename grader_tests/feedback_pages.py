"""Feedback pages as ``FeedbackExporter`` writes them, for tests that need a real one."""
from __future__ import annotations

import nbformat

from grader.pages.exporter import FeedbackExporter


def feedback_page(*cells, title: str = "Assignment 02", assignment: str = "02_softmax",
                  language: str = "en") -> str:
    """The page of a notebook of ``cells`` (markdown cells for strings) with a score of 1 / 2."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(c) if isinstance(c, str) else c
                                               for c in cells])
    resources = {"nbgrader": {"notebook": "softmax", "assignment": assignment, "student": "ada", "score": 1.0,
                              "max_score": 2.0, "late_penalty": 0.0},
                 "assignment_title": title, "language": language}
    html, _ = FeedbackExporter().from_notebook_node(notebook, resources)
    return html
