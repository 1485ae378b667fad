"""Markdown from a submission as safe HTML, with its maths rendered as MathML.

The pages load no script, so MathJax cannot typeset maths in the browser. Instead the maths
spans that nbconvert's markdown parser finds (``$...$``, ``$$...$$``, ``\\begin{env}...``) are
converted to MathML by latex2mathml when the page is written; browsers display MathML natively.
Maths that latex2mathml cannot convert stays visible as its TeX source in a ``<code>`` element.
The result always goes through :func:`grader.pages.html_sanitizer.sanitize_fragment`. An image
file next to the notebook that the markdown shows is inlined when it is a real image
(:class:`grader.pages.notebook_images.NotebookImages`).

Converting is bounded per page (:class:`MathBudget`): a count of formulas, bytes of TeX and
seconds of conversion. Past the bound, TeX stays visible as its source, like TeX that cannot be
converted; a markdown text holding more possible formulas than the page has left is rendered
without looking for maths at all (finding 100 000 ``$x$`` spans alone takes mistune a second).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from html import escape

from jinja2 import pass_context
from latex2mathml.converter import convert as latex_to_mathml
from mistune import BlockParser, InlineParser
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from grader.pages.html_sanitizer import sanitize_fragment
from grader.pages.notebook_images import NotebookImages

# Where a page keeps its budget while it is written: in the exporter's resources.
RESOURCES_KEY = "math_budget"
# Where a page's exporter puts the NotebookImages its markdown may show (none: no image file is read).
IMAGES_KEY = "notebook_images"
ATTACHMENT_PREFIX = "attachment:"  # an image of the cell's own attachments, as Jupyter writes it


@dataclass
class MathBudget:
    """What is left of one page's maths conversion: formulas, bytes of TeX, seconds.

    The defaults are the bound per page: a lesson's notebook has a few hundred formulas of a few
    dozen bytes each, while latex2mathml takes about 0.1 s for one formula of 2 KiB. A formula
    longer than ``formula_bytes`` is never converted, so a page overruns ``seconds`` by at most
    the time of one such formula.
    """

    formulas: int = 1000
    tex_bytes: int = 64 * 1024
    formula_bytes: int = 2 * 1024
    seconds: float = 1.0

    def reserve(self, markdown: str) -> bool:
        """Take from the formulas left one for every maths span ``markdown`` might hold (an
        upper bound, counted from its delimiters); False, taking none, when they do not fit."""
        possible = (markdown.count("$") // 2 + markdown.count("\\begin{") + markdown.count("\\\\(")
                    + markdown.count("\\\\["))
        if possible > self.formulas:
            return False
        self.formulas -= possible
        return True

    def convert(self, tex: str, display: bool) -> str:
        """MathML for ``tex`` (reserved by :meth:`reserve`) if the bytes and seconds left allow
        it, charging them; else its escaped source."""
        size = len(tex.encode("utf-8"))
        if size > min(self.tex_bytes, self.formula_bytes) or self.seconds <= 0:
            return tex_source(tex)
        self.tex_bytes -= size
        started = time.perf_counter()
        try:
            return tex_to_mathml(tex, display)
        finally:
            self.seconds -= time.perf_counter() - started


def tex_source(tex: str) -> str:
    """TeX shown as its source text."""
    return f'<code class="tex">{escape(tex)}</code>'


def tex_to_mathml(tex: str, display: bool) -> str:
    """MathML for one TeX formula, or the TeX source in ``<code class="tex">`` if it cannot be converted."""
    try:
        return latex_to_mathml(tex, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 (latex2mathml raises many kinds on bad TeX; showing the source is right for all)
        return tex_source(tex)


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with maths as MathML (within ``budget``) instead of TeX left
    for MathJax, and the image files and attachments of ``images`` inlined (nbconvert's own
    embedding would follow links and trust a file's name, and an unknown attachment stops the
    page); an image that is not inlined keeps its reference, which the sanitizer removes."""

    def __init__(self, budget: MathBudget, images: NotebookImages | None = None, **kwargs):
        super().__init__(embed_images=images is not None, **kwargs)
        self.budget = budget
        self.images = images

    def _embed_image_or_attachment(self, src: str) -> str:
        if not src.startswith(ATTACHMENT_PREFIX):
            return super()._embed_image_or_attachment(src)
        attachment = self.attachments.get(src[len(ATTACHMENT_PREFIX):])
        url = self.images.attachment_data_url(attachment) if self.images is not None else None
        return url or src

    def _src_to_base64(self, src: str) -> str | None:
        return self.images.data_url(src) if self.images is not None else None

    def block_math(self, body: str) -> str:
        return self.budget.convert(body, display=True)

    def inline_math(self, body: str) -> str:
        return self.budget.convert(body, display=False)

    def latex_environment(self, name: str, body: str) -> str:
        return self.budget.convert(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)

    def block_mermaidjs(self, code: str) -> str:  # a diagram would need script: show its source
        return f"<pre><code>{escape(code)}</code></pre>"


def markdown_to_html(source: str, budget: MathBudget | None = None, images: NotebookImages | None = None,
                     attachments: dict | None = None) -> str:
    """Sanitized HTML for a markdown text (a markdown cell or a ``text/markdown`` output).

    budget: what is left of the page's maths conversion, charged here (default: a fresh one for
    this text alone); images: the image files the text may show (default: none); attachments:
    the cell's attachments, ``{name: {mime type: base64 text}}``.
    """
    source, budget = str(source), budget if budget is not None else MathBudget()
    renderer = MathMLRenderer(budget, images, escape=False, exclude_anchor_links=True,
                              attachments=attachments if isinstance(attachments, dict) else None)
    if budget.reserve(source):
        markdown = MarkdownWithMath(renderer=renderer)
    else:  # its maths stays source text: plain markdown parsers do not look for it
        markdown = MarkdownWithMath(renderer=renderer, block=BlockParser(), inline=InlineParser(hard_wrap=False))
    return sanitize_fragment(markdown.render(source))


@pass_context
def page_markdown_to_html(context, source: str) -> str:
    """The ``markdown2html`` filter of the pages' exporters: :func:`markdown_to_html` with one
    :class:`MathBudget` for the whole page (kept in the resources of the page being written), and
    the page's :class:`NotebookImages` when its exporter put one there."""
    resources = context.get("resources")
    if not isinstance(resources, dict):
        return markdown_to_html(source)
    budget = resources.get(RESOURCES_KEY)
    if not isinstance(budget, MathBudget):
        budget = resources[RESOURCES_KEY] = MathBudget()
    images = resources.get(IMAGES_KEY)
    cell = context.get("cell")
    return markdown_to_html(source, budget, images if isinstance(images, NotebookImages) else None,
                            cell.get("attachments") if isinstance(cell, dict) else None)
