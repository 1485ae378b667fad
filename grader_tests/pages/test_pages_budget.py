"""Page work is bounded: code past a page's highlighting budget is shown escaped, the highlighting
cache is bounded in characters, and a hand-in with a 4 MB code cell gets its page in seconds."""
from __future__ import annotations

import time

import nbformat
from nbformat.v4 import new_code_cell

from grader.pages.exporter import HIGHLIGHT_CACHE_CHARACTERS, HighlightBudget, RememberingHighlight, _highlighted

HOSTILE_LINE = "s = '<script>alert(1)</script>'\n"


def test_code_past_the_page_s_highlighting_budget_is_shown_escaped():
    highlight = RememberingHighlight(pygments_lexer="ipython3", budget=HighlightBudget(characters=100))
    coloured = highlight("x = 1\n")
    escaped = highlight(HOSTILE_LINE * 10)
    assert '<span class="n">x</span>' in coloured
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in escaped and "<script>" not in escaped
    assert '<span class="n">' not in escaped and escaped.startswith('<div class=" highlight hl-ipython3"><pre>')


def test_a_cell_longer_than_the_bound_per_cell_is_never_highlighted():
    budget = HighlightBudget(cell_characters=1000)
    html = RememberingHighlight(pygments_lexer="ipython3", budget=budget)("y = 2\n" * 200)
    assert '<span class="n">' not in html and budget.characters == HighlightBudget().characters


def test_no_highlighting_once_the_page_s_seconds_are_spent():
    budget = HighlightBudget(seconds=0.0)
    assert '<span class="n">' not in RememberingHighlight(pygments_lexer="ipython3", budget=budget)("z = 3\n")


def test_the_highlighting_cache_holds_a_bounded_number_of_characters():
    highlight = RememberingHighlight(pygments_lexer="text", budget=HighlightBudget(characters=2**40, seconds=1e9))
    for n in range(600):  # some 36 MiB of HTML, past the cache's bound
        highlight(f"{n}\n" + "x" * 60_000)
    assert _highlighted.cache.currsize <= HIGHLIGHT_CACHE_CHARACTERS
    assert len(_highlighted.cache) < 600


def test_a_hand_in_with_a_4_mb_code_cell_gets_a_bounded_escaped_page_in_seconds(course):
    from grader.grading import nbgrader_apps

    source = HOSTILE_LINE * (4 * 2**20 // len(HOSTILE_LINE))
    notebook = nbformat.read(course.release_notebook("02_softmax"), as_version=4)
    for cell in notebook.cells:  # as GetGrades leaves them
        cell.metadata.get("nbgrader", {}).update(score=0.0, comment=None)
    app = nbgrader_apps.warm_feedback_app(course)
    app.rehearse(course)  # a worker's warm-up; the page then costs what a student's page costs
    from nbgrader.preprocessors import GetGrades

    for step in app._steps:  # the scores are on the cells already: no gradebook needed
        step.enabled = step.enabled and not isinstance(step, GetGrades)
    notebook.cells.append(new_code_cell(source))
    started = time.process_time()
    page, _ = app.exporter.from_notebook_node(notebook, {"nbgrader": {
        "notebook": "softmax", "assignment": "02_softmax", "student": "", "score": 0.0, "max_score": 0.0,
        "late_penalty": 0.0}})
    seconds = time.process_time() - started
    assert seconds < 8, f"{seconds:.1f} s of worker time"
    assert len(page) < 2.5 * len(source) + 4 * 2**20
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4 * 2**20 // len(HOSTILE_LINE)
    assert "<script>alert" not in page
