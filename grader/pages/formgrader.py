"""Settings that make nbgrader's formgrader show submissions safely (used by ``nbgrader_config.py``).

The formgrader renders the autograded notebook with ``HTMLExporter`` and the course config:
``SANITIZING_FILTERS`` (grader.pages.exporter) sanitize its markdown, HTML and SVG. Its page
header prints the student's id and names without escaping them; the template folder here
shadows nbgrader's ``formgrade_macros.html.j2`` with one that calls nbgrader's macros with those
fields escaped (:func:`escape_student_fields`).
"""
from __future__ import annotations

from html import escape
from pathlib import Path

import nbgrader.server_extensions.formgrader.handlers as formgrader_handlers

TEMPLATES = Path(__file__).with_name("templates")
NBGRADER_TEMPLATES = Path(formgrader_handlers.template_path)
NBGRADER_STATIC = Path(formgrader_handlers.static_path)
# Fields of the formgrader's resources that come from the submission or the roster.
STUDENT_FIELDS = ("student", "first_name", "last_name", "notebook_path")


def escape_student_fields(resources: dict) -> dict:
    """A copy of the formgrader's template resources with the student fields HTML-escaped."""
    escaped = dict(resources)
    for name in STUDENT_FIELDS:
        if isinstance(escaped.get(name), str):
            escaped[name] = escape(escaped[name], quote=True)
    return escaped


# HTMLExporter settings: our template folder before nbgrader's (GenerateFeedback's 'feedback' and the
# formgrader's 'formgrade' templates both live in nbgrader's), and nbgrader's folder itself so that
# the shadowing macros can import the originals as 'formgrade/formgrade_macros.html.j2'.
EXTRA_TEMPLATE_BASEDIRS = [str(TEMPLATES), str(NBGRADER_TEMPLATES)]
EXTRA_TEMPLATE_PATHS = [str(NBGRADER_TEMPLATES)]
