"""The page a student gets instead of graded feedback: not graded, refused, waiting, held.

Every such page has one form: what happened (the headline), why (the detail, which may quote the
submitted file), and what to do about it. nbgrader writes no feedback for a notebook it could not
read, so without the ungradable page the reason would sit only in the course's private
``.grader/ungradable/`` (``grader.grading.ungradable_record``), where students never look. The
grading service (``grader.service.pages``) writes the other states with the same form. Pages are
rendered from the autoescaped template ``page/status.html.j2`` (``grader.pages.page_templates``),
so every piece of text is escaped and the page carries the course's Content-Security-Policy.
"""
from __future__ import annotations

from pathlib import Path

from grader.course import ASSIGNMENTS, Course, notebook_name
from grader.pages.page_templates import render

WHAT_TO_DO = (
    "Open your notebook in Jupyter and check that it opens without an error. If it does, save it "
    "(File → Save Notebook) and submit again. If it does not open, fetch the assignment again, copy "
    "your work into the fresh notebook, save it and submit that one. Hand in the .ipynb file that "
    "Jupyter saved, not a renamed, exported or hand-edited file."
)
NOT_GRADED = "not graded"
NOT_GRADED_LEAD = "Your submission could not be graded, so every test of this assignment scored 0 points for now."

#: The template of every status page (under ``grader/pages/templates/``; it extends the base page).
TEMPLATE = "page/status.html.j2"


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
    handed = None
    if student is not None and handed_in is not None:
        handed = {"student": student, "assignment": assignment, "timestamp": handed_in}
    return render(TEMPLATE, title=title, handed_in=handed, lead=lead or headline[:1].upper() + headline[1:] + ".",
                  detail=detail.strip(), todo=todo, colour="#d9a400" if waiting else "#b3261e")


def ungradable_page(assignment: str, reason: str, student: str | None = None, handed_in: str | None = None) -> str:
    """The page of a submission that could not be graded; ``reason`` is escaped."""
    return status_page(assignment, NOT_GRADED, reason, WHAT_TO_DO, lead=NOT_GRADED_LEAD,
                       student=student, handed_in=handed_in)


def write_ungradable_page(course: Course, student: str, assignment: str, reason: str) -> Path:
    """Write the page where ``nbgrader generate_feedback`` would put ``student``'s feedback; its path."""
    paths = course.feedback_pages(student, assignment)  # one per notebook: nbgrader looks for each
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    for path in paths:
        path.write_text(ungradable_page(assignment, reason), encoding="utf-8")
    return paths[0]
