"""The demo closes its course to other accounts as an ordinary user too, as the grading service
does as root (``grader.service.privacy``)."""
from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from rich.console import Console

from grader.demo import service_handin
from grader.sandbox import limits
from grader.service import privacy
from grader_tests.checkout import create_course


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def reachable_folder():
    """A folder other accounts can reach (pytest's own folders are closed to them)."""
    folder = Path(tempfile.mkdtemp(prefix="sal-demo-privacy-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder)


def test_the_demo_without_root_skips_the_hand_in_saying_why_and_closes_its_course(reachable_folder, monkeypatch):
    tmp_path = reachable_folder
    course = create_course(tmp_path / "course")
    (course.root / "gradebook.db").write_bytes(b"")
    package = tmp_path / "checkout" / "grader"  # stands in for the checkout's packages
    (tmp_path / "checkout" / "source").mkdir(parents=True)
    package.mkdir()
    for path in (course.root, course.root / "gradebook.db", package, tmp_path / "checkout" / "source"):
        os.chmod(path, mode(path) | 0o055)
    monkeypatch.setattr(limits, "package_dirs", lambda: [str(package)])
    monkeypatch.setattr(service_handin.os, "geteuid", lambda: 1000)
    console = Console(file=io.StringIO(), width=200)
    assert service_handin.show_student_loop(course, console) == 0
    for path in (course.root, course.root / "gradebook.db", package, tmp_path / "checkout" / "source"):
        assert mode(path) & 0o077 == 0, path
    printed = console.file.getvalue()
    assert "skipped without root" in printed and "useradd" in printed
    assert f"closed to other accounts: {course.root / 'gradebook.db'}" in printed
