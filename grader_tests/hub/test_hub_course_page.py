"""From login to the second feedback page on the course hub, one click per step at most.

A student who has never logged in (``course_hub.student(2)``) signs in and lands on the course page
(grader.hub.course_page); fetches 02_softmax, opens its notebook in JupyterLab, writes a softmax
without the max subtraction, saves, hands it in, waits on the course page (which updates itself)
and opens the feedback; then fixes the function in JupyterLab, hands in again and opens the newest
feedback. Each step's clicks are counted (``CoursePageWalk``); screenshots go to the test artefacts
(``course-page/``).
"""
from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hub_browser import HubUser
from hub_course_page import CoursePageWalk
from hub_session import ASSIGNMENT
from hub_student_path import SOFTMAX_MARKER, model_softmax, run_wrong_softmax, softmax_row

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course_hub")]


@dataclass
class Walk:
    """What the student saw and how many clicks each step took."""

    landed_on: str = ""
    first_screen: str = ""
    clicks: list[tuple[str, int]] = field(default_factory=list)
    waiting_text: str = ""
    first_rows: list[str] = field(default_factory=list)
    second_rows: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    stamps: list[str] = field(default_factory=list)
    first_feedback: dict = field(default_factory=dict)
    second_feedback: dict = field(default_factory=dict)
    not_served: dict[str, int] = field(default_factory=dict)


def _hand_in_and_open_feedback(walk: CoursePageWalk, seen: Walk, handins: int, shot: str) -> dict:
    with walk.step("open list"):
        walk.switch_to(walk.course)
    with walk.step("submit"):
        walk.click(walk.course.locator(f"#assignment-{ASSIGNMENT} button.submit"))
        walk.handin_rows(ASSIGNMENT).nth(handins - 1).wait_for()
        if handins == 1:
            seen.waiting_text = walk.handin_rows(ASSIGNMENT).first.inner_text()
        walk.wait_for_feedback_links(ASSIGNMENT, handins)
    walk.user.shot(shot)
    rows = walk.handin_rows(ASSIGNMENT).all_inner_texts()
    with walk.step("open feedback"):
        newest = walk.handin_rows(ASSIGNMENT).first.locator("a.feedback")
        walk.feedback = walk.click_link_to_window(newest, walk.feedback)
    seen.first_rows, seen.second_rows = (rows, []) if handins == 1 else (seen.first_rows, rows)
    return walk.read_feedback()


def _statuses_of_guessed_feedback_urls(walk: CoursePageWalk, other_home: Path) -> dict[str, int]:
    """HTTP status of feedback URLs that name no hand-in of the student: another's, a path out."""
    base = f"{walk.user.server_url}/course/feedback/{ASSIGNMENT}"
    others = sorted(p.name for p in (other_home / ASSIGNMENT / "feedback").glob("*"))
    guesses = {"made-up time": f"{base}/{urllib.parse.quote('2020-01-01 00:00:00.000000 UTC', safe='')}/softmax.html",
               "path out": f"{base}/..%2F..%2F..%2F{other_home.name}/softmax.html"}
    if others:
        guesses["another student's hand-in"] = f"{base}/{urllib.parse.quote(others[-1], safe='')}/softmax.html"
    return {name: walk.course.request.get(url).status for name, url in guesses.items()}


@pytest.fixture(scope="module")
def walk(course_hub, browser, hub_artefacts) -> Walk:
    seen = Walk()
    user = HubUser(browser, course_hub.url, course_hub.student(2), hub_artefacts / "course-page")
    walker = CoursePageWalk(user)
    try:
        user.sign_in()
        walker.course.locator(f"#assignment-{ASSIGNMENT}").wait_for()
        seen.landed_on, seen.first_screen = walker.course.url, walker.course.locator("body").inner_text()
        user.shot("01-first-screen")
        with walker.step("fetch"):
            walker.click(walker.course.locator(f"#assignment-{ASSIGNMENT} button.fetch"))
            walker.course.locator(f"#assignment-{ASSIGNMENT} a.notebook").wait_for()
        user.shot("02-fetched")
        with walker.step("open notebook"):
            walker.lab = walker.click_link_to_window(
                walker.course.locator(f"#assignment-{ASSIGNMENT} a.notebook", has_text="softmax.ipynb"), None)
            walker.lab.locator(".jp-NotebookPanel:visible .jp-Notebook-cell").first.wait_for(timeout=240_000)
        lab = walker.lab_user()
        run_wrong_softmax(lab)
        lab.save()
        lab.shot("03-wrong-softmax-saved")
        seen.first_feedback = _hand_in_and_open_feedback(walker, seen, 1, "04-feedback-available")
        walker.feedback.screenshot(path=str(user.artefacts / "05-first-feedback.png"))

        with walker.step("open notebook"):
            walker.switch_to(walker.lab)
        lab.replace_cell_source(SOFTMAX_MARKER, model_softmax())
        lab.save()
        seen.second_feedback = _hand_in_and_open_feedback(walker, seen, 2, "06-feedback-list")
        walker.feedback.screenshot(path=str(user.artefacts / "07-second-feedback.png"))
        times = walker.course.locator(f"#assignment-{ASSIGNMENT} table.handins time")
        seen.times = times.all_inner_texts()
        seen.stamps = [times.nth(i).get_attribute("datetime") for i in range(times.count())]
        seen.not_served = _statuses_of_guessed_feedback_urls(walker, course_hub.layout.home(course_hub.student(0).name))
    except BaseException:
        user.keep_evidence(course_hub.logs)
        raise
    finally:
        seen.clicks = list(walker.clicks)
        user.close()
    return seen


def test_a_student_lands_on_the_course_page_listing_the_released_assignment(walk, course_hub):
    assert walk.landed_on.endswith(f"/user/{course_hub.student(2).name}/course")
    assert ASSIGNMENT in walk.first_screen and "Fetch" in walk.first_screen


def test_the_course_page_offers_jupyterlab_one_click_away(walk):
    assert "Open JupyterLab" in walk.first_screen


def test_each_step_from_login_to_the_second_feedback_takes_at_most_one_click(walk):
    assert [name for name, _ in walk.clicks] == ["fetch", "open notebook", "open list", "submit", "open feedback",
                                                 "open notebook", "open list", "submit", "open feedback"]
    assert all(clicks <= 1 for _, clicks in walk.clicks), walk.clicks


def test_a_hand_in_awaiting_feedback_says_so_and_the_page_updates_itself(walk):
    assert "waiting for feedback" in walk.waiting_text
    assert "read the feedback" in walk.first_rows[0]


def test_hand_ins_show_local_time_to_the_second(walk):
    assert len(walk.times) == 2
    assert all(re.fullmatch(r"\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d:\d\d \S+", time) for time in walk.times), walk.times


def test_the_newest_hand_in_is_listed_first(walk):
    assert len(walk.stamps) == 2 and walk.stamps[0] > walk.stamps[1]
    assert walk.second_rows[0].startswith(walk.times[0])


def test_the_first_feedback_opened_in_one_click_names_the_missing_max_subtraction(walk):
    assert "no max subtraction" in softmax_row(walk.first_feedback)[2]


def test_the_newest_feedback_opened_in_one_click_is_the_fixed_softmax(walk):
    assert softmax_row(walk.second_feedback)[1] == "4 / 4"


def test_no_feedback_page_is_served_for_a_hand_in_that_is_not_the_students(walk):
    assert walk.not_served and set(walk.not_served.values()) == {404}, walk.not_served
