"""The sanitizer, the maths renderer, the CSP, the scanner and ``grader check-pages`` on their own
(no nbgrader, no browser): what they remove, what they keep."""
from __future__ import annotations

import base64
import io
import xml.dom.minidom

import matplotlib
import nbformat
import pytest
from bs4 import BeautifulSoup
from feedback_pages import feedback_page
from injection_harness import MARK, load_injections

from grader.cli import main as grader_main
from grader.pages import CONTENT_SECURITY_POLICY, markdown_to_html, sanitize_fragment, sanitize_svg
from grader.pages.exporter import FeedbackExporter
from grader.pages.notebook import REMOVED_NOTE, has_raw_html, inert_notebook
from grader.pages.scan import find_active_cells, find_active_content, scan_course

matplotlib.use("Agg")

ACTIVE_FRAGMENTS = {
    "script element": "<script>top.PWNED=1</script>",
    "event handler": "<img src=x onerror=top.PWNED=1>",
    "svg onload": "<svg onload=top.PWNED=1></svg>",
    "javascript link": '<a href="javascript:top.PWNED=1">x</a>',
    "spaced javascript link": '<a href=" jAvAsCrIpT:top.PWNED=1">x</a>',
    "iframe": '<iframe src="https://example.org"></iframe>',
    "iframe srcdoc": '<iframe srcdoc="<script>x</script>"></iframe>',
    "object": '<object data="x.swf"></object>',
    "embed": '<embed src="x.svg">',
    "form": '<form action="https://example.org"><input></form>',
    "meta refresh": '<meta http-equiv="refresh" content="0;url=javascript:1">',
    "base": '<base href="https://example.org/">',
    "remote image": '<img src="https://example.org/pixel.png">',
    "remote style sheet": '<link rel="stylesheet" href="https://example.org/a.css">',
    "style import": "<style>@import url(https://example.org/a.css)</style>",
    "style background": "<div style=\"background:url('https://example.org/b.png')\">x</div>",
    "mutation xss": "<math><mtext><table><mglyph><style><img src=x onerror=top.PWNED=1>",
    "data url link": '<a href="data:text/html,<script>x</script>">x</a>',
}


@pytest.mark.parametrize("fragment", ACTIVE_FRAGMENTS.values(), ids=ACTIVE_FRAGMENTS.keys())
def test_the_scanner_finds_each_kind_of_active_content(fragment):
    assert find_active_content(fragment) != []


@pytest.mark.parametrize("fragment", ACTIVE_FRAGMENTS.values(), ids=ACTIVE_FRAGMENTS.keys())
def test_sanitized_fragment_holds_no_active_content(fragment):
    cleaned = sanitize_fragment(fragment)
    assert find_active_content(cleaned) == [] and "PWNED" not in cleaned.replace("top.PWNED=1</", "")


def test_sanitizer_keeps_text_tables_lists_code_inline_images_and_maths():
    fragment = ('<h3>Result</h3><p><b>bold</b> <em>it</em> <code>x &lt; y</code></p><ul><li>one</li></ul>'
                '<table class="dataframe"><thead><tr><th>d_k</th></tr></thead><tbody><tr>'
                '<td style="text-align: right;">64</td></tr></tbody></table>'
                '<img src="data:image/png;base64,iVBORw0KGgo=" alt="figure">'
                '<math display="block"><mfrac><mi>a</mi><mi>b</mi></mfrac></math>'
                '<a href="https://example.org/notes">notes</a>')
    soup = BeautifulSoup(sanitize_fragment(fragment), "html.parser")
    assert [t.name for t in soup.find_all(["h3", "b", "em", "code", "li", "th", "td", "img", "math", "mfrac", "a"])] \
        == ["h3", "b", "em", "code", "li", "th", "td", "img", "math", "mfrac", "a"]
    assert soup.img["src"].startswith("data:image/png") and soup.td["style"] == "text-align:right"
    assert soup.a["href"] == "https://example.org/notes" and "noopener" in soup.a["rel"]


def _matplotlib_svg() -> str:
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots()
    axes.plot([1, 2, 3], label="line")
    axes.legend()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    plt.close(figure)
    return buffer.getvalue()


def test_sanitized_matplotlib_svg_keeps_its_shapes_and_is_still_an_svg_document():
    original = _matplotlib_svg()
    cleaned = sanitize_svg(original)
    document = xml.dom.minidom.parseString(cleaned)  # an <img> parses it as XML: namespaces must be declared
    assert document.documentElement.getAttribute("xmlns") == "http://www.w3.org/2000/svg"
    assert len(document.getElementsByTagName("path")) == original.count("<path")
    assert len(document.getElementsByTagName("use")) == original.count("<use")


def test_sanitized_svg_has_no_script_handlers_foreign_objects_or_external_references():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="x()">'
           '<script>x()</script><foreignObject><img src="x" onerror="x()"/></foreignObject>'
           '<image href="https://example.org/a.png"/><use xlink:href="https://example.org/s.svg#a"/>'
           '<a xlink:href="javascript:x()"><text>t</text></a><rect fill="url(https://example.org/p)"/></svg>')
    cleaned = sanitize_svg(svg)
    assert find_active_content(cleaned) == []
    assert "example.org" not in cleaned and "x()" not in cleaned


def test_markdown_maths_becomes_mathml_and_unknown_tex_stays_visible():
    html = markdown_to_html(r"Scale by $\frac{1}{\sqrt{d_k}}$: $$\sum_i p_i = 1$$ and $\notacommand{$")
    soup = BeautifulSoup(html, "html.parser")
    assert [m["display"] for m in soup.find_all("math")] == ["inline", "block"]
    assert soup.find("msqrt") is not None
    assert soup.find("code", class_="tex").get_text() == r"\notacommand{"


def test_markdown_keeps_comparisons_in_code_and_maths():
    soup = BeautifulSoup(markdown_to_html("`a < b` and $a < b$"), "html.parser")
    assert soup.code.get_text() == "a < b" and soup.find("mo").get_text() == "<"


@pytest.mark.parametrize("injection", [i for i in load_injections() if i.markdown], ids=lambda i: i.name)
def test_markdown_payloads_of_the_corpus_render_inert(injection):
    for text in injection.markdown:
        text = text.replace("$mark", MARK)
        assert find_active_content(markdown_to_html(text)) == []


def test_the_course_policy_forbids_script_frames_and_every_remote_resource():
    directives = dict(d.strip().split(" ", 1) for d in CONTENT_SECURITY_POLICY.split(";"))
    assert directives["default-src"] == "'none'" and directives["script-src"] == "'none'"
    assert directives["img-src"] == "data:" and directives["base-uri"] == "'none'"


def test_a_feedback_pages_style_drops_the_css_rules_that_load_files():
    css = FeedbackExporter().page_style({"inlining": {"css": [
        "@font-face{font-family:I;src:url(../fonts/i.woff)}@font-face{font-family:J;src:url(data:font/woff;base64,AA==)}"
        "p{color:red}"]}})
    assert "fonts/i.woff" not in css and "glyphicons" not in css
    assert "data:font/woff" in css and "color:red" in css


def _notebook_with_every_output() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    cell = nbformat.v4.new_code_cell("x")
    outputs = [
        {"application/javascript": "top.PWNED=1"},
        {"text/html": "<b>kept</b><script>top.PWNED=1</script>", "text/plain": "html"},
        {"image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg' onload='top.PWNED=1'><circle r='2'/></svg>"},
        {"text/markdown": "**md** <img src=x onerror=top.PWNED=1>"},
        {"application/vnd.jupyter.widget-view+json": {"model_id": "a"}, "text/plain": "widget"},
        {"image/png": "iVBORw0KGgo=", "text/plain": "figure"},
        {"text/latex": r"$\frac{a}{b}$"},
    ]
    cell.outputs = [nbformat.v4.new_output("display_data", data=data) for data in outputs]
    cell.outputs.append(nbformat.v4.new_output("error", ename="E", evalue="<script>x</script>", traceback=[]))
    nb.cells = [nbformat.v4.new_markdown_cell("Fine: $a < b$ and `x < y`"),
                nbformat.v4.new_markdown_cell("Bad <script>top.PWNED=1</script>"), cell]
    return nb


def test_inert_notebook_removes_or_sanitizes_every_active_output_and_keeps_the_rest():
    nb = _notebook_with_every_output()
    assert len(find_active_cells(nb)) >= 6
    changes = inert_notebook(nb)
    assert find_active_cells(nb) == [] and len(changes) == 4  # widgets, markdown, javascript, widget view
    data = [output.get("data", {}) for output in nb.cells[2].outputs]
    assert data[0] == {"text/plain": REMOVED_NOTE.format(types="application/javascript")}
    assert data[1]["text/html"] == "<b>kept</b>" and "circle" in data[2]["image/svg+xml"]
    assert "<strong>md</strong>" in data[3]["text/html"] and "text/markdown" not in data[3]
    assert data[4] == {"text/plain": "widget"} and data[5]["image/png"] == "iVBORw0KGgo=" and data[6]
    assert nb.cells[0].source == "Fine: $a < b$ and `x < y`"  # inert markdown is left as written
    assert "script" not in nb.cells[1].source and "widgets" not in nb.metadata



@pytest.mark.parametrize("markdown, raw", [
    ("Bad <script>top.PWNED=1</script>", True),
    ("<div onclick='x()'>\nblock\n</div>", True),
    ("inline <b>bold</b> text", True),
    ("Fine: $a < b$ and `x < y`", False),
    ("an entity, &lt;script&gt;, is text", False),
    ("no markup at all", False),
])
def test_markdown_holds_raw_html_exactly_when_its_syntax_tree_has_an_html_node(markdown, raw):
    assert has_raw_html(markdown) is raw
    assert has_raw_html(markdown) is raw  # and again, from what was kept

def _course_with_pages(root, page_html: str):
    (root / "nbgrader_config.py").write_text("", encoding="utf-8")
    page = root / "feedback" / "alice" / "02_softmax" / "softmax.html"
    page.parent.mkdir(parents=True)
    page.write_text(page_html, encoding="utf-8")
    notebook = root / "autograded" / "alice" / "02_softmax" / "softmax.ipynb"
    notebook.parent.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("fine")]), notebook)
    return page


def test_check_pages_reports_each_active_file_and_exits_non_zero(tmp_path, capsys):
    _course_with_pages(tmp_path, "<html><body><p>hi</p><img src=x onerror=alert(1)></body></html>")
    assert grader_main(["check-pages", "--course", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "feedback/alice/02_softmax/softmax.html" in out and "onerror" in out
    assert "autograded/alice" not in out and "2 file(s) checked, 1 with active content" in out


def test_check_pages_exits_zero_for_an_inert_course(tmp_path, capsys):
    _course_with_pages(tmp_path, feedback_page("hi"))
    assert grader_main(["check-pages", "--course", str(tmp_path)]) == 0
    assert list(scan_course(tmp_path).values()) == [[], []]


def test_inline_svg_images_are_not_reported_since_an_image_runs_no_script():
    svg = base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg' onload='x()'/>").decode()
    assert find_active_content(f'<img src="data:image/svg+xml;base64,{svg}">') == []


def test_check_pages_reports_student_folders_whose_name_is_markup(tmp_path, capsys):
    _course_with_pages(tmp_path, feedback_page("hi"))
    (tmp_path / "submitted" / "<img src=x onerror=alert(1)>" / "02_softmax").mkdir(parents=True)
    (tmp_path / "submitted" / "alice.smith-2").mkdir(parents=True)
    assert grader_main(["check-pages", "--course", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "submitted/<img src=x onerror=alert(1)>" in out and "alice.smith-2" not in out
