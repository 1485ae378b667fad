"""Pages and notebooks generated from submissions, safe for whoever opens them.

- :func:`sanitize_fragment` — a piece of submission HTML with everything active removed (nh3);
- :func:`markdown_to_html` — markdown as sanitized HTML, maths as MathML;
- :data:`CONTENT_SECURITY_POLICY` — the policy of every page we write;
- :mod:`grader.pages.page_templates` — the autoescaped jinja2 environment and the base page of
  every page the course writes (feedback and status pages, the class report), which writes the
  policy first in each page's head;
- :class:`grader.pages.exporter.FeedbackExporter` — the exporter of feedback pages: nbconvert
  renders the cells, the shared environment the page around them;
- :class:`grader.pages.notebook.RemoveActiveContent` — the autograde preprocessor that makes the
  autograded notebook inert (what the formgrader and Jupyter show);
- :mod:`grader.pages.scan` — finds active content in existing pages and notebooks (``grader check-pages``).
"""
from grader.pages.csp import CONTENT_SECURITY_POLICY
from grader.pages.html_sanitizer import sanitize_fragment, sanitize_svg
from grader.pages.markdown import markdown_to_html

__all__ = ["CONTENT_SECURITY_POLICY", "markdown_to_html", "sanitize_fragment", "sanitize_svg"]
