"""The exporter of feedback pages: the notebook's cells rendered by nbconvert with the course's
cell template (``templates/feedback_page``: nbgrader's feedback cells, every piece of submission
markup sanitized, maths as MathML within a bound per page, ``grader.pages.markdown.MathBudget``,
code highlighted within a bound per page, :class:`HighlightBudget`, past which code is shown
escaped, not coloured, at most ``max_output_chars`` characters of output), inside the page
``page/feedback.html.j2`` of the course's autoescaped environment (``grader.pages.page_templates``):
the shared base with its Content-Security-Policy and language, the header with the assignment's
title, score and deadline note, and no script.

``nbgrader_config.py`` selects it for ``GenerateFeedback`` (so plain ``nbgrader generate_feedback``
uses it) and sets the same sanitizing filters on ``HTMLExporter``, the exporter of the formgrader's
submission view.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from html import escape

import cachetools
from jinja2 import DictLoader
from markupsafe import Markup
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from traitlets import Bool, Unicode, default

from grader.language.catalogue import HTML_LANG, PAGE_LANGUAGE_KEY, SOURCE_LANGUAGE, translate
from grader.pages.accessibility import FEEDBACK_PAGE_CSS
from grader.pages.csp import without_fetching_rules
from grader.pages.formgrader import NBGRADER_STATIC
from grader.pages.html_sanitizer import sanitize_fragment
from grader.pages.markdown import IMAGES_KEY, page_markdown_to_html
from grader.pages.notebook_images import NotebookImages
from grader.pages.page_limit import limit_outputs
from grader.pages.page_templates import TEMPLATES, render
from grader.settings import traits_of

# nbconvert's templates import the MathJax loader from 'mathjax.html.j2'; feedback pages load no
# script, so the macro renders nothing (maths is already MathML).
NO_MATHJAX = {"mathjax.html.j2": "{%- macro mathjax(url='') -%}{%- endmacro %}"}

# The filters that make nbconvert's templates sanitize with nh3 (see grader.pages.html_sanitizer):
# ``clean_html`` is what the templates apply to HTML, SVG and markdown when ``sanitize_html`` is on.
SANITIZING_FILTERS = {
    "clean_html": "grader.pages.html_sanitizer.sanitize_fragment",
    "markdown2html": "grader.pages.markdown.page_markdown_to_html",
    "escape_student_fields": "grader.pages.formgrader.escape_student_fields",
}

#: The template of a feedback page's cells (``templates/feedback_page``).
CELL_TEMPLATE = "feedback_page"
#: The header's words, messages of the language catalogue.
FEEDBACK_ON = "Feedback on"
LATE_PENALTY = "Late submission penalty:"
HEADER_MESSAGES = (FEEDBACK_ON, LATE_PENALTY)


class FeedbackExporter(HTMLExporter):
    """HTMLExporter for pages other people open: sanitized content, no script, a CSP meta element."""

    sanitize_html = Bool(True, help="Always on: feedback pages show submission content.").tag(config=True)
    template_name = Unicode(CELL_TEMPLATE, help="The cells' template (the page around them is "
                            "page/feedback.html.j2's).").tag(config=True)
    locals().update(traits_of("FeedbackExporter"))  # max_output_chars, max_inline_image_bytes (grader.settings)

    @default("extra_loaders")
    def _no_mathjax_loader(self):
        return [DictLoader(NO_MATHJAX)]

    @default("extra_template_basedirs")
    def _course_templates(self):
        return [str(TEMPLATES)]

    def default_filters(self):
        yield from super().default_filters()
        yield ("clean_html", sanitize_fragment)
        yield ("markdown2html", page_markdown_to_html)
        yield ("tr", translate)  # {{ 'Your answer' | tr(language) }}: the template's words in the page's language

    def _preprocess(self, nb, resources):
        nb, resources = super()._preprocess(nb, resources)
        limit_outputs(nb, self.max_output_chars)  # after every preprocessor: the page as it is shown
        describe_images(nb)
        resources.setdefault("inlining", {}).setdefault("css", []).append(FEEDBACK_PAGE_CSS)  # last: it wins
        folder = (resources.get("metadata") or {}).get("path")
        if folder:  # the notebook's folder: its markdown's images are inlined from there
            resources[IMAGES_KEY] = NotebookImages(folder, self.max_inline_image_bytes)
        return nb, resources

    def from_notebook_node(self, nb, resources=None, **kw):
        self.sanitize_html = True  # a config that turns it off must not make these pages unsafe
        cells, resources = self._render(nb, resources, **kw)
        return self.page(with_accessibility_marks(cells), resources), resources

    def page(self, cells: str, resources: dict) -> str:
        """The whole page around ``cells`` (the cells' HTML as nbconvert rendered them), in the page's
        language (``resources["language"]``, FeedbackPage's choice) with the score of
        ``resources["nbgrader"]`` (nbgrader's GetGrades)."""
        language = resources.get(PAGE_LANGUAGE_KEY, SOURCE_LANGUAGE)
        info = resources.get("nbgrader") or {}
        assignment = str(info.get("assignment", ""))
        return render("page/feedback.html.j2", language=HTML_LANG[language],
                      title=resources.get("assignment_title") or assignment or str(info.get("notebook", "")),
                      assignment=assignment, total=translate(FEEDBACK_ON, language),
                      score=info.get("score", 0.0), max_score=info.get("max_score", 0.0),
                      late_penalty=info.get("late_penalty", 0.0) or 0.0,
                      late_penalty_words=translate(LATE_PENALTY, language),
                      deadline_note=resources.get("deadline_note", ""),
                      style=Markup(self.page_style(resources)), cells=Markup(cells))

    def page_style(self, resources: dict) -> str:
        """The page's one style sheet: Bootstrap (as nbgrader's feedback pages have it), the style
        sheets the preprocessors put in ``resources["inlining"]["css"]`` (code colours, the
        summary's, :data:`FEEDBACK_PAGE_CSS`), then nbgrader's feedback style; without the rules
        that would load files (:func:`grader.pages.csp.without_fetching_rules`)."""
        sheets = [BOOTSTRAP_CSS, *resources.get("inlining", {}).get("css", []), NBGRADER_FEEDBACK_CSS]
        return "\n".join(without_fetching_rules(str(sheet)) for sheet in sheets)

    def _render(self, nb, resources=None, **kw):
        """``HTMLExporter.from_notebook_node`` up to its BeautifulSoup pass over the whole page
        (:func:`with_accessibility_marks` does that pass, only where it changes something)."""
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter("highlight_code", self.filters.get(
            "highlight_code", RememberingHighlight(pygments_lexer=lexer, parent=self, budget=HighlightBudget())))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources))
        return TemplateExporter.from_notebook_node(self, nb, resources, **kw)


#: nbgrader's feedback style (its feedback template's), which :meth:`FeedbackExporter.page_style` puts last.
NBGRADER_FEEDBACK_CSS = (TEMPLATES / "page" / "nbgrader_feedback.css").read_text(encoding="utf-8")
#: Bootstrap 3's style sheet, the one nbgrader's feedback pages and formgrader use (shipped with nbgrader).
BOOTSTRAP_CSS = (NBGRADER_STATIC / "node_modules" / "bootstrap" / "dist" / "css" / "bootstrap.min.css").read_text(
    encoding="utf-8")


@dataclass
class HighlightBudget:
    """What is left of one page's code highlighting: characters of source and seconds.

    Highlighting costs about 15 s per MB of Python source and writes some seven characters of HTML
    for each one; a lesson's page highlights some 30 000 characters. A cell longer than
    ``cell_characters`` is never highlighted, so a page overruns ``seconds`` by at most the time of
    one such cell. Code past the budget is shown escaped, without colours.
    """

    characters: int = 512 * 1024
    cell_characters: int = 64 * 1024
    seconds: float = 2.0

    def reserve(self, source: str) -> bool:
        """Take ``source``'s characters if the characters and seconds left allow it; else False."""
        if len(source) > min(self.characters, self.cell_characters) or self.seconds <= 0:
            return False
        self.characters -= len(source)
        return True

    def spend(self, seconds: float) -> None:
        self.seconds -= seconds


def escaped_code(source: str, language: str) -> str:
    """Code as ``Highlight2HTML`` lays it out, escaped instead of coloured."""
    return (f'<div class=" highlight hl-{escape(language)}"><pre><span></span>'
            f'{escape(source.rstrip(chr(10)))}\n</pre></div>\n')


class RememberingHighlight(Highlight2HTML):
    """nbconvert's code highlighting within the page's :class:`HighlightBudget`, with the HTML of
    sources it highlighted kept in this process (up to :data:`HIGHLIGHT_CACHE_CHARACTERS`): most
    code cells (the given code, the visible tests) are the same on every student's page, and
    highlighting them is a good part of a page's time. The same source, language and formatter
    options give the same HTML, so a page is the one ``Highlight2HTML`` writes."""

    def __init__(self, budget: HighlightBudget | None = None, **kwargs):
        super().__init__(**kwargs)
        self.budget = budget if budget is not None else HighlightBudget()

    def __call__(self, source, language=None, metadata=None):
        language = language or self.pygments_lexer
        if not self.budget.reserve(source):
            return escaped_code(source, language or "")
        magics = (metadata or {}).get("magics_language")
        started = time.perf_counter()
        try:
            return _highlighted(source, language, magics if isinstance(magics, str) else None,
                                json.dumps(self.extra_formatter_options, sort_keys=True))
        finally:
            self.budget.spend(time.perf_counter() - started)


#: Characters of highlighted HTML kept in one process, over every source (least recently used go).
HIGHLIGHT_CACHE_CHARACTERS = 32 * 2**20
_highlight_cache = cachetools.LRUCache(maxsize=HIGHLIGHT_CACHE_CHARACTERS, getsizeof=len)


@cachetools.cached(_highlight_cache, lock=threading.Lock(), info=True)
def _highlighted(source: str, language: str, magics_language: str | None, options: str) -> str:
    return Highlight2HTML(pygments_lexer=language, extra_formatter_options=json.loads(options))(
        source, language, {"magics_language": magics_language} if magics_language else None)


#: nbconvert's alt text for an image that has none (``HTMLExporter``'s BeautifulSoup pass).
NO_DESCRIPTION = "No description has been provided for this image"
RASTER_IMAGES = ("image/png", "image/jpeg")  # the outputs the templates show with an alt text
_LAB_CELLS = re.compile(r"jp-Cell-inputWrapper|jp-OutputArea-output")
_IMAGE = re.compile(r"<img\b", re.IGNORECASE)
_ALT = re.compile(r"\salt\s*=", re.IGNORECASE)


def describe_images(nb) -> None:
    """Give every PNG and JPEG output without an alt text nbconvert's, as output metadata, which
    the templates write into the ``<img>`` element: the page then needs no pass to add it."""
    for cell in nb.cells:
        if cell.get("metadata", {}).get("alt"):
            continue  # the templates use the cell's alt text
        for output in cell.get("outputs", []):
            for mime in RASTER_IMAGES:
                if mime not in output.get("data", {}):
                    continue
                metadata = output.setdefault("metadata", {})
                if not (metadata.get(mime) or {}).get("alt") and not metadata.get("alt"):
                    metadata.setdefault(mime, {})["alt"] = NO_DESCRIPTION


def _needs_marks(html: str, body: int) -> bool:
    """Whether the body holds a lab-template cell or an image whose tag has no alt attribute
    (a ``>`` inside an attribute value ends the look early: the pass then runs, needlessly)."""
    if _LAB_CELLS.search(html, body):
        return True
    for image in _IMAGE.finditer(html, body):
        end = html.find(">", image.end())
        if not _ALT.search(html, image.end(), len(html) if end < 0 else end):
            return True
    return False


def with_accessibility_marks(html: str) -> str:
    """What nbconvert's ``HTMLExporter`` adds to a page: an alt text on every image without one,
    ``tabindex="0"`` on cell inputs and outputs of the lab template.

    The page is parsed and written again (as ``HTMLExporter`` does) only when its body holds an
    image without alt text or such a cell; any other page, such as a classic-template page whose
    figures got their alt text from :func:`describe_images`, is returned as it is: that pass would
    change nothing in it, and it is most of the seconds a page costs.
    """
    if not _needs_marks(html, max(0, html.find("</head>"))):
        return html
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, features="html.parser")
    for element in soup.select("img:not([alt])"):
        element.attrs["alt"] = NO_DESCRIPTION
    for selector in (".jp-Notebook div.jp-Cell-inputWrapper", ".jp-Notebook div.jp-OutputArea-output"):
        for element in soup.select(selector):
            element.attrs["tabindex"] = "0"
    return str(soup)
