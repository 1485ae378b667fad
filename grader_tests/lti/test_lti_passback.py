"""Scores reach the LMS: a graded hand-in's score appears in the platform's line item once, a post
the platform rejects is kept, shown and sent again, and a course with no platform posts nothing.

Real parts only: the local LTI 1.3 platform (grader_tests/lti_platform.py) over HTTP, `grader
autograde` and `grader lti` run as the instructor runs them, real kernels.
"""
from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from lti_platform import LtiPlatform
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission, write_submission
from grader.lti.health import passback_health
from grader.lti.journal import POSTED, REJECTED
from grader.lti.passback import journal_of
from grader.lti.registration import Platform, save_platform
from grader.lti.tool_keys import tool_key
from grader.service.watch import GradingLoop
from grader.state_folders import LTI_FOLDER
from grader_tests.service_setup import accounts_skip_reason, temporary_service_course

pytestmark = pytest.mark.slow
ASSIGNMENT = "01_variance"
SERVICE_ASSIGNMENT, SERVICE_NOTEBOOK = "02_softmax", "softmax.ipynb"
RUN_TIMEOUT = 900  # seconds; generous for a loaded machine


def grader(course: Course, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader.cli", *args, "--course", str(course.root)],
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)


def hand_in(course: Course, student: str, kind: str = "model_answer") -> None:
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    write_submission(course, student, ASSIGNMENT, build_notebook(get_submission(ASSIGNMENT, kind), release, source))


def register(course: Course, platform: LtiPlatform) -> None:
    """The administrator's side (the tool's JWKS into the platform) and the instructor's (grader lti register)."""
    jwks = tool_key(course.state_dir).jwks()
    platform.register_tool(jwks)
    done = grader(course, "lti", "register", "--issuer", platform.issuer, "--client-id", "grader-tool",
                  "--deployment-id", "deployment-1", "--auth-url", platform.auth_url, "--token-url",
                  platform.token_url, "--jwks-url", platform.jwks_url, "--lineitems-url", platform.lineitems_url)
    assert done.returncode == 0, done.stderr


def gradebook_score(course: Course, student: str) -> float:
    with Gradebook(course.db_url) as gb:
        return float(gb.find_submission(ASSIGNMENT, student).score)


@pytest.fixture
def platform():
    with LtiPlatform() as running:
        yield running


def test_a_graded_hand_in_reaches_the_line_item_once(course, platform):
    register(course, platform)
    platform.enrol("lms-ada")
    assert grader(course, "lti", "link", "ada", "lms-ada").returncode == 0
    hand_in(course, "ada")
    first = grader(course, "autograde", ASSIGNMENT, "--workers", "1")
    assert first.returncode == 0, first.stdout + first.stderr
    assert platform.gradebook(ASSIGNMENT) == {"lms-ada": gradebook_score(course, "ada")}
    again = grader(course, "autograde", ASSIGNMENT, "--workers", "1", "--force")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(platform.scores(ASSIGNMENT)) == 1
    assert [item.resource_id for item in platform.line_items] == [ASSIGNMENT]


def test_a_rejected_score_is_kept_shown_and_sent_once_accepted(course, platform):
    register(course, platform)
    assert grader(course, "lti", "link", "ben", "lms-ben").returncode == 0
    hand_in(course, "ben", "loops_float32")
    assert grader(course, "autograde", ASSIGNMENT, "--workers", "1").returncode == 0
    assert platform.scores(ASSIGNMENT) == []  # lms-ben is not a member of the course yet
    with journal_of(course) as journal:
        [kept] = journal.unposted()
    assert kept.state == REJECTED and "422" in kept.reason and "not a member" in kept.reason
    healthy, detail = passback_health(course.state_dir)
    assert not healthy and "ben 01_variance" in detail
    status = grader(course, "lti", "status")
    assert status.returncode == 1 and "rejected" in status.stdout

    platform.enrol("lms-ben")
    resent = grader(course, "lti", "resend")
    assert resent.returncode == 0, resent.stdout + resent.stderr
    assert platform.gradebook(ASSIGNMENT) == {"lms-ben": gradebook_score(course, "ben")}
    with journal_of(course) as journal:
        assert [row.state for row in journal.posted()] == [POSTED] and journal.unposted() == []
    assert passback_health(course.state_dir)[0]
    assert grader(course, "lti", "resend").returncode == 0
    assert len(platform.scores(ASSIGNMENT)) == 1


def test_a_hand_in_of_an_unlinked_student_waits_and_is_sent_after_linking(course, platform):
    register(course, platform)
    platform.enrol("lms-cai")
    hand_in(course, "cai", "sample_variance_ddof1")
    assert grader(course, "autograde", ASSIGNMENT, "--workers", "1").returncode == 0
    with journal_of(course) as journal:
        [waiting] = journal.unposted()
    assert "not linked" in waiting.reason and waiting.attempts == 0
    assert grader(course, "lti", "link", "cai", "lms-cai").returncode == 0
    assert grader(course, "lti", "resend").returncode == 0
    assert platform.gradebook(ASSIGNMENT) == {"lms-cai": gradebook_score(course, "cai")}


def test_a_course_without_a_platform_grades_without_passback(course, platform):
    hand_in(course, "ada")
    assert grader(course, "autograde", ASSIGNMENT, "--workers", "1").returncode == 0
    assert passback_health(course.state_dir) is None
    assert not (course.state_dir / LTI_FOLDER).exists()


@pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))
def test_the_grading_service_posts_the_score_of_every_hand_in_it_grades(released_course_template, platform):
    with temporary_service_course(released_course_template, "sal-lti-", (SERVICE_ASSIGNMENT,)) as setup:
        course = setup.course
        platform.register_tool(tool_key(course.state_dir).jwks())
        save_platform(course.state_dir, Platform(platform.issuer, "grader-tool", "deployment-1", platform.auth_url,
                                                 platform.token_url, platform.jwks_url, platform.lineitems_url))
        student = setup.student_id("ada")
        platform.enrol("lms-ada")
        with journal_of(course) as journal:
            journal.link_account(student, "lms-ada")
        given = []
        for kind in ("softmax_no_max_subtraction", "model_answer"):
            setup.hand_in("ada", SERVICE_ASSIGNMENT,
                          {SERVICE_NOTEBOOK: setup.notebook_text(SERVICE_ASSIGNMENT, kind)})
            service = GradingLoop(course, workers=1)
            service.run(once=True)
            service.journal.close()
            with Gradebook(course.db_url) as gb:
                given.append(float(gb.find_submission(SERVICE_ASSIGNMENT, student).score))
        assert given[0] < given[1]
        assert [s["scoreGiven"] for s in platform.scores(SERVICE_ASSIGNMENT)] == given
