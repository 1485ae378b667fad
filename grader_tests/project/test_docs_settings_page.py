"""The documentation's settings reference, ``docs/settings.md``, is what
``grader.settings.reference_markdown()`` returns: the MkDocs hook ``docs/hooks/settings_reference.py``
stops the build when the file differs, and running the hook writes it."""
from __future__ import annotations

import importlib.util
import sys
import types

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from grader.settings import reference_markdown
from grader_tests.checkout import REPO_ROOT

PAGE_TEXT = "# Settings reference\n\n`max_waiting`: 5\n"


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


def _files_of_the_build(site_config, docs_dir, page_text: str | None = PAGE_TEXT) -> Files:
    """What the build's plugins and hooks make of ``docs_dir`` holding only a settings page
    with ``page_text`` (none when None)."""
    files = Files([])
    if page_text is not None:
        (docs_dir / "settings.md").write_text(page_text)
        files.append(File("settings.md", str(docs_dir), site_config.site_dir, False))
    return site_config.plugins.on_files(files, config=site_config)


def test_the_build_takes_a_settings_page_equal_to_reference_markdown(monkeypatch, site_config, tmp_path):
    _settings_module(monkeypatch, reference_markdown=lambda: PAGE_TEXT)
    page = _files_of_the_build(site_config, tmp_path).get_file_from_path("settings.md")
    assert page is not None and page.content_string == PAGE_TEXT


def test_the_build_stops_naming_the_command_when_the_settings_page_is_stale(monkeypatch, site_config, tmp_path):
    _settings_module(monkeypatch, reference_markdown=lambda: PAGE_TEXT + "`max_held`: 2\n")
    with pytest.raises(PluginError, match=r"differs .* python docs/hooks/settings_reference\.py"):
        _files_of_the_build(site_config, tmp_path)


def test_the_build_stops_naming_the_command_when_the_settings_page_is_missing(monkeypatch, site_config, tmp_path):
    _settings_module(monkeypatch, reference_markdown=lambda: PAGE_TEXT)
    with pytest.raises(PluginError, match=r"missing.* python docs/hooks/settings_reference\.py"):
        _files_of_the_build(site_config, tmp_path, page_text=None)


def test_the_build_stops_naming_the_function_when_grader_settings_lacks_it(monkeypatch, site_config, tmp_path):
    _settings_module(monkeypatch)
    with pytest.raises(PluginError, match=r"grader\.settings\.reference_markdown\(\)"):
        _files_of_the_build(site_config, tmp_path)


def test_the_build_stops_when_reference_markdown_returns_no_text(monkeypatch, site_config, tmp_path):
    _settings_module(monkeypatch, reference_markdown=lambda: "  ")
    with pytest.raises(PluginError, match="not the page's Markdown"):
        _files_of_the_build(site_config, tmp_path)


def test_the_committed_settings_page_is_what_the_declarations_say():
    assert (REPO_ROOT / "docs" / "settings.md").read_text(encoding="utf-8") == reference_markdown(), (
        "docs/settings.md is stale: write it again with python docs/hooks/settings_reference.py")


def test_the_hook_writes_the_settings_page_from_the_declarations(tmp_path):
    spec = importlib.util.spec_from_file_location("settings_reference_hook",
                                                  REPO_ROOT / "docs" / "hooks" / "settings_reference.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    written = hook.write_page(tmp_path)
    assert written == tmp_path / "settings.md" and written.read_text(encoding="utf-8") == reference_markdown()
