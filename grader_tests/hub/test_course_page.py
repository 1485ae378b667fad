"""The students' course page on the hub (grader.hub.course_page), without a hub: how it is installed
and enabled, and how it words times and orders hand-ins. test_hub_course_page.py walks it in a browser."""
from __future__ import annotations

import ast
import json
import logging
import shutil
import time
from types import SimpleNamespace

import pytest
from traitlets.config import Config

from grader import validation
from grader.hub import course_page, language_page
from grader.hub.course_page import (
    WORDS,
    PageLinks,
    awaits_feedback,
    failure_html,
    local_time,
    needs_fetching,
    newest_first,
    page_language,
    render_course_page,
)
from grader.hub.environment import install_course_page
from grader.hub.jupyter_config import write_role_configs
from grader.hub.layout import HubLayout
from grader_tests.checkout import REPO_ROOT


@pytest.fixture
def zurich_time(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Zurich")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_page_and_its_validator_are_copied_into_the_students_environment_as_top_level_modules(tmp_path):
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    install_course_page(tmp_path / "env")
    assert (site / f"{course_page.MODULE_NAME}.py").read_text() == open(course_page.__file__).read()
    assert (site / f"{course_page.VALIDATION_MODULE}.py").read_text() == open(validation.__file__).read()


@pytest.mark.parametrize("module", [course_page, validation], ids=lambda m: m.__name__)
def test_what_the_students_environment_gets_imports_nothing_of_the_grader_which_it_lacks(module):
    tree = ast.parse(open(module.__file__).read())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not [name for name in imported if name.split(".")[0] in ("grader", "solutions")]


@pytest.fixture
def nbgraders_validate_handler():
    """nbgrader's Validate handler module, its validator class put back afterwards."""
    from nbgrader.server_extensions.validate_assignment import handlers

    original = handlers.Validator
    yield handlers
    handlers.Validator = original


def test_a_server_without_the_course_validator_keeps_nbgraders(nbgraders_validate_handler):
    original = nbgraders_validate_handler.Validator
    assert course_page.use_course_validator("no_such_module") is False
    assert nbgraders_validate_handler.Validator is original


@pytest.mark.slow
def test_validate_in_jupyterlab_lists_a_fresh_notebooks_tests_as_not_attempted_yet(nbgraders_validate_handler,
                                                                                    tmp_path):
    assert course_page.use_course_validator("grader.validation") is True
    shutil.copy(REPO_ROOT / "release" / "02_softmax" / "softmax.ipynb", tmp_path / "softmax.ipynb")
    handler = SimpleNamespace(root_dir=str(tmp_path), load_config=Config, log=logging.getLogger("validate"))
    answer = nbgraders_validate_handler.ValidateAssignmentHandler.validate_notebook(handler, "softmax.ipynb")
    assert answer["success"], answer
    assert answer["value"][validation.SUMMARY_KEY]["failed"] == 0
    assert {entry["raw_error"] for entry in answer["value"]["failed"]} == {validation.NOT_ATTEMPTED}


def test_only_the_students_servers_enable_the_page(tmp_path):
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    write_role_configs(layout, "course101", tmp_path / "course")
    switches = {role: json.loads((folder / "jupyter_server_config.d" / "zz-course-hub.json").read_text())
                ["ServerApp"]["jpserver_extensions"][course_page.MODULE_NAME]
                for role, folder in (("student", layout.student_config), ("instructor", layout.instructor_config))}
    assert switches == {"student": True, "instructor": False}


def test_a_hand_in_time_is_shown_in_local_time_to_the_second_with_its_zone(zurich_time):
    assert local_time("2026-12-06 07:12:03.123456 UTC") == "Sun 6 Dec 2026, 08:12:03 CET"


def test_a_hand_in_time_is_shown_in_chinese_to_a_chinese_reader(zurich_time):
    assert local_time("2026-12-06 07:12:03.123456 UTC", "zh") == "2026年12月6日 周日 08:12:03 CET"


def test_every_language_of_the_page_says_everything_english_says():
    assert {language: sorted(words) for language, words in WORDS.items()} == \
        {language: sorted(WORDS["en"]) for language in WORDS}


@pytest.mark.parametrize(("variable", "language"), [("zh", "zh"), ("en", "en"), ("fr", "en"), (None, "en")])
def test_the_page_speaks_the_language_the_hub_gave_the_student_else_english(monkeypatch, variable, language):
    if variable is None:
        monkeypatch.delenv(course_page.LANGUAGE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(course_page.LANGUAGE_VARIABLE, variable)
    assert page_language() == language


def test_hand_ins_are_ordered_newest_first():
    handins = [{"timestamp": "2026-12-06 07:12:03.1 UTC"}, {"timestamp": "2026-12-06 09:00:00.5 UTC"},
               {"timestamp": "2026-12-06 08:30:00.0 UTC"}]
    assert [h["timestamp"][11:16] for h in newest_first(handins)] == ["09:00", "08:30", "07:12"]


def test_a_hand_in_awaits_feedback_until_its_feedback_reaches_the_exchange():
    assert awaits_feedback({"has_exchange_feedback": False, "has_local_feedback": False})
    assert not awaits_feedback({"has_exchange_feedback": True, "has_local_feedback": False})


def test_feedback_is_fetched_when_the_exchange_holds_a_page_the_home_lacks_or_a_newer_one():
    assert needs_fetching({"has_exchange_feedback": True, "has_local_feedback": False})
    assert needs_fetching({"has_exchange_feedback": True, "has_local_feedback": True, "feedback_updated": True})
    assert not needs_fetching({"has_exchange_feedback": True, "has_local_feedback": True, "feedback_updated": False})
    assert not needs_fetching({"has_exchange_feedback": False, "has_local_feedback": False})


class FakeAssignmentList:
    """nbgrader's assignment-list manager as the page uses it: one hand-in of 02_softmax."""

    def __init__(self, exchange_has_feedback: bool = True, fetched: bool = True):
        self.fetched_feedback: list[tuple[str, str]] = []
        self.notebook = {"notebook_id": "softmax", "has_exchange_feedback": exchange_has_feedback,
                         "has_local_feedback": fetched, "feedback_updated": False,
                         "local_feedback_path": "/home/s1/02_softmax/feedback/T1/softmax.html" if fetched else None}

    def list_submitted_assignments(self):
        submission = {"course_id": "course101", "assignment_id": "02_softmax", "timestamp": "T1",
                      "has_exchange_feedback": self.notebook["has_exchange_feedback"],
                      "has_local_feedback": self.notebook["has_local_feedback"], "notebooks": [self.notebook]}
        return {"success": True, "value": [{"assignment_id": "02_softmax", "submissions": [submission]}]}

    def list_released_assignments(self):
        return {"success": True, "value": [{"course_id": "course101", "assignment_id": "02_softmax",
                                            "status": "fetched", "notebooks": []}]}

    def fetch_feedback(self, course_id, assignment_id):
        self.fetched_feedback.append((course_id, assignment_id))
        self.notebook.update(has_local_feedback=True, local_feedback_path="/home/s1/02_softmax/feedback/T1/softmax.html")


def test_a_feedback_page_is_found_only_for_a_hand_in_and_a_notebook_listed_as_the_students():
    page = course_page.CoursePage(FakeAssignmentList())
    assert str(page.feedback_file("02_softmax", "T1", "softmax")) == "/home/s1/02_softmax/feedback/T1/softmax.html"
    assert page.feedback_file("02_softmax", "T0", "softmax") is None
    assert page.feedback_file("02_softmax", "T1", "../../s2/02_softmax/feedback/T1/softmax") is None
    assert page.feedback_file("03_readout", "T1", "softmax") is None


def test_showing_the_page_fetches_feedback_the_exchange_holds_under_the_assignments_course():
    manager = FakeAssignmentList(exchange_has_feedback=True, fetched=False)
    _released, submitted = course_page.CoursePage(manager).listing()
    assert manager.fetched_feedback == [("course101", "02_softmax")]
    assert submitted["02_softmax"][0]["notebooks"][0]["local_feedback_path"]


def test_nothing_is_fetched_while_the_exchange_holds_no_feedback():
    manager = FakeAssignmentList(exchange_has_feedback=False, fetched=False)
    course_page.CoursePage(manager).listing()
    assert manager.fetched_feedback == []


LINKS = PageLinks("/user/s1/", '<input type="hidden" name="_xsrf" value="token">')
FETCHED = [{"course_id": "course101", "assignment_id": "02_softmax", "status": "fetched",
            "notebooks": [{"notebook_id": "softmax", "path": "02_softmax/softmax.ipynb"}]}]
HANDED_IN = {"02_softmax": [{"timestamp": "2026-12-06 07:12:03.1 UTC", "has_exchange_feedback": True,
                             "notebooks": [{"notebook_id": "softmax", "local_feedback_path": "/f/softmax.html"}]},
                            {"timestamp": "2026-12-06 07:20:00.0 UTC", "has_exchange_feedback": False,
                             "has_local_feedback": False, "notebooks": [{"notebook_id": "softmax"}]}]}


def page_text(page: str) -> str:
    from bs4 import BeautifulSoup

    return BeautifulSoup(page, "html.parser").get_text(" ", strip=True)


def test_a_chinese_readers_page_is_in_chinese_with_nbgraders_names_unchanged():
    page = render_course_page(FETCHED, HANDED_IN, LINKS, "zh")
    assert '<html lang="zh-Hans">' in page
    text = page_text(page)
    for key in ("title", "submit", "handins", "waiting"):
        assert WORDS["zh"][key] in text
    assert "softmax：阅读反馈" in text and "softmax.ipynb" in text and "02_softmax" in text
    assert not [word for word in ("Fetch", "Submit", "hand-ins", "waiting", "feedback", "Your course") if word in text]


def test_an_english_readers_page_has_no_chinese():
    text = page_text(render_course_page(FETCHED, HANDED_IN, LINKS, "en"))
    assert "Submit" in text and "softmax: read the feedback" in text
    assert not [ch for ch in text if "\u4e00" <= ch <= "\u9fff"]


def test_the_page_carries_the_servers_form_token_in_every_form():
    page = render_course_page(FETCHED, {}, LINKS, "en")
    assert page.count("<form ") == page.count('name="_xsrf" value="token"') == 1


NBGRADERS_TRACEBACK = """[SubmitApp | ERROR] Inbound directory doesn't exist: /srv/exchange/course101/inbound
Traceback (most recent call last):
  File "nbgrader/exchange/default/submit.py", line 80, in init_dest
    self.fail("Inbound directory doesn't exist")
nbgrader.exchange.abc.exchange.ExchangeError: Inbound directory doesn't exist: /srv/exchange/course101/inbound
"""


def test_a_failed_submit_says_what_failed_nbgraders_reason_in_one_line_and_what_to_do():
    text = page_text(failure_html("submit", "02_softmax", NBGRADERS_TRACEBACK, "en"))
    assert text.startswith("Submit of 02_softmax did not go through: Inbound directory doesn't exist: "
                           "/srv/exchange/course101/inbound Save your notebook")
    assert "press Submit again" in text and "Traceback" not in text


def test_a_failed_fetch_without_a_reason_says_so_in_the_students_language():
    text = page_text(failure_html("fetch", "02_softmax", "", "zh"))
    assert WORDS["zh"]["no_reason"] in text and WORDS["zh"]["fetch"] in text


def test_a_very_long_reason_is_cut_short():
    text = page_text(failure_html("submit", "02_softmax", "x" * 5000, "en"))
    assert len(text) < course_page.REASON_CHARACTERS + 200


def test_the_problem_is_announced_before_the_assignments():
    page = render_course_page(FETCHED, {}, LINKS, "en", failure_html("submit", "02_softmax", "disk full", "en"))
    assert page.index('role="alert"') < page.index('id="assignment-02_softmax"')
    assert "disk full" in page


ON_A_HUB = PageLinks("/user/s1/", LINKS.form_token, hub_url="/")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_on_a_hub_the_page_links_to_the_hubs_language_page_in_the_students_language(language):
    page = render_course_page(FETCHED, {}, ON_A_HUB, language)
    assert f'<a class="language" href="/hub/{language_page.PAGE_PATH}">{WORDS[language]["language"]}</a>' in page


def test_off_a_hub_the_page_has_no_language_link():
    assert 'class="language"' not in render_course_page(FETCHED, {}, LINKS, "en")


def test_the_page_links_to_the_path_the_hub_serves_its_language_page_at():
    assert course_page.LANGUAGE_PAGE == language_page.PAGE_PATH
