"""The documentation site works opened from a file (``site/index.html``, as the README says):
a reader clicks through its navigation in a real Chromium and reaches every page, never a folder
listing."""
from __future__ import annotations

import posixpath
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from grader_tests.checkout import REPO_ROOT

NAV_LINKS = "nav.md-nav--primary a.md-nav__link[href]"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built from the sources as ``make docs`` builds it (strict), into a folder of its own."""
    folder = tmp_path_factory.mktemp("site")
    config = load_config(config_file=str(REPO_ROOT / "mkdocs.yml"), site_dir=str(folder), strict=True)
    build(config)
    return folder


def pages_of_the_sources() -> set[str]:
    """Every page of docs/ as the path of its file in the built site (``instructor/index.html``)."""
    docs = REPO_ROOT / "docs"
    return {str(path.relative_to(docs).with_suffix(".html")) for path in docs.rglob("*.md")}


def test_every_page_of_the_site_opened_from_a_file_is_reached_by_clicking_its_navigation(browser, site):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto((site / "index.html").as_uri())
        targets = [href for href in page.eval_on_selector_all(NAV_LINKS, "links => links.map(a => a.href)")
                   if "#" not in href]
        reached = {"index.html"}
        for target in targets:
            page.click(f'{NAV_LINKS}[href="{page_relative(page.url, target)}"]')
            page.wait_for_load_state()
            assert page.url == target
            assert "Index of" not in page.title()  # Chromium's folder listing
            assert page.locator("article.md-content__inner h1").count() == 1, f"{target} is not a page"
            reached.add(str(Path(target.removeprefix(site.as_uri() + "/"))))
    finally:
        context.close()
    assert reached == pages_of_the_sources()


def page_relative(current_url: str, target_url: str) -> str:
    """``target_url`` as the navigation of the page at ``current_url`` writes it (a relative link)."""
    return posixpath.relpath(target_url.removeprefix("file://"),
                             posixpath.dirname(current_url.removeprefix("file://")))
