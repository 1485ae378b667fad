"""Markdown from a submission as safe HTML, with its maths rendered as MathML.

The pages load no script, so MathJax cannot typeset maths in the browser. Instead the maths
spans that nbconvert's markdown parser finds (``$...$``, ``$$...$$``, ``\\begin{env}...``) are
converted to MathML by latex2mathml when the page is written; browsers display MathML natively.
Maths that latex2mathml cannot convert stays visible as its TeX source in a ``<code>`` element.
The result always goes through :func:`grader.pages.sanitize.sanitize_fragment`.
"""
from __future__ import annotations

from html import escape

from latex2mathml.converter import convert as latex_to_mathml
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from grader.pages.sanitize import sanitize_fragment


def tex_to_mathml(tex: str, display: bool) -> str:
    """MathML for one TeX formula, or the TeX source in ``<code class="tex">`` if it cannot be converted."""
    try:
        return latex_to_mathml(tex, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 (latex2mathml raises many kinds on bad TeX; showing the source is right for all)
        return f'<code class="tex">{escape(tex)}</code>'


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with maths as MathML instead of TeX left for MathJax."""

    def block_math(self, body: str) -> str:
        return tex_to_mathml(body, display=True)

    def inline_math(self, body: str) -> str:
        return tex_to_mathml(body, display=False)

    def latex_environment(self, name: str, body: str) -> str:
        return tex_to_mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)

    def block_mermaidjs(self, code: str) -> str:  # a diagram would need script: show its source
        return f"<pre><code>{escape(code)}</code></pre>"


def markdown_to_html(source: str) -> str:
    """Sanitized HTML for a markdown text (a markdown cell or a ``text/markdown`` output).

    Also the ``markdown2html`` filter of the pages' exporters.
    """
    html = MarkdownWithMath(renderer=MathMLRenderer(escape=False, exclude_anchor_links=True)).render(str(source))
    return sanitize_fragment(html)
