"""Scores to the LMS after grading: what ``grader autograde`` and the grading service call.

:func:`after_grading` records the score of each newly graded submission in the passback journal and
posts what is due; :func:`post_due` posts every score whose (re)try has come. Nothing happens while
no platform is registered (``grader lti register``). Posting never raises: a score the platform does
not take stays in the journal with the reason, for the next try, ``grader lti status`` and
``grader doctor``.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from traitlets.config import Configurable

from grader.course import Course, load_config
from grader.grading.run_record import read_record
from grader.lti.access_token import TokenClient
from grader.lti.ags import Score, find_or_create_line_item, post_score
from grader.lti.journal import Backoff, PassbackJournal, ScoreRow
from grader.lti.platform_http import PlatformError, PlatformRefused, PlatformUnreachable
from grader.lti.registration import RegistrationError, is_registered, lti_folder, load_platform
from grader.lti.tool_keys import tool_key
from grader.settings import traits_of
from grader.state_folders import LTI_JOURNAL

log = logging.getLogger(__name__)


class LmsPassback(Configurable):
    """``c.LmsPassback``: how long a request to the LMS may take, and when a failed post is tried again."""

    # request_timeout_seconds, first_retry_seconds, longest_retry_seconds (grader.settings)
    locals().update(traits_of("LmsPassback"))


def journal_of(course: Course) -> PassbackJournal:
    """The course's passback journal, retrying failed posts as the course's settings say."""
    settings = LmsPassback(config=load_config(course))
    return PassbackJournal(journal_path(course.state_dir),
                           Backoff(settings.first_retry_seconds, settings.longest_retry_seconds))


def journal_path(state_dir: Path) -> Path:
    return lti_folder(state_dir) / LTI_JOURNAL


def not_linked(student: str) -> str:
    return (f"the hub account {student} is not linked to an LMS user yet: the student opens the course once "
            f"from the LMS, or the instructor runs `grader lti link {student} LMS_USER_ID`")


@dataclass
class PassbackSummary:
    """What one pass did: scores posted, kept after a failure, and waiting for a linked account."""

    posted: int = 0
    failed: int = 0
    waiting: int = 0
    reasons: list[str] = field(default_factory=list)


def record_gradings(course: Course, pairs: list[tuple[str, str]]) -> int:
    """Add the score of each graded (assignment, student) to the journal; how many were new."""
    added = 0
    with journal_of(course) as journal, Gradebook(course.db_url) as gradebook:
        for assignment, student in pairs:
            record = read_record(course, assignment, student)
            if record is None or not record["graded"]:
                continue
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            added += journal.add(assignment, student, record["inputs_digest"], float(submission.score),
                                 float(submission.max_score), float(record["finished"]))
    return added


def every_graded(course: Course, assignments: list[str]) -> list[tuple[str, str]]:
    """Every (assignment, student) of ``assignments`` with a run record."""
    return [(assignment, student) for assignment in assignments for student in course.students(assignment)
            if read_record(course, assignment, student) is not None]


def post_due(course: Course, now: float | None = None, clock=time.time) -> PassbackSummary:
    """Post every score whose try has come; stops at the first unreachable platform (the rest wait)."""
    summary = PassbackSummary()
    platform = load_platform(course.state_dir)
    if platform is None:
        return summary
    now = clock() if now is None else now
    client = TokenClient(platform, tool_key(course.state_dir), clock=clock,
                         request_timeout=LmsPassback(config=load_config(course)).request_timeout_seconds)
    with journal_of(course) as journal:
        for row in journal.due(now):
            if not journal.claim(row.id, now):
                continue  # another grader is posting it
            lms_user = journal.lms_user(row.student)
            if lms_user is None:
                journal.wait(row.id, not_linked(row.student))
                summary.waiting += 1
                continue
            try:
                _post(client, journal, platform.lineitems_url, row, lms_user)
            except PlatformError as exc:
                rejected = isinstance(exc, PlatformRefused)
                if rejected and exc.status == 401:
                    client.forget_all()
                if rejected and exc.status == 404:  # the line item was deleted in the LMS
                    journal.forget_line_item(row.assignment)
                journal.mark_failed(row.id, str(exc), rejected=rejected, now=now)
                summary.failed += 1
                summary.reasons.append(f"{row.student} {row.assignment}: {exc}")
                if isinstance(exc, PlatformUnreachable):
                    break
                continue
            journal.mark_posted(row.id, clock())
            summary.posted += 1
    return summary


def _post(client: TokenClient, journal: PassbackJournal, lineitems_url: str, row: ScoreRow, lms_user: str) -> None:
    line_item = journal.line_item(row.assignment)
    if line_item is None:
        line_item = find_or_create_line_item(client, lineitems_url, row.assignment, row.max_score)
        journal.set_line_item(row.assignment, line_item)
    post_score(client, line_item, Score(lms_user, row.score, row.max_score, row.graded_at))


def after_grading(course: Course, pairs: list[tuple[str, str]]) -> PassbackSummary | None:
    """Record and post the scores of the submissions just graded; None when no platform is registered.

    Never raises: grading has finished whatever happens here; problems are logged and kept.
    """
    if not is_registered(course.state_dir):
        return None
    try:
        record_gradings(course, pairs)
        summary = post_due(course)
    except RegistrationError as exc:
        log.error("LMS score passback: %s", exc)
        return None
    except Exception:  # a broken journal or gradebook must not fail a grading that is done
        log.exception("LMS score passback failed; `grader lti resend` records and posts the scores again")
        return None
    for reason in summary.reasons:
        log.warning("LMS score passback kept for a retry: %s", reason)
    return summary
