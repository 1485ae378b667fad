"""A course folder readable by other accounts is detected, named, and closed or refused.

(What a real student account can and cannot reach is tested in test_service_student_loop.)
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.course import Course
from grader.doctor import privacy_findings
from grader.service.privacy import course_problems, exchange_problems, fix

SENSITIVE = ("source", "gradebook.db", "autograded", "feedback", ".grader")


@pytest.fixture
def open_course(course):
    """The course as a clone with umask 022 leaves it: every folder 0755, every file 0644, in a
    folder every account can reach (pytest's own temporary folders are private)."""
    top = Path(tempfile.mkdtemp(prefix="sal-privacy-"))
    top.chmod(0o755)
    course = Course(Path(shutil.copytree(course.root, top / "course")))
    for name in ("autograded", "feedback", ".grader"):
        (course.root / name).mkdir(exist_ok=True)
    for path in [course.root, *course.root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield course
    shutil.rmtree(top, ignore_errors=True)


def test_every_readable_course_path_is_named_with_the_command_that_closes_it(open_course):
    problems = {p.path: p for p in course_problems(open_course)}
    for path in [open_course.root, *(open_course.root / name for name in SENSITIVE)]:
        assert path in problems, path
        assert problems[path].command == f"chmod go-rwx {path}"
        assert "0755" in str(problems[path]) or "0644" in str(problems[path])


def test_closing_the_course_paths_leaves_no_course_problem(open_course):
    course_paths = [p for p in course_problems(open_course)
                    if p.path == open_course.root or open_course.root in p.path.parents]
    fix(course_paths)
    assert stat.S_IMODE(open_course.root.stat().st_mode) == 0o700
    assert stat.S_IMODE((open_course.root / "source").stat().st_mode) == 0o700
    left = [p for p in course_problems(open_course)
            if p.path == open_course.root or open_course.root in p.path.parents]
    assert left == []


def test_inside_a_private_course_root_inner_modes_do_not_matter(open_course):
    open_course.root.chmod(0o700)
    assert [p for p in course_problems(open_course)
            if p.path == open_course.root or open_course.root in p.path.parents] == []


def test_grader_watch_refuses_a_readable_course_naming_path_and_command(open_course, tmp_path):
    env = {**os.environ, "GRADER_EXCHANGE_ROOT": str(tmp_path / "exchange")}
    result = subprocess.run([sys.executable, "-m", "grader.cli", "watch", "--once", "--course",
                             str(open_course.root)], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 2
    assert f"chmod go-rwx {open_course.root / 'source'}" in result.stderr
    assert f"{open_course.root / 'gradebook.db'} (gradebook.db) has mode 0644" in result.stderr
    assert "--fix-permissions" in result.stderr
    assert not (open_course.root / ".grader" / "service.sqlite").exists()


def test_doctor_lists_each_readable_course_path(open_course):
    rows = privacy_findings(str(open_course.root))
    failing = {row.protection for row in rows if not row.active}
    assert {"course privacy: source", "course privacy: gradebook.db",
            "course privacy: .grader", "course privacy: course folder"} <= failing
    assert any(f"chmod go-rwx {open_course.root / 'autograded'}" in row.detail for row in rows)


def test_world_writable_exchange_folders_get_the_sticky_bit(tmp_path):
    root = tmp_path / "exchange"
    inbound = root / "course" / "inbound"
    inbound.mkdir(parents=True)
    root.chmod(0o777)
    inbound.chmod(0o2733)
    problems = exchange_problems(root, "course")
    assert [p.command for p in problems] == [f"chmod +t {root}", f"chmod +t {inbound}"]
    fix(problems)
    assert root.stat().st_mode & stat.S_ISVTX and inbound.stat().st_mode & stat.S_ISVTX
    assert stat.S_IMODE(inbound.stat().st_mode) & 0o2733 == 0o2733  # nbgrader's bits kept
    assert exchange_problems(root, "course") == []


def test_doctor_main_reports_a_readable_course_of_its_config(open_course, monkeypatch, capsys):
    from grader import doctor

    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setattr(doctor, "attack", lambda policy: (_ for _ in ()).throw(RuntimeError("skipped")))
    assert doctor.main(["--config", str(open_course.root / "nbgrader_config.py")]) == 1
    output = capsys.readouterr().out
    assert "course privacy: source" in output and "chmod go-rwx" in output
