"""The Content-Security-Policy of every page written from a submission: a second layer behind
the sanitizer. ``page/base.html.j2`` (``grader.pages.page_templates``) writes it first in every
page's head. The pages need no script at all and nothing from the network: styles are inline,
images are ``data:`` URLs, maths is MathML (see grader.pages.markdown)."""
from __future__ import annotations

from functools import lru_cache

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
