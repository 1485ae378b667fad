"""A launch from the LMS logs a student into the course hub as their own account.

The real command brings up a hub (`grader hub up`, as root); the local LTI 1.3 platform
(grader_tests/lti_platform.py) plays the LMS: its user opens the tool, the hub sends them to the
platform's OIDC authorization endpoint, the platform posts a signed id_token back, and the hub
(jupyterhub-ltiauthenticator with the course's checks, grader/hub/lti_login.py) signs them in as the
hub account linked to that LMS user; JupyterLab then opens for that account. An HTTP client with a
cookie jar does what a browser does (it submits the platform's auto-posting form itself).

The tests share one hub and one platform and run in this order, as a course does: students open
the hub from the LMS, an instructor links the assignment, a student hands in and the score reaches
the linked line item.
"""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import nbformat
import pytest
from hub_session import require_hub, stop_hub, wait_ready
from lti_platform import LtiPlatform
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission
from grader.hub.accounts import Accounts
from grader.hub.layout import DEFAULT_CACHE, HubLayout
from grader.lti.access_token import TokenClient
from grader.lti.ags import find_or_create_line_item
from grader.lti.registration import load_platform
from grader.lti.tool_keys import tool_key
from grader.settings import DB_URL
from grader_tests.account_prefix import unused_account_prefix

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("lti_hub")]
# The hub's environment, built once (minutes the first time); another folder may be named for a run.
CACHE = Path(os.environ.get("GRADER_TEST_HUB_CACHE", str(DEFAULT_CACHE)))
ASSIGNMENT, NOTEBOOK = "02_softmax", "softmax.ipynb"
GRADING_TIMEOUT = 300  # seconds for the hub's grading service to grade a hand-in and post its score
LAB_TIMEOUT = 240  # seconds for a student's JupyterLab to start on a busy machine


class Browser:
    """Follows redirects and keeps cookies, as a browser does; answers are (status, final URL, text)."""

    def __init__(self):
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def open(self, url: str, form: dict[str, str] | None = None, method: str | None = None,
             body: bytes | None = None) -> tuple[int, str, str]:
        data = urllib.parse.urlencode(form).encode() if form is not None else body
        headers = {"X-XSRFToken": xsrf} if (xsrf := self.cookie("_xsrf", urllib.parse.urlsplit(url).path)) else {}
        try:
            with self.opener.open(urllib.request.Request(url, data=data, method=method, headers=headers),
                                  timeout=60) as answer:
                return answer.status, answer.url, answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.url, exc.read().decode("utf-8", "replace")

    def cookie(self, name: str, path: str = "/") -> str | None:
        """The value of the cookie ``name`` a request to ``path`` carries first (the most specific path)."""
        matching = [c for c in self.cookies if c.name == name and path.startswith(c.path)]
        return max(matching, key=lambda c: len(c.path)).value if matching else None

    def submit_auto_form(self, page: str) -> tuple[int, str, str]:
        """Submit the page's auto-posting form (the platform's answer to an authentication request)."""
        action = html.unescape(re.search(r'<form[^>]*action="([^"]+)"', page).group(1))
        fields = {html.unescape(name): html.unescape(value)
                  for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}
        return self.open(action, fields)


def grader(*args: str, gradebook_url: str = "") -> str:
    env = {**os.environ, DB_URL.name: gradebook_url} if gradebook_url else None
    done = subprocess.run([sys.executable, "-m", "grader.cli", *args], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def lti_hub(tmp_path_factory):
    """A course hub with one student, registered with a running local LTI platform."""
    require_hub()
    layout = HubLayout(root=Path(tempfile.mkdtemp(prefix="sal-lti-hub-")), cache=CACHE)
    log = tmp_path_factory.mktemp("lti-hub") / "grader-hub-up.log"
    with open(log, "wb") as out:
        command = subprocess.Popen(
            [sys.executable, "-m", "grader.cli", "hub", "up", "--root", str(layout.root), "--cache", str(CACHE),
             "--students", "1", "--port", "0", "--prefix", unused_account_prefix("l"), "--assignments", "02_softmax"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        running = wait_ready(layout, command, log)
        with LtiPlatform() as platform:
            course = ["--course", str(layout.course)]
            jwks = json.loads(grader("lti", "jwks", *course))
            platform.register_tool(jwks, redirect_uris=[f"{running.url}/hub/lti13/oauth_callback"])
            grader("lti", "register", *course, "--issuer", platform.issuer, "--client-id", "grader-tool",
                   "--deployment-id", "deployment-1", "--auth-url", platform.auth_url, "--token-url",
                   platform.token_url, "--jwks-url", platform.jwks_url, "--lineitems-url", platform.lineitems_url,
                   gradebook_url=layout.gradebook_url)  # the hub's gradebook, as its grading service has it
            yield running.url, platform, Accounts.load(layout.accounts_file), layout
    finally:
        stop_hub(command, layout)


def launch(hub_url: str, platform: LtiPlatform, lms_user: str) -> tuple[Browser, tuple[int, str, str]]:
    """The LMS user opens the tool: login initiation, the platform's answer, its form posted to the hub."""
    browser = Browser()
    status, _, page = browser.open(platform.launch_address(f"{hub_url}/hub/lti13/oauth_login", lms_user,
                                                           f"{hub_url}/hub"))
    assert status == 200 and "id_token" in page, page[:2000]
    return browser, browser.submit_auto_form(page)


def test_a_launch_from_the_lms_opens_jupyterlab_as_the_linked_hub_account(lti_hub):
    hub_url, platform, accounts, layout = lti_hub
    student = accounts.students[0].name
    platform.enrol("lms-student-1")
    grader("lti", "link", student, "lms-student-1", "--course", str(layout.course))
    browser, (status, url, page) = launch(hub_url, platform, "lms-student-1")
    assert status == 200, page[:2000]
    deadline = time.monotonic() + LAB_TIMEOUT
    while time.monotonic() < deadline:
        status, url, page = browser.open(f"{hub_url}/user/{student}/lab")
        if status == 200 and url.startswith(f"{hub_url}/user/{student}/lab"):
            break
        time.sleep(2)
    assert (status, url.split("?")[0]) == (200, f"{hub_url}/user/{student}/lab"), page[:2000]
    assert "JupyterLab" in page


def signed_in_student(hub_url: str, platform: LtiPlatform, student: str, lms_user: str) -> Browser:
    """A browser in which ``lms_user`` opened the tool and ``student``'s JupyterLab answers."""
    browser, _ = launch(hub_url, platform, lms_user)
    deadline = time.monotonic() + LAB_TIMEOUT
    while time.monotonic() < deadline:
        status, url, _ = browser.open(f"{hub_url}/user/{student}/lab")
        if status == 200 and url.startswith(f"{hub_url}/user/{student}/lab"):
            return browser
        time.sleep(2)
    raise AssertionError(f"{student}'s JupyterLab did not open within {LAB_TIMEOUT} s")


def test_a_launch_of_an_lms_user_linked_to_no_account_is_refused_saying_what_to_run(lti_hub):
    hub_url, platform, _, _ = lti_hub
    platform.enrol("lms-stranger")
    _, (status, _, page) = launch(hub_url, platform, "lms-stranger")
    assert status == 403
    assert "grader lti link ACCOUNT lms-stranger" in html.unescape(page)


def test_a_launch_whose_id_token_another_key_signed_is_refused(lti_hub, tmp_path):
    hub_url, platform, accounts, _ = lti_hub
    platform.enrol("lms-student-1")
    browser = Browser()
    _, _, page = browser.open(platform.launch_address(f"{hub_url}/hub/lti13/oauth_login", "lms-student-1",
                                                      f"{hub_url}/hub"))
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    token = re.search(r'name="id_token" value="([^"]+)"', page).group(1)
    claims = jwt.decode(token, options={"verify_signature": False})
    forged = jwt.encode(claims, rsa.generate_private_key(public_exponent=65537, key_size=2048), algorithm="RS256",
                        headers={"kid": platform.kid})
    status, _, _ = browser.submit_auto_form(page.replace(token, forged))
    assert status == 400
    status, url, _ = browser.open(f"{hub_url}/hub/home")
    assert "/hub/login" in url  # not signed in


def test_the_hub_serves_the_tools_public_keys_for_the_lms(lti_hub):
    hub_url, _, _, layout = lti_hub
    status, _, served = Browser().open(f"{hub_url}/hub/lti13/jwks")
    assert status == 200
    assert json.loads(served) == json.loads(grader("lti", "jwks", "--course", str(layout.course)))
    assert all("d" not in key for key in json.loads(served)["keys"])  # public halves only


def test_a_hub_account_still_signs_in_with_its_password(lti_hub):
    hub_url, _, accounts, _ = lti_hub
    account = accounts.instructor
    browser = Browser()
    _, _, page = browser.open(f"{hub_url}/hub/login")
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page).group(1)
    status, _, _ = browser.open(f"{hub_url}/hub/login?next=/hub/home",
                                {"username": account.name, "password": account.password, "_xsrf": xsrf})
    status, url, _ = browser.open(f"{hub_url}/hub/home")
    assert status == 200 and url == f"{hub_url}/hub/home"


def test_an_instructor_links_an_assignment_and_its_line_item_is_the_one_scores_go_to(lti_hub):
    hub_url, platform, _, layout = lti_hub
    platform.enrol_instructor("lms-teacher")
    browser = Browser()
    _, _, page = browser.open(platform.launch_address(f"{hub_url}/hub/lti13/oauth_login", "lms-teacher",
                                                      f"{hub_url}/hub", deep_linking=True))
    status, _, offers = browser.submit_auto_form(page)
    assert status == 200 and "02_softmax" in offers, re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", offers))[-1500:]
    status, _, answer = browser.submit_auto_form(offers)  # the first (only) assignment's form
    assert status == 200, answer
    course = Course(layout.course)
    with Gradebook(layout.gradebook_url) as gb:
        points = float(gb.find_assignment("02_softmax").max_score)
    assert [(i.resource_id, i.score_maximum) for i in platform.line_items] == [("02_softmax", points)]
    assert platform.resource_links[0]["url"] == f"{hub_url}/hub"
    client = TokenClient(load_platform(course.state_dir), tool_key(course.state_dir))
    assert find_or_create_line_item(client, platform.lineitems_url, "02_softmax", points) == platform.line_items[0].id
    assert len(platform.line_items) == 1


def test_a_student_cannot_link_assignments(lti_hub):
    hub_url, platform, _, _ = lti_hub
    platform.enrol("lms-student-2")
    browser = Browser()
    _, _, page = browser.open(platform.launch_address(f"{hub_url}/hub/lti13/oauth_login", "lms-student-2",
                                                      f"{hub_url}/hub", deep_linking=True))
    status, _, answer = browser.submit_auto_form(page)
    assert status == 403 and "only the course's instructors" in html.unescape(answer), re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", answer))[-1500:]


def test_a_launched_students_hand_in_is_graded_and_its_score_reaches_the_line_item_once(lti_hub):
    hub_url, platform, accounts, layout = lti_hub
    student = accounts.students[0].name
    platform.enrol("lms-student-1")
    grader("lti", "link", student, "lms-student-1", "--course", str(layout.course))
    browser = signed_in_student(hub_url, platform, student, "lms-student-1")
    server = f"{hub_url}/user/{student}"
    [course_id] = json.loads(browser.open(f"{server}/courses")[2])["value"]
    handed = {"course_id": course_id, "assignment_id": ASSIGNMENT}
    status, _, answer = browser.open(f"{server}/assignments/fetch", handed)
    assert status == 200 and json.loads(answer)["success"], answer
    fetched = json.loads(browser.open(f"{server}/api/contents/{ASSIGNMENT}/{NOTEBOOK}")[2])["content"]
    source = nbformat.read(layout.course / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    answered = build_notebook(get_submission(ASSIGNMENT, "model_answer"), nbformat.from_dict(fetched), source)
    status, _, answer = browser.open(f"{server}/api/contents/{ASSIGNMENT}/{NOTEBOOK}", method="PUT", body=json.dumps(
        {"type": "notebook", "format": "json", "content": answered}).encode())
    assert status == 200, answer
    status, _, answer = browser.open(f"{server}/assignments/submit", handed)
    assert status == 200 and json.loads(answer)["success"], answer

    deadline = time.monotonic() + GRADING_TIMEOUT
    while not platform.scores(ASSIGNMENT) and time.monotonic() < deadline:
        time.sleep(2)
    with Gradebook(layout.gradebook_url) as gb:
        score = float(gb.find_submission(ASSIGNMENT, student).score)
    assert score > 0 and platform.gradebook(ASSIGNMENT) == {"lms-student-1": score}
    time.sleep(5)  # the grading service's next passes post nothing more
    assert len(platform.scores(ASSIGNMENT)) == 1
    assert len([item for item in platform.line_items if item.resource_id == ASSIGNMENT]) == 1
