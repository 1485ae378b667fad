"""A link in a submission never becomes a readable copy of what it points at."""
from __future__ import annotations

import os

from grader.sandbox.submitted_links import remove_copies_of_links


def test_copy_of_a_submitted_link_is_removed_from_the_working_folder(tmp_path):
    submitted, working = tmp_path / "submitted", tmp_path / "working"
    submitted.mkdir(), working.mkdir()
    (tmp_path / "gradebook.db").write_text("secret")
    os.symlink(tmp_path / "gradebook.db", submitted / "gradebook.db")
    (working / "gradebook.db").write_text("secret")  # what nbgrader's copy step leaves
    assert remove_copies_of_links(submitted, working) == ["gradebook.db"]
    assert not (working / "gradebook.db").exists()


def test_regular_submitted_files_are_kept(tmp_path):
    submitted, working = tmp_path / "submitted", tmp_path / "working"
    (submitted / "data").mkdir(parents=True), working.mkdir()
    (submitted / "data" / "notes.txt").write_text("mine")
    (working / "notes.txt").write_text("mine")
    assert remove_copies_of_links(submitted, working) == []
    assert (working / "notes.txt").read_text() == "mine"


def test_links_in_subfolders_are_found(tmp_path):
    submitted, working = tmp_path / "submitted", tmp_path / "working"
    (submitted / "deep").mkdir(parents=True), (working / "deep").mkdir(parents=True)
    os.symlink("/etc/hostname", submitted / "deep" / "h")
    (working / "deep" / "h").write_text("copied")
    assert remove_copies_of_links(submitted, working) == ["deep/h"]
    assert not (working / "deep" / "h").exists()
