"""What a page costs to write and to open is bounded: the maths converted to MathML per page
(formulas, bytes of TeX, seconds) and the output one feedback page shows."""
from __future__ import annotations

from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from traitlets.config import Config

from grader.pages import markdown
from grader.pages.exporter import SANITIZING_FILTERS, FeedbackExporter
from grader.pages.markdown import MathBudget, markdown_to_html
from grader.pages.notebook import inert_notebook
from grader.pages.page_limit import page_limit_note

FORMULAS = MathBudget().formulas
MiB = 2**20


def feedback_page(*cells, **settings) -> str:
    html, _ = FeedbackExporter(**settings).from_notebook_node(new_notebook(cells=list(cells)))
    return html


def test_400_kb_of_inline_maths_in_one_cell_stays_source_text_and_the_page_stays_small():
    page = feedback_page(new_markdown_cell("$x$ " * 100_000))
    assert page.count("<math") == 0 and "$x$ $x$" in page
    assert len(page) < 2 * 400_000 + 600_000  # the text, and the template's own styles


def test_the_formulas_converted_are_bounded_per_page_not_per_cell():
    page = feedback_page(*[new_markdown_cell("$x$ " * 10) for _ in range(3 * FORMULAS // 10)])
    assert page.count("<math") == FORMULAS
    assert page.count("$x$") == 2 * FORMULAS  # the rest stays visible as its source


def test_the_formgrader_view_bounds_maths_per_page_too():
    config = Config({"HTMLExporter": {"filters": SANITIZING_FILTERS, "sanitize_html": True}})
    nb = new_notebook(cells=[new_markdown_cell("$x$ " * 10) for _ in range(3 * FORMULAS // 10)])
    html, _ = HTMLExporter(config=config).from_notebook_node(nb)
    assert html.count("<math") == FORMULAS


def test_a_formula_longer_than_the_bound_stays_escaped_source():
    tex = "a<b+" * (MathBudget().formula_bytes // 4 + 1)
    html = markdown_to_html(f"${tex}$ and $y$")
    assert html.count("<math") == 1 and f'<code class="tex">{tex.replace("<", "&lt;")}</code>' in html


def test_maths_past_the_bytes_of_tex_a_page_may_convert_stays_source():
    budget = MathBudget(tex_bytes=10)
    html = markdown_to_html("$abcdef$ $ghijkl$", budget)
    assert html.count("<math") == 1 and '<code class="tex">ghijkl</code>' in html


def test_maths_stops_being_converted_when_the_page_s_seconds_are_spent(monkeypatch):
    clock = iter(n * 0.4 for n in range(100))
    monkeypatch.setattr(markdown.time, "perf_counter", lambda: next(clock))
    html = markdown_to_html("$a$ $b$ $c$ $d$ $e$", MathBudget(seconds=1.0))
    assert html.count("<math") == 3 and '<code class="tex">d</code>' in html  # 0.4 s each: spent after 3


def test_markdown_outputs_of_an_autograded_notebook_share_one_maths_bound(monkeypatch):
    monkeypatch.setattr(markdown.time, "perf_counter", lambda: 0.0)  # only the count bound, not the seconds
    cells = [new_code_cell(outputs=[new_output("display_data", data={"text/markdown": "$x$ " * 10})])
             for _ in range(3 * FORMULAS // 10)]
    nb = new_notebook(cells=cells)
    inert_notebook(nb)
    assert sum(o.data["text/html"].count("<math") for c in nb.cells for o in c.outputs) == FORMULAS


def test_a_feedback_page_shows_at_most_its_output_limit_and_says_what_it_left_off():
    cells = [new_code_cell(outputs=[new_output("stream", name="stdout", text=f"{n}" * MiB)]) for n in range(10)]
    page = feedback_page(*cells, max_output_chars=3 * MiB)
    assert len(page) < 4 * MiB
    assert page.count(page_limit_note(3 * MiB).strip()) == 7 and "3" * MiB not in page and "2" * MiB in page

