"""The passback journal keeps every score until the platform takes it, tries again after a backoff,
and posts each grading run once (scores are added here directly; the local platform is real)."""
from __future__ import annotations

import pytest
from lti_platform import LtiPlatform

from grader.course import Course
from grader.lti.journal import CLAIM_SECONDS, PENDING, POSTED, REJECTED, Backoff, PassbackJournal
from grader.lti.passback import journal_of, post_due
from grader.lti.registration import Platform, RegistrationError, save_platform
from grader.lti.tool_keys import tool_key

GRADED_AT = 1_780_000_000.0


@pytest.fixture
def platform():
    with LtiPlatform() as running:
        yield running


@pytest.fixture
def course(tmp_path, platform) -> Course:
    """A course folder registered with the platform, whose student ada is the platform's lms-ada."""
    course = Course(tmp_path)
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    platform.register_tool(tool_key(course.state_dir).jwks())
    save_platform(course.state_dir, Platform(platform.issuer, "grader-tool", "deployment-1", platform.auth_url,
                                             platform.token_url, platform.jwks_url, platform.lineitems_url))
    with journal_of(course) as journal:
        journal.link_account("ada", "lms-ada")
    return course


def add_score(course: Course, run: str = "run-1", score: float = 7.0) -> bool:
    with journal_of(course) as journal:
        return journal.add("01_variance", "ada", run, score, 10.0, GRADED_AT)


def states(course: Course) -> list[tuple[str, int]]:
    with journal_of(course) as journal:
        return [(row.state, row.attempts) for row in journal.unposted() + journal.posted()]


def test_the_same_grading_run_is_recorded_once(tmp_path):
    with PassbackJournal(tmp_path / "journal.sqlite") as journal:
        assert journal.add("01_variance", "ada", "run-1", 7.0, 10.0, GRADED_AT)
        assert not journal.add("01_variance", "ada", "run-1", 7.0, 10.0, GRADED_AT)


def test_a_newer_grading_replaces_an_unposted_older_one(tmp_path):
    with PassbackJournal(tmp_path / "journal.sqlite") as journal:
        journal.add("01_variance", "ada", "run-1", 3.0, 10.0, GRADED_AT)
        journal.add("01_variance", "ada", "run-2", 9.0, 10.0, GRADED_AT + 60)
        assert [row.score for row in journal.unposted()] == [9.0]


def test_the_backoff_doubles_up_to_its_longest():
    assert [Backoff().seconds(n) for n in (1, 2, 3)] == [60, 120, 240]
    assert Backoff().seconds(100) == 6 * 3600


def test_the_courses_retry_settings_set_the_backoff(course):
    with open(course.root / "nbgrader_config.py", "a") as config:
        config.write("c.LmsPassback.first_retry_seconds = 5\nc.LmsPassback.longest_retry_seconds = 15\n")
    with journal_of(course) as journal:
        assert [journal.backoff.seconds(n) for n in (1, 2, 3, 4)] == [5, 10, 15, 15]


def test_a_rejected_score_waits_for_its_backoff_then_is_posted(course, platform):
    add_score(course)
    first = post_due(course, now=GRADED_AT)
    assert first.failed == 1 and states(course) == [(REJECTED, 1)]
    platform.enrol("lms-ada")
    assert post_due(course, now=GRADED_AT + Backoff().seconds(1) - 1).posted == 0
    assert post_due(course, now=GRADED_AT + Backoff().seconds(1)).posted == 1
    assert states(course) == [(POSTED, 2)]
    assert platform.gradebook("01_variance") == {"lms-ada": 7.0}


def test_an_unreachable_platform_keeps_the_score_pending(course, platform, tmp_path):
    add_score(course)
    save_platform(course.state_dir, Platform(platform.issuer, "grader-tool", "deployment-1", platform.auth_url,
                                             "http://127.0.0.1:9/token", platform.jwks_url, platform.lineitems_url))
    summary = post_due(course, now=GRADED_AT)
    assert summary.failed == 1 and states(course) == [(PENDING, 1)]
    assert platform.scores("01_variance") == []


def test_a_posted_score_is_not_posted_again(course, platform):
    platform.enrol("lms-ada")
    add_score(course)
    post_due(course, now=GRADED_AT)
    add_score(course)
    assert post_due(course, now=GRADED_AT + 10 ** 6).posted == 0
    assert len(platform.scores("01_variance")) == 1


@pytest.mark.parametrize("field, value, says", [
    ("token_url", "http://lms.example.edu/token", "must be an https:// URL"),
    ("issuer", "", "issuer is empty"),
])
def test_a_registration_with_a_bad_field_is_refused_naming_it(field, value, says):
    good = dict(issuer="https://lms.example.edu", client_id="c", deployment_id="d",
                auth_login_url="https://lms.example.edu/auth", token_url="https://lms.example.edu/token",
                jwks_url="https://lms.example.edu/jwks", lineitems_url="https://lms.example.edu/li")
    with pytest.raises(RegistrationError, match=says):
        Platform(**{**good, field: value})


def test_a_line_item_deleted_in_the_lms_is_made_again_at_the_next_try(course, platform):
    platform.enrol("lms-ada")
    add_score(course, run="run-1", score=4.0)
    post_due(course, now=GRADED_AT)
    platform.line_items.clear()  # an instructor deletes the column in the LMS gradebook
    add_score(course, run="run-2", score=9.0)
    assert post_due(course, now=GRADED_AT + 1).failed == 1  # 404 from the deleted line item
    assert post_due(course, now=GRADED_AT + 1 + Backoff().seconds(1)).posted == 1
    assert platform.gradebook("01_variance") == {"lms-ada": 9.0}
    assert len(platform.line_items) == 1


def test_a_score_one_process_is_posting_is_left_alone_by_another(tmp_path):
    first, second = PassbackJournal(tmp_path / "journal.sqlite"), PassbackJournal(tmp_path / "journal.sqlite")
    first.add("01_variance", "ada", "run-1", 7.0, 10.0, GRADED_AT)
    [row] = second.due(GRADED_AT)
    assert first.claim(row.id, GRADED_AT)
    assert not second.claim(row.id, GRADED_AT)
    assert second.due(GRADED_AT) == []
    assert [r.id for r in second.due(GRADED_AT + CLAIM_SECONDS)] == [row.id]  # the first one died posting
    first.close()
    second.close()
