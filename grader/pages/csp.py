"""The Content-Security-Policy of every page written from a submission: a second layer behind
the sanitizer. The pages need no script at all and nothing from the network: styles are inline,
images are ``data:`` URLs, maths is MathML (see grader.pages.markdown)."""
from __future__ import annotations

from functools import lru_cache
from html import escape

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'none'",
    "script-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "connect-src 'none'",
    "style-src 'unsafe-inline'",
    "img-src data:",
    "font-src data:",
    "media-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
))


def csp_meta(policy: str = CONTENT_SECURITY_POLICY) -> str:
    """The ``<meta http-equiv="Content-Security-Policy">`` element; put it first in ``<head>``
    (a policy in a meta element only covers what comes after it)."""
    return f'<meta http-equiv="Content-Security-Policy" content="{escape(policy, quote=True)}">'


def _fetches(rule) -> bool:
    """Whether a CSS at-rule loads a file (``@import``, ``@font-face`` with a non-``data:`` source)."""
    if rule.type != "at-rule" or rule.lower_at_keyword not in ("import", "font-face"):
        return False
    tokens = list(rule.prelude) + list(rule.content or [])
    urls = [t.value for t in tokens if t.type == "url"] + \
        [t.arguments[0].value for t in tokens if t.type == "function" and t.lower_name == "url" and t.arguments
         and t.arguments[0].type == "string"]
    strings = [t.value for t in rule.prelude if t.type == "string"]
    return any(not url.startswith("data:") for url in urls + strings)


@lru_cache(maxsize=32)
def without_fetching_rules(css: str) -> str:
    """A style sheet without the ``@import`` and ``@font-face`` rules that would load files
    (the templates' icon fonts: no element of the page uses them, yet Chromium asks for them)."""
    import tinycss2

    rules = tinycss2.parse_stylesheet(css)
    if not any(_fetches(rule) for rule in rules):
        return css
    return tinycss2.serialize([rule for rule in rules if not _fetches(rule)])


def add_csp_meta(html: str, policy: str = CONTENT_SECURITY_POLICY) -> str:
    """A whole HTML document with :func:`csp_meta` as the first element of its ``<head>``, and
    its head's style sheets without rules that load files.

    Only the head is parsed again (it holds the template's markup, never a submission's), so a
    page's body is not re-serialized.
    """
    from bs4 import BeautifulSoup

    head_end = html.find("</head>")
    if head_end < 0:
        return add_csp_meta(html.replace("<html>", "<html><head></head>", 1) if "<html>" in html
                            else "<head></head>" + html, policy)
    head_start = html.rfind("<head", 0, head_end)
    soup = BeautifulSoup(html[head_start:head_end + len("</head>")], "html.parser")
    for style in soup.find_all("style"):
        style.string = without_fetching_rules(style.get_text())
    soup.head.insert(0, BeautifulSoup(csp_meta(policy), "html.parser").meta)
    return html[:head_start] + str(soup) + html[head_end + len("</head>"):]
