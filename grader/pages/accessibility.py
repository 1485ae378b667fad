"""What makes the course's pages meet WCAG 2.1 AA where nbgrader's feedback template does not: the
pages' language, and CSS that corrects the template's colours, links and code boxes.

axe-core measures every page kind in the test suite (``grader_tests/pages/test_pages_axe.py``); the
accessibility statement of the docs (``docs/accessibility.md``) says what was measured.
"""
from __future__ import annotations

#: The language of every page the course writes (the ``lang`` attribute of ``<html>``): a screen
#: reader reads a page in the voice of its language.
PAGE_LANGUAGE = "en"

#: Appended to a feedback page's CSS, after the code colours and the summary's, before nbgrader's feedback style
#: (``grader.pages.exporter.FeedbackExporter.page_style``).
#: - links: nbgrader's #337ab7 has a contrast of 4.2:1 on its grey boxes (4.5:1 is needed) and
#:   links inside text differ from it by colour alone, so links are darker and underlined; the
#:   "(Top)" links of a graded cell's blue heading are white instead of #bbb (2.4:1), a rule more
#:   specific than the template's, whose style element comes after this one;
#: - code: pygments' default colours reach 4.4–4.5:1 on bootstrap's #f5f5f5 ``pre`` and pass on
#:   white; long lines wrap, so no box scrolls sideways (a scrolling box a keyboard user cannot reach).
FEEDBACK_PAGE_CSS = """
a, a:visited { color: #1d4f7c; text-decoration: underline; }
div.nbgrader_cell div.panel-heading a, div.nbgrader_cell div.panel-heading a:visited { color: #fff; }
div.input_area pre { background: #fff; white-space: pre-wrap; overflow-wrap: anywhere; }
"""

