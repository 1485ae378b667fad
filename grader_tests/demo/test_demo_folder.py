"""Where the demo works: one fixed, git-ignored folder in the checkout, replaced on each run, and
never a folder the demo did not make."""
from __future__ import annotations

import io
import os
import stat
import subprocess
import sys

import pytest
from rich.console import Console

from grader.demo.folder import MARKER, DemoFolderError, prepare_demo_folder
from grader.demo.run import STEPS, graded_line, next_steps, run_demo
from grader.grading.outcome import GradingOutcome
from grader.service.privacy import Problem, fix
from grader_tests.checkout import DEMO_FOLDER, REPO_ROOT


def test_the_demo_course_is_demo_course_in_the_checkout_and_git_ignores_it():
    assert DEMO_FOLDER == REPO_ROOT / "demo-course"
    ignored = subprocess.run(["git", "check-ignore", "-q", str(DEMO_FOLDER / "gradebook.db")],
                             cwd=REPO_ROOT)
    assert ignored.returncode == 0


def test_a_second_demo_replaces_the_folder_of_the_first(tmp_path):
    folder = prepare_demo_folder(tmp_path / "demo-course")
    (folder / "gradebook.db").write_text("of the first run")
    again = prepare_demo_folder(folder)
    assert again == folder and sorted(p.name for p in folder.iterdir()) == [MARKER]


def test_the_demo_refuses_a_folder_it_did_not_make(tmp_path):
    (tmp_path / "my-course").mkdir()
    (tmp_path / "my-course" / "notes.txt").write_text("mine")
    with pytest.raises(DemoFolderError, match="was not made by grader demo"):
        prepare_demo_folder(tmp_path / "my-course")
    assert (tmp_path / "my-course" / "notes.txt").read_text() == "mine"


def test_the_last_lines_name_the_folder_and_the_commands_to_try_there(tmp_path):
    text = next_steps(tmp_path / "demo-course")
    assert str(tmp_path / "demo-course") in text
    assert "grader report 02_softmax" in text and "grader autograde 02_softmax" in text


def test_every_section_title_fits_an_80_column_terminal():
    console = Console(record=True, width=80, file=open(os.devnull, "w"))
    for title in STEPS:
        console.rule(title)
    assert "…" not in console.export_text()


def test_the_graded_count_leaves_out_the_ungradable():
    outcomes = [GradingOutcome(s, "01_variance", True, None, 1.0) for s in "abcdef"]
    outcomes.append(GradingOutcome("gus", "01_variance", False, "not a readable notebook", 0.1))
    assert graded_line("01_variance", outcomes, 12.34) == "01_variance: 6 graded, 1 ungradable in 12.3 s"


def test_a_permission_change_is_told_as_done(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    os.chmod(root, 0o755)
    problem = Problem(root, 0o755, "course folder", f"chmod go-rwx {root}")
    fix([problem])
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    assert problem.done() == f"closed to other accounts: {root} (course folder), mode 0755 -> 0700"


def test_the_demo_outside_a_checkout_stops_saying_where_it_runs(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "grader_tests.checkout", None)  # as in an installed wheel: not importable
    console = Console(record=True, width=200, file=io.StringIO())
    assert run_demo(tmp_path / "demo-course", workers=1, console=console) == 1
    text = console.export_text()
    assert "needs a checkout of the scaled-attention-lab repository" in text and "make demo" in text
    assert not (tmp_path / "demo-course").exists()
