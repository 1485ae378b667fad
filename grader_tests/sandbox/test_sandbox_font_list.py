"""matplotlib's list of the system fonts is kept between kernel zygotes of one account, and read only
from a folder no other account can change (grader.sandbox.font_list)."""
from __future__ import annotations

import os

import pytest

from grader.sandbox import font_list

LIST = "fontlist-v390.json"


@pytest.fixture()
def cache_home(tmp_path, monkeypatch):
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def built_list(folder, text='{"_version": 390, "ttflist": []}'):
    folder.mkdir(exist_ok=True)
    (folder / LIST).write_text(text)
    return folder


def test_a_list_one_zygote_built_is_copied_into_the_next_zygotes_folder(cache_home, tmp_path):
    font_list.keep_font_list(built_list(tmp_path / "first"))
    second = tmp_path / "second"
    second.mkdir()
    assert font_list.seed_font_list(second) is True
    assert (second / LIST).read_text() == '{"_version": 390, "ttflist": []}'


def test_the_kept_list_is_private_to_the_account(cache_home, tmp_path):
    font_list.keep_font_list(built_list(tmp_path / "first"))
    assert font_list.font_list_folder() == cache_home / "scaled-attention-lab" / "matplotlib"
    assert font_list.font_list_folder().stat().st_mode & 0o777 == 0o700
    assert not list(font_list.font_list_folder().glob(".fontlist-*"))  # no temporary file left behind


def test_without_a_kept_list_nothing_is_copied(cache_home, tmp_path):
    empty = tmp_path / "zygote"
    empty.mkdir()
    assert font_list.seed_font_list(empty) is False and list(empty.iterdir()) == []


def test_a_list_in_a_folder_another_account_can_change_is_not_copied(cache_home, tmp_path):
    font_list.keep_font_list(built_list(tmp_path / "first"))
    os.chmod(font_list.font_list_folder(), 0o777)
    second = tmp_path / "second"
    second.mkdir()
    assert font_list.seed_font_list(second) is False and not (second / LIST).exists()


def test_a_kept_list_that_is_a_link_is_not_copied(cache_home, tmp_path):
    folder = font_list.font_list_folder()
    folder.mkdir(parents=True)
    (folder / LIST).symlink_to(built_list(tmp_path / "elsewhere") / LIST)
    second = tmp_path / "second"
    second.mkdir()
    assert font_list.seed_font_list(second) is False


@pytest.mark.slow
def test_the_zygote_of_a_graded_notebook_keeps_the_list_it_built(cache_home, tmp_path):
    from nbformat.v4 import new_code_cell, new_notebook

    from grader.sandbox import SandboxedExecute, layers, zygote

    if layers.detect_layers().missing or os.geteuid() != 0:
        pytest.skip("needs root and every sandbox layer")
    zygote.close_zygotes()  # this process's next kernel starts a new zygote
    notebook = new_notebook(cells=[new_code_cell("print(1)")], metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    workdir = tmp_path / "work"  # apart from the cache: the sandbox tidies its working folder
    workdir.mkdir()
    try:
        SandboxedExecute().preprocess(notebook, {"metadata": {"path": str(workdir)}})
    finally:
        zygote.close_zygotes()
    assert [p.name.startswith("fontlist-v") for p in font_list.font_list_folder().iterdir()] == [True]
