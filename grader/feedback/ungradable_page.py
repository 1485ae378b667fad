"""The feedback page of a submission that could not be graded: the reason, and what to do about it.

nbgrader writes no feedback for a notebook it could not read, so without this page the reason would
sit only in ``autograded/<student>/<assignment>/UNGRADABLE.txt``, where students never look. The
page is plain HTML with every piece of text escaped (the reason can quote the submitted file).
"""
from __future__ import annotations

import html
from pathlib import Path

from grader.course import Course, notebook_name
from grader.fonts import PAGE_FONT_STACK

WHAT_TO_DO = (
    "Open your notebook in Jupyter and check that it opens without an error. If it does, save it "
    "(File → Save Notebook) and submit again. If it does not open, fetch the assignment again, copy "
    "your work into the fresh notebook, save it and submit that one. Hand in the .ipynb file that "
    "Jupyter saved, not a renamed, exported or hand-edited file."
)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: {font_stack}; max-width: 48em; margin: 2em auto; padding: 0 1em; line-height: 1.5; }}
.reason {{ white-space: pre-wrap; overflow-wrap: anywhere; background: #fdecea; border-left: 4px solid #b3261e;
  padding: 0.6em 0.9em; }}
.todo {{ background: #fff4e5; border-left: 4px solid #e08a00; padding: 0.6em 0.9em; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>Your submission could not be graded, so every test of this assignment scored 0 points for now.</p>
<h2>Why</h2>
<p class="reason">{reason}</p>
<h2>What to do</h2>
<p class="todo">{what_to_do}</p>
</body>
</html>
"""


def ungradable_page(assignment: str, reason: str) -> str:
    """The page's HTML; ``reason`` is escaped."""
    title = f"{notebook_name(assignment)}.ipynb ({assignment}): not graded"
    return PAGE.format(font_stack=PAGE_FONT_STACK, title=html.escape(title), reason=html.escape(reason.strip()),
                       what_to_do=html.escape(WHAT_TO_DO))


def write_ungradable_page(course: Course, student: str, assignment: str, reason: str) -> Path:
    """Write the page where ``nbgrader generate_feedback`` would put ``student``'s feedback; its path."""
    path = course.feedback_page(student, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ungradable_page(assignment, reason), encoding="utf-8")
    return path
