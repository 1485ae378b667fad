"""Nothing in a submission folder is followed or read unbounded before the sandbox exists."""
from __future__ import annotations

import os
import socket

import pytest

from grader.course import Course
from grader.grading.admission import Limits, notebook_sizes_refusal
from grader.sandbox.submitted_links import (
    MAX_TIMESTAMP_BYTES,
    make_pre_convert_hook,
    quarantine_folder,
    quarantine_submission,
    unsafe_entries,
)

#: The largest notebook the tests' course grades, in bytes.
LIMIT = 1000


def submission(tmp_path, student="ada", assignment="02_softmax"):
    folder = tmp_path / "course" / "submitted" / student / assignment
    folder.mkdir(parents=True)
    (folder / "softmax.ipynb").write_text("{}")
    return folder


def test_a_notebook_larger_than_the_course_grades_is_moved_out_before_nbgrader_reads_it(tmp_path):
    folder = submission(tmp_path)
    (folder / "extra.ipynb").write_bytes(b" " * (LIMIT + 1))
    (folder / "small.ipynb").write_bytes(b" " * LIMIT)
    [moved] = quarantine_submission(folder, tmp_path / "quarantine", LIMIT)
    assert moved.startswith("extra.ipynb:") and (folder / "small.ipynb").exists()


def test_an_oversized_assignment_notebook_is_refused_as_too_large_not_as_missing(tmp_path):
    course = Course(tmp_path / "course")
    (course.root / "source" / "02_softmax").mkdir(parents=True)
    (course.root / "source" / "02_softmax" / "softmax.ipynb").write_text("{}")
    folder = submission(tmp_path)
    (folder / "softmax.ipynb").write_bytes(b" " * (LIMIT + 1))
    refusal = notebook_sizes_refusal(course, "02_softmax", folder, Limits(LIMIT, 100))
    assert refusal is not None and refusal.code == "notebook-too-large"
    assert notebook_sizes_refusal(course, "02_softmax", folder, Limits(LIMIT + 1, 100)) is None


def test_links_fifos_and_sockets_are_found_without_following_them(tmp_path, monkeypatch):
    folder = submission(tmp_path)
    os.symlink("/dev/zero", folder / "data.bin")
    os.symlink("/etc", folder / "etc")
    os.mkfifo(folder / "pipe")
    monkeypatch.chdir(folder)  # a relative name: a socket's path is limited to 107 bytes
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("sock")
    kinds = dict(unsafe_entries(folder, LIMIT))
    assert kinds == {"data.bin": "a symbolic link", "etc": "a symbolic link", "pipe": "a FIFO",
                     "sock": "a socket"}


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node (os.mknod) needs root")
def test_a_device_node_is_found_without_opening_it(tmp_path):
    folder = submission(tmp_path)
    os.mknod(folder / "zero", 0o600 | 0o020000, os.makedev(1, 5))  # a character device
    assert dict(unsafe_entries(folder, LIMIT)) == {"zero": "a character device"}


def test_quarantine_moves_unsafe_entries_out_and_keeps_regular_files(tmp_path):
    folder = submission(tmp_path)
    (folder / "notes.txt").write_text("mine")
    (folder / "deep").mkdir()
    os.symlink("/dev/zero", folder / "deep" / "data.bin")
    os.mkfifo(folder / "pipe")
    moved = quarantine_submission(folder, tmp_path / "quarantine", LIMIT)
    assert sorted(m.split(":")[0] for m in moved) == ["deep/data.bin", "pipe"]
    assert sorted(p.name for p in folder.rglob("*")) == ["deep", "notes.txt", "softmax.ipynb"]
    assert os.readlink(tmp_path / "quarantine" / "deep" / "data.bin") == "/dev/zero"


def test_oversized_timestamp_is_moved_out_before_nbgrader_reads_it(tmp_path):
    folder = submission(tmp_path)
    (folder / "timestamp.txt").write_text("2026-01-01 " * (MAX_TIMESTAMP_BYTES // 5))
    [moved] = quarantine_submission(folder, tmp_path / "quarantine", LIMIT)
    assert moved.startswith("timestamp.txt:") and not (folder / "timestamp.txt").exists()


def test_ordinary_timestamp_stays(tmp_path):
    folder = submission(tmp_path)
    (folder / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")
    assert quarantine_submission(folder, tmp_path / "quarantine", LIMIT) == []


def test_pre_convert_hook_quarantines_the_submission_of_the_notebooks_it_is_given(tmp_path):
    folder = submission(tmp_path)
    os.symlink("/dev/zero", folder / "data.bin")
    hook = make_pre_convert_hook(tmp_path / "course", lambda: LIMIT)
    hook(assignment="02_softmax", student="*", notebooks=[str(folder / "softmax.ipynb")])
    assert not os.path.lexists(folder / "data.bin")
    kept = quarantine_folder(tmp_path / "course", "ada", "02_softmax") / "data.bin"
    assert os.path.islink(kept)


def test_pre_convert_hook_ignores_folders_outside_the_course(tmp_path):
    outside = tmp_path / "elsewhere" / "x" / "y"
    outside.mkdir(parents=True)
    os.symlink("/dev/zero", outside / "data.bin")
    make_pre_convert_hook(tmp_path / "course", lambda: LIMIT)(notebooks=[str(outside / "n.ipynb")])
    assert os.path.islink(outside / "data.bin")


@pytest.mark.slow
def test_plain_nbgrader_autograde_never_follows_a_device_link_or_opens_a_fifo(course):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from attack_harness import scores

    notebook = course.submitted_notebook("ada", "02_softmax")
    notebook.parent.mkdir(parents=True)
    shutil.copy2(course.release_notebook("02_softmax"), notebook)
    os.symlink("/dev/zero", notebook.parent / "data.bin")
    os.mkfifo(notebook.parent / "data.fifo")
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    done = subprocess.run([nbgrader, "autograde", "02_softmax", "--create", "--force"], cwd=course.root,
                          capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert None not in scores(course, "ada").values()
    kept = quarantine_folder(course.root, "ada", "02_softmax")
    assert os.path.islink(kept / "data.bin") and not os.path.lexists(notebook.parent / "data.fifo")
    graded = course.root / "autograded" / "ada" / "02_softmax"
    assert sorted(p.name for p in graded.iterdir()) == ["softmax.ipynb"]
