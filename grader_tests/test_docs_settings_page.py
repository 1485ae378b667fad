"""The documentation's settings reference is generated from ``grader.settings.reference_markdown()``
when the site is built (the MkDocs hook ``docs/hooks/settings_reference.py``)."""
from __future__ import annotations

import sys
import types

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from grader.course import REPO_ROOT

def _settings_module(monkeypatch, **attributes) -> None:
    module = types.ModuleType("grader.settings")
    for name, value in attributes.items():
        setattr(module, name, value)
    monkeypatch.setitem(sys.modules, "grader.settings", module)
    monkeypatch.setattr(sys.modules["grader"], "settings", module, raising=False)


@pytest.fixture(scope="module")
def site_config():
    """The site's mkdocs.yml, with its hooks loaded as ``mkdocs build`` loads them."""
    return load_config(config_file=str(REPO_ROOT / "mkdocs.yml"))


def _files_of_the_build(site_config) -> Files:
    """What the build's plugins and hooks make of a docs folder without pages."""
    return site_config.plugins.on_files(Files([]), config=site_config)


def test_the_settings_page_holds_what_reference_markdown_returns(monkeypatch, site_config):
    _settings_module(monkeypatch, reference_markdown=lambda: "# Settings reference\n\n`max_waiting`: 5\n")
    files = _files_of_the_build(site_config)
    page = files.get_file_from_path("settings.md")
    assert page is not None and page.content_string == "# Settings reference\n\n`max_waiting`: 5\n"


def test_the_build_stops_naming_the_function_when_grader_settings_lacks_it(monkeypatch, site_config):
    _settings_module(monkeypatch)
    with pytest.raises(PluginError, match=r"grader\.settings\.reference_markdown\(\)"):
        _files_of_the_build(site_config)


def test_the_build_stops_when_reference_markdown_returns_no_text(monkeypatch, site_config):
    _settings_module(monkeypatch, reference_markdown=lambda: "  ")
    with pytest.raises(PluginError, match="not the page's Markdown"):
        _files_of_the_build(site_config)
