"""Root loads nothing another account can write: the course config, the grader's code, its import path.

A real instructor account (not root) gets the course files the way a course hub used to give them;
it appends to ``nbgrader_config.py`` a line that records the uid running it. Root's commands
(``grader watch``, ``grader doctor``, every load of the config) refuse, naming the path and what to
run, and the line never runs as root. The hub's own course layout (``grader.hub.course_access``)
leaves that account nothing root loads, and still lets it write the gradebook.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader import root_trust
from grader.course import Course, load_config
from grader.hub.course_access import give_course_to_root
from grader.hub.lifecycle import lay_out_hub_course, name_instructor_group
from grader.service.privacy import course_problems
from grader_tests.checkout import THE_COURSE, create_course
from grader_tests.other_account import OtherAccount, other_account


@pytest.fixture
def instructor():
    with other_account("salinst") as account:
        yield account


@pytest.fixture
def top():
    """A folder every account can pass through (under the sticky /tmp), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="sal-root-loads-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def course(top) -> Course:
    return create_course(top / "course")


@pytest.fixture
def marker(top, instructor) -> Path:
    """Where the instructor's line writes the uid that ran it (a folder the instructor owns)."""
    folder = top / "marker"
    folder.mkdir(mode=0o755)
    instructor.owns(folder)
    return folder / "uid"


def append_as(account: OtherAccount, path: Path, text: str) -> subprocess.CompletedProcess:
    """Append ``text`` to ``path`` as ``account`` (its own editor would)."""
    return account.run("sh", "-c", 'printf "%s" "$2" >> "$1"', "sh", str(path), text)


def can_write(account: OtherAccount, path: Path) -> bool:
    """Whether ``account`` can open ``path`` for writing (creating it if missing); nothing is written."""
    return account.run("sh", "-c", ': >> "$1"', "sh", str(path)).returncode == 0


def plant_uid_line(account: OtherAccount, config: Path, marker: Path) -> None:
    line = f"\nimport os, pathlib; pathlib.Path({str(marker)!r}).write_text(str(os.getuid()))\n"
    written = append_as(account, config, line)
    assert written.returncode == 0, written.stderr


def grader(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def ran_as_root(marker: Path) -> bool:
    return marker.exists() and marker.read_text() == "0"


def test_root_does_not_load_a_course_config_the_instructor_owns(course, instructor, marker):
    config = course.root / "nbgrader_config.py"
    instructor.owns(config)
    plant_uid_line(instructor, config, marker)

    with pytest.raises(root_trust.UntrustedError, match=f"{config} is owned by {instructor.name}"):
        load_config(course)

    assert not ran_as_root(marker)


def test_root_does_not_load_the_config_of_a_course_folder_the_instructor_owns(course, instructor):
    instructor.owns(course.root)  # the config is root's, but the instructor could put another in its place

    with pytest.raises(root_trust.UntrustedError, match=f"{course.root} is owned by {instructor.name}"):
        course.db_url  # noqa: B018 - read from the config


def test_grader_watch_as_root_refuses_a_course_the_instructor_owns_and_runs_none_of_it(course, instructor, marker,
                                                                                        top):
    subprocess.run(["chown", "-R", f"{instructor.name}:{instructor.name}", str(course.root)], check=True)
    plant_uid_line(instructor, course.root / "nbgrader_config.py", marker)

    run = grader("watch", "--once", "--course", str(course.root), cwd=top)

    assert run.returncode != 0
    message = " ".join(run.stderr.split())
    assert f"{course.root} is owned by {instructor.name}" in message
    assert f"chown root:root {course.root}" in message
    assert not ran_as_root(marker)


def test_grader_watch_as_root_refuses_a_config_the_instructors_group_can_write(course, instructor, marker, top):
    config = course.root / "nbgrader_config.py"
    os.chown(config, 0, instructor.gid)
    config.chmod(0o664)
    plant_uid_line(instructor, config, marker)

    run = grader("watch", "--once", "--course", str(course.root), cwd=top)

    assert run.returncode != 0
    assert f"{config} is writable by the group {instructor.name}" in " ".join(run.stderr.split())
    assert not ran_as_root(marker)


def test_grader_doctor_as_root_refuses_a_config_the_instructor_owns_before_loading_it(course, instructor, marker,
                                                                                      top):
    config = course.root / "nbgrader_config.py"
    instructor.owns(config)
    plant_uid_line(instructor, config, marker)

    run = grader("doctor", "--config", str(config), cwd=top)

    assert run.returncode != 0
    message = " ".join(run.stderr.split())
    assert f"{config} is owned by {instructor.name}" in message and "chown root:root" in message
    assert not ran_as_root(marker)


def test_a_folder_on_the_import_path_the_instructor_owns_is_refused(course, instructor, top, monkeypatch):
    planted = top / "site"
    planted.mkdir()
    instructor.owns(planted)
    monkeypatch.syspath_prepend(str(planted))

    with pytest.raises(root_trust.UntrustedError, match=f"{planted} is owned by {instructor.name}"):
        root_trust.refuse_untrusted_course(course.root, "the course")


def test_a_file_deep_in_a_package_the_instructor_owns_is_named_with_the_whole_package_to_fix(instructor, top):
    package = top / "solutions"
    (package / "__pycache__").mkdir(parents=True)
    cached = package / "__pycache__" / "softmax.cpython-311.pyc"
    cached.write_bytes(b"")
    instructor.owns(cached)

    [problem] = root_trust.untrusted_tree(package)

    assert problem.path == cached and problem.why.startswith(f"owned by {instructor.name}")
    assert root_trust.fix_command([problem], [package]) == f"chown -R root:root {package} && chmod -R go-w {package}"


def test_a_link_root_owns_to_a_file_the_instructor_owns_is_refused(instructor, top):
    target = top / "theirs.py"
    target.write_text("")
    instructor.owns(target)
    (top / "ours").mkdir()
    (top / "ours" / "link.py").symlink_to(target)

    problems = root_trust.untrusted([top / "ours" / "link.py"])

    assert [p.path for p in problems] == [target]


def test_a_course_under_the_sticky_tmp_folder_owned_by_root_is_trusted(course):
    problems, _packages = root_trust.course_load_problems(course.root)

    assert problems == []


# ---- the hub's course layout ----------------------------------------------------------------------

@pytest.fixture
def hub_course(top, instructor) -> Course:
    """A course laid out as ``grader hub up`` lays it out (without generating the assignments)."""
    course = lay_out_hub_course(THE_COURSE, top / "course")
    name_instructor_group(course, instructor.name)
    (course.root / "gradebook").mkdir()
    sqlite3.connect(course.root / "gradebook" / "gradebook.db").close()
    course.state_dir  # noqa: B018 - made as the service makes it
    give_course_to_root(course.root, course.root / "gradebook", instructor.name)
    return course


def test_the_hub_course_leaves_the_instructor_no_file_root_loads_to_change(hub_course, instructor):
    root = hub_course.root
    loaded = [root / "nbgrader_config.py", root / "new_config.py", root / "grader" / "__init__.py",
              root / "source" / "02_softmax" / "checks.py", root / "solutions" / "__init__.py",
              root / "solutions" / "planted.py", root / ".grader" / "secret"]

    writable = [str(path) for path in loaded if can_write(instructor, path)]

    assert writable == []
    assert instructor.run("mv", str(root / "nbgrader_config.py"), str(root / "old.py")).returncode != 0
    assert root_trust.course_load_problems(root)[0] == []


def test_the_hub_course_lets_the_instructor_read_it_and_write_the_gradebook(hub_course, instructor):
    root = hub_course.root

    assert instructor.run("cat", str(root / "nbgrader_config.py")).returncode == 0
    assert instructor.run("ls", str(root / "source")).returncode == 0
    assert can_write(instructor, root / "gradebook" / "gradebook.db")
    assert can_write(instructor, root / "gradebook" / "gradebook.db-journal")  # SQLite's own files beside it


def test_the_hub_course_passes_the_services_privacy_check(hub_course):
    inside = [problem for problem in course_problems(hub_course)
              if problem.path == hub_course.root or hub_course.root in problem.path.parents]

    assert inside == []


def test_a_sticky_folder_every_account_can_write_is_refused_as_a_folder_of_the_import_path(top, course,
                                                                                           monkeypatch):
    shared = top / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # fine above an entry root owns, not as a folder modules are imported from
    monkeypatch.syspath_prepend(str(shared))

    problems, _packages = root_trust.course_load_problems(course.root)

    assert [(p.path, p.why) for p in problems] == [(shared, "writable by every account")]


def test_a_page_template_the_instructor_owns_on_jupyters_path_is_refused(course, instructor, top, monkeypatch):
    templates = top / "jupyter" / "nbconvert" / "templates" / "lab"
    templates.mkdir(parents=True)
    template = templates / "index.html.j2"
    template.write_text("{{ ''.__class__ }}")  # Jinja reaches Python objects from a template
    instructor.owns(template)
    monkeypatch.setenv("JUPYTER_PATH", str(top / "jupyter"))

    with pytest.raises(root_trust.UntrustedError, match=f"{template} is owned by {instructor.name}"):
        root_trust.refuse_untrusted_course(course.root, "the course")
