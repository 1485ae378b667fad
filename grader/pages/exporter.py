"""The exporter of feedback pages: nbgrader's feedback template, with every piece of submission
markup sanitized, maths as MathML (within a bound per page, ``grader.pages.markdown.MathBudget``),
at most ``max_output_bytes`` of output, no script and a restrictive Content-Security-Policy.

``nbgrader_config.py`` selects it for ``GenerateFeedback`` (so plain ``nbgrader generate_feedback``
uses it) and sets the same sanitizing filters on ``HTMLExporter``, the exporter of the formgrader's
submission view.
"""
from __future__ import annotations

from jinja2 import DictLoader
from nbconvert.exporters import HTMLExporter
from traitlets import Bool, Integer, default

from grader.pages.csp import add_csp_meta
from grader.pages.markdown import page_markdown_to_html
from grader.pages.page_limit import MiB, limit_outputs
from grader.pages.sanitize import sanitize_fragment

# nbconvert's templates import the MathJax loader from 'mathjax.html.j2'; feedback pages load no
# script, so the macro renders nothing (maths is already MathML).
NO_MATHJAX = {"mathjax.html.j2": "{%- macro mathjax(url='') -%}{%- endmacro %}"}

# The filters that make nbconvert's templates sanitize with nh3 (see grader.pages.sanitize):
# ``clean_html`` is what the templates apply to HTML, SVG and markdown when ``sanitize_html`` is on.
SANITIZING_FILTERS = {
    "clean_html": "grader.pages.sanitize.sanitize_fragment",
    "markdown2html": "grader.pages.markdown.page_markdown_to_html",
    "escape_student_fields": "grader.pages.formgrader.escape_student_fields",
}


class FeedbackExporter(HTMLExporter):
    """HTMLExporter for pages other people open: sanitized content, no script, a CSP meta element."""

    sanitize_html = Bool(True, help="Always on: feedback pages show submission content.").tag(config=True)
    max_output_bytes = Integer(16 * MiB, help=(
        "Output (text and data, in characters) one page shows, in reading order; the outputs "
        "past it are left off, each cell that loses some says so in one line.")).tag(config=True)

    @default("extra_loaders")
    def _no_mathjax_loader(self):
        return [DictLoader(NO_MATHJAX)]

    def default_filters(self):
        yield from super().default_filters()
        yield ("clean_html", sanitize_fragment)
        yield ("markdown2html", page_markdown_to_html)

    def _preprocess(self, nb, resources):
        nb, resources = super()._preprocess(nb, resources)
        limit_outputs(nb, self.max_output_bytes)  # after every preprocessor: the page as it is shown
        return nb, resources

    def from_notebook_node(self, nb, resources=None, **kw):
        self.sanitize_html = True  # a config that turns it off must not make these pages unsafe
        html, resources = super().from_notebook_node(nb, resources, **kw)
        return add_csp_meta(html), resources
