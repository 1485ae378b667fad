"""The jinja2 environment of every page the course writes (feedback pages, status pages, the class
report with its similarity view): autoescaped, and each page extends ``page/base.html.j2``.

The base template is the one place a page's document is written: ``<!DOCTYPE html>``, ``<html
lang>`` (``grader.pages.accessibility.PAGE_LANGUAGE``), the Content-Security-Policy meta element
first in ``<head>`` (``grader.pages.csp.CONTENT_SECURITY_POLICY``), charset, viewport, then the
blocks ``title``, ``style`` and ``body`` a page fills. Every value a page is given is escaped;
the font stacks (constants of ``grader.fonts``) are the only globals inserted as they are. A
feedback page's cells are rendered by nbconvert's environment (every piece of submission markup
sanitized) and handed to ``page/feedback.html.j2`` as markup
(``grader.pages.exporter.FeedbackExporter``).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PackageLoader, StrictUndefined
from markupsafe import Markup

from grader.fonts import PAGE_FONT_STACK, PAGE_MONOSPACE_STACK
from grader.pages.accessibility import PAGE_LANGUAGE
from grader.pages.csp import CONTENT_SECURITY_POLICY

#: The folder of the page templates (``page/base.html.j2`` and the pages of this package).
TEMPLATES = Path(__file__).parent / "templates"
#: The template every page extends.
BASE_PAGE = "page/base.html.j2"


def page_environment(*packages: str) -> Environment:
    """A new autoescaping environment that finds the templates of ``packages`` (each package's
    ``templates/`` folder, in that order) and then the base page; its globals: ``language``,
    ``csp`` (the policy text), ``font_stack`` and ``monospace_stack``."""
    loaders = [PackageLoader(package, "templates") for package in packages] + [FileSystemLoader(str(TEMPLATES))]
    env = Environment(loader=ChoiceLoader(loaders), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.globals.update(language=PAGE_LANGUAGE, csp=CONTENT_SECURITY_POLICY, font_stack=Markup(PAGE_FONT_STACK),
                       monospace_stack=Markup(PAGE_MONOSPACE_STACK))
    return env


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The shared environment of this package's pages (:func:`page_environment` without packages)."""
    return page_environment()


def render(template: str, **values) -> str:
    """The HTML text of ``template`` (a name under ``grader/pages/templates/``) with ``values``
    (every one escaped unless it is ``markupsafe.Markup``)."""
    return environment().get_template(template).render(**values)
