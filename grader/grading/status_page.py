"""The page a student gets instead of graded feedback: not graded, refused, waiting, held.

Every such page has one form: what happened (the headline), why (the detail, which may quote the
submitted file), and what to do about it. nbgrader writes no feedback for a notebook it could not
read, so without the ungradable page the reason would sit only in the course's private
``.grader/ungradable/`` (``grader.grading.ungradable_record``), where students never look. The
grading service (``grader.service.pages``) writes the other states with the same form. Pages are
plain HTML with every piece of text escaped.
"""
from __future__ import annotations

import html
from pathlib import Path

from grader.course import ASSIGNMENTS, Course, notebook_name
from grader.fonts import PAGE_FONT_STACK
from grader.pages.accessibility import PAGE_LANGUAGE

WHAT_TO_DO = (
    "Open your notebook in Jupyter and check that it opens without an error. If it does, save it "
    "(File → Save Notebook) and submit again. If it does not open, fetch the assignment again, copy "
    "your work into the fresh notebook, save it and submit that one. Hand in the .ipynb file that "
    "Jupyter saved, not a renamed, exported or hand-edited file."
)
NOT_GRADED = "not graded"
NOT_GRADED_LEAD = "Your submission could not be graded, so every test of this assignment scored 0 points for now."

PAGE = """<!DOCTYPE html>
<html lang="{language}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: {font_stack}; max-width: 48em; margin: 2em auto; padding: 0 1em; line-height: 1.5; }}
.reason {{ white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; border-left: 4px solid {colour};
  padding: 0.6em 0.9em; }}
.todo {{ background: #fff4e5; border-left: 4px solid #e08a00; padding: 0.6em 0.9em; }}
</style>
</head>
<body>
<main>
<h1>{title}</h1>
{handed_in}<p>{lead}</p>
<h2>Why</h2>
<p class="reason">{detail}</p>
<h2>What to do</h2>
<p class="todo">{todo}</p>
</main>
</body>
</html>
"""


def status_page(assignment: str, headline: str, detail: str, todo: str, lead: str = "",
                student: str | None = None, handed_in: str | None = None, waiting: bool = False) -> str:
    """The HTML of one status page (every value escaped).

    ``headline``: a few words (``not graded``, ``waiting to be graded``); ``detail``: why, a sentence
    or two; ``todo``: what the student does next; ``lead``: the sentence under the title (the
    headline when empty); ``student`` and ``handed_in`` (nbgrader's timestamp text) add a line that
    names the hand-in; ``waiting`` marks a state that will change by itself.
    """
    known = assignment in ASSIGNMENTS  # a refused folder may name an assignment the course lacks
    title = f"{notebook_name(assignment)}.ipynb ({assignment}): {headline}" if known else f"{assignment}: {headline}"
    handed = ""
    if student is not None and handed_in is not None:
        handed = (f"<p>Student <b>{html.escape(student)}</b>, assignment <b>{html.escape(assignment)}</b>, "
                  f"handed in {html.escape(handed_in)}.</p>\n")
    return PAGE.format(language=PAGE_LANGUAGE, font_stack=PAGE_FONT_STACK, title=html.escape(title), handed_in=handed,
                       lead=html.escape(lead or headline[:1].upper() + headline[1:] + "."),
                       detail=html.escape(detail.strip()), todo=html.escape(todo),
                       colour="#d9a400" if waiting else "#b3261e")


def ungradable_page(assignment: str, reason: str, student: str | None = None, handed_in: str | None = None) -> str:
    """The page of a submission that could not be graded; ``reason`` is escaped."""
    return status_page(assignment, NOT_GRADED, reason, WHAT_TO_DO, lead=NOT_GRADED_LEAD,
                       student=student, handed_in=handed_in)


def write_ungradable_page(course: Course, student: str, assignment: str, reason: str) -> Path:
    """Write the page where ``nbgrader generate_feedback`` would put ``student``'s feedback; its path."""
    path = course.feedback_page(student, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ungradable_page(assignment, reason), encoding="utf-8")
    return path
