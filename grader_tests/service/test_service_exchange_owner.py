"""An exchange course folder a student made before the first release (which blocks
``nbgrader release_assignment``) is named as a problem to fix before release, by ``grader watch``'s
privacy check and by ``grader doctor``; a real student account makes it."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from grader.service.privacy import exchange_problems, fix
from grader_tests.student_accounts import create_students, remove_students, root_skip_reason

pytestmark = pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))

COURSE_ID = "scaled-attention-lab"  # the course id of the repository's nbgrader_config.py


@pytest.fixture
def exchange_and_student():
    """An exchange root as nbgrader makes it (world-writable, with the sticky bit) in a folder every
    account can traverse, and one real student account."""
    top = Path(tempfile.mkdtemp(prefix="sal-exchange-owner-"))
    top.chmod(0o755)
    root = top / "exchange"
    root.mkdir()
    root.chmod(0o1777)
    [student] = create_students(1, top / "home", COURSE_ID, root)
    try:
        yield root, student
    finally:
        remove_students([student])
        shutil.rmtree(top, ignore_errors=True)


def test_an_exchange_course_folder_a_student_made_is_named_with_the_command_that_removes_it(exchange_and_student):
    root, student = exchange_and_student
    student.run("mkdir", "-p", str(root / COURSE_ID / "outbound"))
    [problem] = exchange_problems(root, COURSE_ID)
    assert problem.path == root / COURSE_ID and problem.command == f"rm -rf {root / COURSE_ID}"
    assert f"owned by uid {(root / COURSE_ID).stat().st_uid}" in str(problem)
    assert "release_assignment refuses it" in str(problem)


def test_fixing_permissions_leaves_a_student_s_folder_for_the_instructor_to_remove(exchange_and_student):
    root, student = exchange_and_student
    student.run("mkdir", str(root / COURSE_ID))
    fix(exchange_problems(root, COURSE_ID))
    assert (root / COURSE_ID).is_dir() and len(exchange_problems(root, COURSE_ID)) == 1


def test_the_instructor_s_own_exchange_course_folder_is_no_problem(exchange_and_student):
    root, student = exchange_and_student
    (root / COURSE_ID / "inbound").mkdir(parents=True)
    (root / COURSE_ID / "inbound").chmod(0o3733)
    assert exchange_problems(root, COURSE_ID) == []
    os.chown(root / COURSE_ID, 1, 1)  # another instructor account, named as trusted
    assert exchange_problems(root, COURSE_ID, trusted_uids=(1,)) == []


def test_doctor_names_a_student_made_exchange_course_folder(exchange_and_student, tmp_path, monkeypatch):
    from grader_tests.checkout import create_course
    from grader.doctor import privacy_findings

    root, student = exchange_and_student
    monkeypatch.setenv("GRADER_EXCHANGE_ROOT", str(root))
    course = create_course(tmp_path / "course")
    student.run("mkdir", str(root / COURSE_ID))
    [row] = [row for row in privacy_findings(str(course.root)) if row.protection == "exchange folder owner"]
    assert not row.active and f"rm -rf {root / COURSE_ID}" in row.detail
