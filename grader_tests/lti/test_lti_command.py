"""`grader lti` as the instructor runs it: bad input is refused naming the field, the LMS
administrator's configuration carries the tool's public keys, and `grader doctor`'s row."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grader.course import Course
from grader.doctor import lms_findings
from grader.lti.passback import journal_of
from grader.lti.registration import Platform, save_platform
from grader.lti.tool_keys import tool_key

LMS = "https://lms.example.edu"
REGISTRATION = ["--issuer", LMS, "--client-id", "c1", "--deployment-id", "d1", "--auth-url", f"{LMS}/auth",
                "--token-url", f"{LMS}/token", "--jwks-url", f"{LMS}/jwks", "--lineitems-url", f"{LMS}/lineitems"]


@pytest.fixture
def course(tmp_path) -> Course:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    return Course(tmp_path)


def lti(course: Course, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader.cli", "lti", *args, "--course", str(course.root)],
                          capture_output=True, text=True, timeout=120)


def test_a_registration_is_kept_and_its_key_made(course):
    done = lti(course, "register", *REGISTRATION)
    assert done.returncode == 0, done.stderr
    status = lti(course, "status")
    assert status.returncode == 0 and "client c1, deployment d1" in status.stdout
    assert (tool_key(course.state_dir).jwks()) == json.loads(lti(course, "jwks").stdout)


def test_a_registration_with_a_plain_http_address_is_refused_naming_it(course):
    arguments = [value.replace(f"{LMS}/token", "http://lms.example.edu/token") for value in REGISTRATION]
    done = lti(course, "register", *arguments)
    assert done.returncode != 0
    assert "token_url 'http://lms.example.edu/token' must be an https:// URL" in done.stderr
    assert lti(course, "status").returncode != 0


def test_status_without_a_registration_says_what_to_run(course):
    done = lti(course, "status")
    assert done.returncode != 0 and "grader lti register" in done.stderr


def test_the_administrators_configuration_carries_the_tools_public_keys_and_scopes(course):
    done = lti(course, "config", "--url", "https://hub.example.edu/")
    config = json.loads(done.stdout)
    assert config["public_jwk_set"] == tool_key(course.state_dir).jwks()
    assert "d" not in config["public_jwk_set"]["keys"][0]  # the private exponent stays home
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in config["scopes"]
    assert config["redirect_uris"] == ["https://hub.example.edu/hub/lti13/oauth_callback"]
    assert config["public_jwk_url"] == "https://hub.example.edu/hub/lti13/jwks"


def test_doctor_has_no_lms_row_for_a_course_without_a_platform(course):
    assert lms_findings(str(course.root)) == []


def test_doctor_names_a_rejected_score_and_the_platforms_reason(course):
    save_platform(course.state_dir, Platform(LMS, "c1", "d1", f"{LMS}/auth", f"{LMS}/token", f"{LMS}/jwks",
                                             f"{LMS}/lineitems"))
    with journal_of(course) as journal:
        journal.add("01_variance", "ada", "run-1", 7.0, 10.0, 0.0)
        [row] = journal.unposted()
        journal.mark_failed(row.id, "HTTP 422 user is not a member", rejected=True, now=0.0)
    [finding] = lms_findings(str(course.root))
    assert not finding.active
    assert "ada 01_variance: HTTP 422 user is not a member" in finding.detail


def test_a_csv_links_every_account_it_lists(course, tmp_path):
    links = tmp_path / "links.csv"
    links.write_text("account,lms_user\nada,lms-1\nben,lms-2\n", encoding="utf-8")
    done = lti(course, "link", "--csv", str(links))
    assert done.returncode == 0, done.stderr
    with journal_of(course) as journal:
        assert (journal.lms_user("ada"), journal.lms_user("ben")) == ("lms-1", "lms-2")


def test_a_csv_row_without_its_lms_user_is_refused_naming_the_line(course, tmp_path):
    links = tmp_path / "links.csv"
    links.write_text("account,lms_user\nada,lms-1\nben,\n", encoding="utf-8")
    done = lti(course, "link", "--csv", str(links))
    assert done.returncode != 0 and "line 3: both account and lms_user are needed" in done.stderr
    with journal_of(course) as journal:
        assert journal.lms_user("ada") is None  # nothing of a bad file is taken
