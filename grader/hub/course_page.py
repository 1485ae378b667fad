"""The student's course page: a Jupyter server extension of the students' servers on the hub.

``<server>/course`` is where a student lands after login (the hub's ``default_url`` for students).
It lists the course's assignments as nbgrader's own Assignment List does, through the same manager
(``assignment_list_manager``, nbgrader's ``assignment_list`` server extension, so the same exchange
and config): **Fetch** for a released one; for a fetched one a link per notebook, which opens it in
JupyterLab, and **Submit**; then the hand-ins, newest first, each with its time in the hub's local
time (no microseconds) and a link to its feedback page. Feedback that has reached the exchange is
fetched when the page is shown; while a hand-in awaits its feedback the page reloads itself.

A feedback page is served from the student's own fetched feedback (``ASSIGNMENT/feedback/TIME/``
in their home), and only for a hand-in and a notebook nbgrader lists as theirs; the server runs as
the student, so nothing of another account is readable anyway. It is sent with the feedback pages'
own policy (no script, nothing loaded from the network).

The page speaks the student's language (``STUDENT_LANGUAGE``, which the hub's spawn hook sets from
the roster or the student's own choice; English when it is unset or unknown, :data:`WORDS`) and
links to the hub's page on which the student chooses it (``/hub/language``). A Fetch or Submit that fails shows
the page again with what failed, nbgrader's reason in one line, and what to do.

It also makes nbgrader's Validate button use the course's validator (:func:`use_course_validator`).

This file is copied into the students' environment as a top-level module (:data:`MODULE_NAME`),
with ``grader.validation`` beside it (:data:`VALIDATION_MODULE`); it imports nothing of ``grader``,
which the students' environment does not hold.
"""
from __future__ import annotations

import html
import importlib
import os
import re
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path
from urllib.parse import quote

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

#: The module's name in the students' environment (``jpserver_extensions`` of the students' config).
MODULE_NAME = "course_hub_page"
#: ``grader.validation``'s name in the students' environment, beside this module.
VALIDATION_MODULE = "course_validation"
#: The page's path under the server's base URL.
PAGE_PATH = "course"
#: Seconds between reloads of the page while a hand-in awaits its feedback.
RELOAD_SECONDS = 3
#: The window names the page's links open in: one JupyterLab, one feedback page, each reused.
JUPYTERLAB_WINDOW = "course-jupyterlab"
FEEDBACK_WINDOW = "course-feedback"
#: The hub's page on which a student chooses their language (grader.hub.language_page.PAGE_PATH).
LANGUAGE_PAGE = "language"
#: The variable the hub sets to its base URL in every server it spawns.
HUB_BASE_VARIABLE = "JUPYTERHUB_BASE_URL"
#: The variable the hub's spawn hook sets to the student's language (as notebook_language.fetch).
LANGUAGE_VARIABLE = "STUDENT_LANGUAGE"
#: Longest reason of a failed Fetch or Submit shown on the page (nbgrader's last line of it).
REASON_CHARACTERS = 300

#: A traceback's last line begins with the exception's (dotted) class name.
_EXCEPTION_NAME = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception): ")

#: Everything the page says, per language.
WORDS = {
    "en": {
        "html_lang": "en", "title": "Your course",
        "intro": "Fetch an assignment, open its notebook (JupyterLab opens in its own tab), save it there, "
                 "then hand it in here with <b>Submit</b>. Each hand-in's feedback appears below it, newest first.",
        "open_lab": "Open JupyterLab", "full_stop": ".",
        "fetch": "Fetch", "fetch_title": "Copy the assignment into your home folder",
        "submit": "Submit", "submit_title": "Hand in the notebooks as saved now",
        "handins": "Your hand-ins, newest first", "handed_in": "Handed in", "feedback": "Feedback",
        "read_feedback": "{notebook}: read the feedback",
        "waiting": "waiting for feedback (this page updates itself)",
        "nothing_yet": "No assignment has been released yet.",
        "failed": "{action} of {assignment} did not go through: {reason}",
        "failed_todo": "Save your notebook and press {action} again; if it fails again, tell your instructor "
                       "what this line says.",
        "no_reason": "nbgrader gave no reason",
        "language": "Language: English (change)",
    },
    "zh": {
        "html_lang": "zh-Hans", "title": "你的课程",
        "intro": "先“获取”作业，打开它的笔记本（JupyterLab 在单独的标签页中打开），在那里保存，"
                 "然后在这里按<b>提交</b>上交。每次上交的反馈显示在它下面，最新的在最前。",
        "open_lab": "打开 JupyterLab", "full_stop": "。",
        "fetch": "获取", "fetch_title": "把作业复制到你的主文件夹",
        "submit": "提交", "submit_title": "上交现在保存的笔记本",
        "handins": "你的上交，最新的在最前", "handed_in": "上交时间", "feedback": "反馈",
        "read_feedback": "{notebook}：阅读反馈",
        "waiting": "正在等待反馈（本页会自动更新）",
        "nothing_yet": "还没有发布任何作业。",
        "failed": "{assignment} 的“{action}”没有成功：{reason}",
        "failed_todo": "请保存笔记本后再按一次“{action}”；如果仍然失败，请把这一行告诉老师。",
        "no_reason": "nbgrader 没有给出原因",
        "language": "语言：简体中文（更改）",
    },
}
DEFAULT_LANGUAGE = "en"
#: Weekday names for the Chinese page (Monday first, as ``datetime.weekday``).
_ZH_WEEKDAYS = "一二三四五六日"

#: What the course page may do: show itself with its own style and post its forms to this server;
#: no script, nothing loaded from anywhere.
COURSE_PAGE_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; "
                      "frame-ancestors 'self'")
#: What a feedback page may do when served here: nothing but show itself (as grader.pages.csp).
FEEDBACK_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
                   "base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox")


def _jupyter_server_extension_points():
    return [{"module": MODULE_NAME}]


def use_course_validator(module: str = VALIDATION_MODULE) -> bool:
    """Make nbgrader's Validate (its ``validate_assignment`` server extension, which JupyterLab's
    Validate button calls) build the course's ``CourseValidator`` (``grader.validation``, copied into
    the students' environment as ``module``): the real failures first, each test whose answer still
    raises ``NotImplementedError`` as "not attempted yet" in one line. nbgrader's handler names its
    ``Validator`` class in its module, so the class is replaced there. False, changing nothing, when
    nbgrader or the validator module is missing."""
    try:
        from nbgrader.server_extensions.validate_assignment import handlers
        validation = importlib.import_module(module)
    except ImportError:
        return False
    handlers.Validator = validation.CourseValidator
    return True


def _load_jupyter_server_extension(serverapp):
    if use_course_validator():
        serverapp.log.info("nbgrader's Validate uses the course's validator (%s)", VALIDATION_MODULE)
    base = serverapp.web_app.settings["base_url"]
    serverapp.web_app.add_handlers(".*$", [
        (url_path_join(base, PAGE_PATH), CoursePageHandler),
        (url_path_join(base, PAGE_PATH, "(fetch|submit)"), CourseActionHandler),
        (url_path_join(base, PAGE_PATH, "feedback", "([^/]+)", "([^/]+)", r"([^/]+)\.html"), FeedbackHandler),
    ])
    serverapp.log.info("course page at %s", url_path_join(base, PAGE_PATH))


def page_language() -> str:
    """The student's language as the hub's spawn hook set it, when the page speaks it; else English."""
    language = os.environ.get(LANGUAGE_VARIABLE, "")
    return language if language in WORDS else DEFAULT_LANGUAGE


def local_time(timestamp: str, language: str = DEFAULT_LANGUAGE) -> str:
    """nbgrader's UTC timestamp (``2026-12-06 07:12:03.123456 UTC``) in the hub's local time, to
    the second, with its zone: ``Sun 6 Dec 2026, 07:12:03 UTC`` (``2026年12月6日 周日 07:12:03 UTC``
    in Chinese)."""
    from nbgrader.utils import parse_utc

    moment = parse_utc(timestamp)  # naive, in UTC
    moment = (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone()
    if language == "zh":
        return (f"{moment.year}年{moment.month}月{moment.day}日 周{_ZH_WEEKDAYS[moment.weekday()]} "
                f"{moment:%H:%M:%S} {moment.tzname()}")
    return f"{moment:%a} {moment.day} {moment:%b %Y, %H:%M:%S} {moment.tzname()}"


def failure_reason(value, language: str = DEFAULT_LANGUAGE) -> str:
    """The last line of what nbgrader's manager returned for a failed Fetch or Submit (its log or
    traceback ends with the exception's message), without the exception's class name, at most
    :data:`REASON_CHARACTERS` long."""
    lines = [line.strip() for line in str(value or "").splitlines() if line.strip()]
    if not lines:
        return WORDS[language]["no_reason"]
    reason = _EXCEPTION_NAME.sub("", lines[-1])  # "nbgrader.exchange....ExchangeError: " says nothing to a student
    return reason if len(reason) <= REASON_CHARACTERS else reason[:REASON_CHARACTERS - 1] + "…"


def newest_first(submissions: list[dict]) -> list[dict]:
    return sorted(submissions, key=lambda s: s["timestamp"], reverse=True)


def awaits_feedback(submission: dict) -> bool:
    """Whether a hand-in's feedback has not reached the exchange yet."""
    return not submission.get("has_exchange_feedback") and not submission.get("has_local_feedback")


def needs_fetching(submission: dict) -> bool:
    """Whether the exchange holds feedback for the hand-in that is not in the student's folder."""
    return bool(submission.get("has_exchange_feedback")) and (
        not submission.get("has_local_feedback") or bool(submission.get("feedback_updated")))


class CoursePage:
    """The course as nbgrader's assignment-list manager sees it for the student."""

    def __init__(self, manager):
        self.manager = manager

    def listing(self) -> tuple[list[dict], dict[str, list[dict]]]:
        """(released and fetched assignments, assignment id -> its hand-ins newest first), after
        fetching every feedback the exchange holds that the student's folder does not."""
        submitted = self._submitted()
        for assignment, submissions in submitted.items():
            if any(needs_fetching(s) for s in submissions):
                self.manager.fetch_feedback(submissions[0]["course_id"], assignment)
                submitted = self._submitted()
        return self.released(), submitted

    def released(self) -> list[dict]:
        """The released and fetched assignments (nbgrader's listing; paths relative to the home)."""
        result = self.manager.list_released_assignments()
        return result["value"] if result["success"] else []

    def course_of(self, assignment: str) -> str | None:
        """The course id under which ``assignment`` is released, None when it is not."""
        return next((a["course_id"] for a in self.released() if a["assignment_id"] == assignment), None)

    def _submitted(self) -> dict[str, list[dict]]:
        result = self.manager.list_submitted_assignments()
        if not result["success"]:
            return {}
        return {a["assignment_id"]: newest_first(a["submissions"]) for a in result["value"]}

    def feedback_file(self, assignment: str, timestamp: str, notebook: str) -> Path | None:
        """The fetched feedback page of the student's hand-in, when nbgrader lists it as theirs."""
        for submission in self._submitted().get(assignment, []):
            if submission["timestamp"] != timestamp:
                continue
            for entry in submission["notebooks"]:
                if entry["notebook_id"] == notebook and entry.get("local_feedback_path"):
                    return Path(entry["local_feedback_path"])
        return None


class _CourseHandler(JupyterHandler):
    @property
    def course(self) -> CoursePage:
        manager = self.settings.get("assignment_list_manager")
        if manager is None:
            raise web.HTTPError(503, "nbgrader's assignment list is not enabled on this server")
        return CoursePage(manager)

    def send_page(self, page: str) -> None:
        """Answer with the course page ``page`` under :data:`COURSE_PAGE_POLICY`, never cached."""
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Security-Policy", COURSE_PAGE_POLICY)
        self.finish(page)

    @property
    def links(self) -> PageLinks:
        return PageLinks(self.base_url, self.xsrf_form_html(), os.environ.get(HUB_BASE_VARIABLE, ""))


@dataclass(frozen=True)
class PageLinks:
    """The addresses a course page links to: ``base_url`` is the server's (``/user/NAME/``),
    ``form_token`` the hidden XSRF input every form of the page carries, ``hub_url`` the hub's base
    URL (``/``; empty off a hub: no hub pages to link)."""

    base_url: str
    form_token: str = ""
    hub_url: str = ""

    def language(self) -> str:
        """The hub's page on which the student chooses their language; empty off a hub."""
        return url_path_join(self.hub_url, "hub", LANGUAGE_PAGE) if self.hub_url else ""

    def page(self, *parts: str) -> str:
        return url_path_join(self.base_url, PAGE_PATH, *(quote(p, safe="") for p in parts))

    def lab(self, path: str = "") -> str:
        """JupyterLab, opening the notebook at ``path`` (relative to the home, as nbgrader lists it)."""
        return url_path_join(self.base_url, "lab", *(("tree", quote(path)) if path else ()))


def render_course_page(released: list[dict], submitted: dict[str, list[dict]], links: PageLinks,
                       language: str = DEFAULT_LANGUAGE, problem: str = "") -> str:
    """The course page's HTML: nbgrader's listing of ``released`` (and fetched) assignments and the
    ``submitted`` hand-ins (assignment id -> hand-ins newest first), in ``language``; ``problem``
    (already HTML) is shown first, as an alert."""
    words = WORDS[language]
    names = sorted({a["assignment_id"] for a in released} | set(submitted))
    waiting = any(awaits_feedback(s) for subs in submitted.values() for s in subs)
    by_name = {a["assignment_id"]: a for a in released}
    sections = "\n".join(_section(name, by_name.get(name), submitted.get(name, []), links, language)
                         for name in names)
    # An explicit address: a refresh of an address with a fragment would only scroll.
    reload = (f'<meta http-equiv="refresh" content="{RELOAD_SECONDS}; url={html.escape(links.page())}">'
              if waiting else "")
    alert = f'<p class="problem" role="alert">{problem}</p>' if problem else ""
    language_link = (f'<p><a class="language" href="{html.escape(links.language())}">'
                     f'{html.escape(words["language"])}</a></p>' if links.language() else "")
    return _PAGE.format(lang=words["html_lang"], reload=reload, title=words["title"], intro=words["intro"],
                        open_lab=words["open_lab"], full_stop=words["full_stop"], alert=alert, language=language_link,
                        sections=sections or f"<p>{words['nothing_yet']}</p>",
                        lab=html.escape(links.lab()), window=JUPYTERLAB_WINDOW)


def failure_html(action: str, assignment: str, value, language: str = DEFAULT_LANGUAGE) -> str:
    """What the page says when ``action`` ("fetch" or "submit") of ``assignment`` failed with
    nbgrader's ``value``: what failed, why in one line, and what to do."""
    words, e = WORDS[language], html.escape
    label = words[action]
    return (e(words["failed"].format(action=label, assignment=assignment,
                                     reason=failure_reason(value, language)))
            + "<br>" + e(words["failed_todo"].format(action=label)))


def _section(name: str, assignment: dict | None, submissions: list[dict], links: PageLinks, language: str) -> str:
    words, e = WORDS[language], html.escape
    parts = [f'<section class="assignment" id="assignment-{e(name)}"><h2>{e(name)}</h2>']
    status = assignment["status"] if assignment else "submitted"
    if status == "released":
        parts.append(_form("fetch", name, links, words))
    elif status == "fetched":
        items = "".join(
            f'<li><a class="notebook" target="{JUPYTERLAB_WINDOW}" href="{e(links.lab(nb["path"]))}">'
            f'{e(nb["notebook_id"])}.ipynb</a></li>' for nb in assignment["notebooks"])
        parts.append(f'<ul class="notebooks">{items}</ul>')
        parts.append(_form("submit", name, links, words))
    if submissions:
        rows = "".join(_handin_row(name, s, links, language) for s in submissions)
        parts.append(f'<table class="handins"><caption>{e(words["handins"])}</caption>'
                     f'<thead><tr><th scope="col">{e(words["handed_in"])}</th>'
                     f'<th scope="col">{e(words["feedback"])}</th></tr></thead>'
                     f'<tbody>{rows}</tbody></table>')
    parts.append("</section>")
    return "\n".join(parts)


def _form(action: str, assignment: str, links: PageLinks, words: dict[str, str]) -> str:
    e = html.escape
    return (f'<form method="post" action="{e(links.page(action))}">{links.form_token}'
            f'<input type="hidden" name="assignment" value="{e(assignment)}">'
            f'<button type="submit" class="{action}" title="{e(words[action + "_title"])}">'
            f'{e(words[action])}</button></form>')


def _handin_row(assignment: str, submission: dict, links: PageLinks, language: str) -> str:
    words, e = WORDS[language], html.escape
    when = (f'<time datetime="{e(submission["timestamp"])}">'
            f'{e(local_time(submission["timestamp"], language))}</time>')
    pages = [nb for nb in submission["notebooks"] if nb.get("local_feedback_path")]
    if pages:
        feedback = " ".join(
            f'<a class="feedback" target="{FEEDBACK_WINDOW}" '
            f'href="{e(links.page("feedback", assignment, submission["timestamp"], nb["notebook_id"]))}.html">'
            f'{e(words["read_feedback"].format(notebook=nb["notebook_id"]))}</a>' for nb in pages)
    else:
        feedback = f'<span class="waiting">{e(words["waiting"])}</span>'
    return f"<tr><td>{when}</td><td>{feedback}</td></tr>"


class CoursePageHandler(_CourseHandler):
    @web.authenticated
    def get(self):
        released, submitted = self.course.listing()
        self.send_page(render_course_page(released, submitted, self.links, page_language()))


class CourseActionHandler(_CourseHandler):
    @web.authenticated
    def post(self, action: str):
        assignment = self.get_body_argument("assignment")
        course = self.course
        course_id = course.course_of(assignment)
        if course_id is None:
            raise web.HTTPError(404, f"no assignment {assignment} is released")
        act = course.manager.fetch_assignment if action == "fetch" else course.manager.submit_assignment
        result = act(course_id, assignment)
        if not result.get("success", False):
            self.log.error("course page: %s %s failed: %s", action, assignment, result.get("value"))
            language = page_language()
            released, submitted = course.listing()
            self.set_status(500)
            self.send_page(render_course_page(released, submitted, self.links, language,
                                              failure_html(action, assignment, result.get("value"), language)))
            return
        self.redirect(self.links.page())


class FeedbackHandler(_CourseHandler):
    @web.authenticated
    def get(self, assignment: str, timestamp: str, notebook: str):
        path = self.course.feedback_file(assignment, timestamp, notebook)
        if path is None or not path.is_file() or path.is_symlink():
            raise web.HTTPError(404)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Security-Policy", FEEDBACK_POLICY)
        self.set_header("Cache-Control", "no-store")
        self.finish(path.read_bytes())


_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">{reload}
<title>{title}</title>
<style>
body {{ font-family: system-ui, "Noto Sans CJK SC", sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }}
section.assignment {{ border: 1px solid #ccc; border-radius: 6px; padding: 0 1rem 1rem; margin-bottom: 1.5rem; }}
button {{ font-size: 1rem; padding: .3rem 1rem; }}
table.handins {{ border-collapse: collapse; margin-top: 1rem; width: 100%; }}
table.handins caption {{ text-align: left; font-weight: bold; padding-bottom: .3rem; }}
table.handins th, table.handins td {{ text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #ddd; }}
.waiting {{ color: #8a5a00; }}
.problem {{ border: 2px solid #a40000; border-radius: 6px; padding: .6rem 1rem; color: #a40000; background: #fff; }}
</style></head>
<body><main><h1>{title}</h1>
{alert}
<p>{intro}
<a class="jupyterlab" target="{window}" href="{lab}">{open_lab}</a>{full_stop}</p>
{language}
{sections}
</main></body></html>
"""
