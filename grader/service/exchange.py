"""The instructor's side of nbgrader's exchange, through the classes ``c.ExchangeFactory`` chooses.

Listing, collecting and releasing feedback go through nbgrader's exchange API
(``ExchangeList``, ``ExchangeCollect``, ``ExchangeReleaseFeedback``), so an exchange plug-in such
as ngshare works as well as nbgrader's default folder exchange.

One extension: ``ExchangeCollect`` copies only the *latest* submission of a student. The service
grades every submission in arrival order, so :func:`collect_one` narrows the default exchange's
selection to the submission asked for. A plug-in without that selection (no ``src_records``)
still delivers the latest submission, which the caller detects from its ``timestamp.txt``.
"""
from __future__ import annotations

import glob
import os
import shutil
import pwd
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError
from nbgrader.exchange.exchange_factory import ExchangeFactory
from nbgrader.utils import parse_utc

from grader.course import Course
from grader.nbgrader_runner import load_config

TIMESTAMP_FILE = "timestamp.txt"
SECRET_FILE = "submission_secret.txt"


@dataclass(frozen=True)
class InboundSubmission:
    """One hand-in waiting in the exchange: who, what, nbgrader's timestamp string, and (for a
    folder exchange) the account that owns the handed-in folder."""

    student: str
    assignment: str
    timestamp: str
    owner: str | None = field(default=None, compare=False)
    complete: bool = field(default=True, compare=False)

    @property
    def submitted_at(self) -> datetime:
        return parse_utc(self.timestamp)


class CourseExchange:
    """The exchange of one course, configured from its ``nbgrader_config.py``."""

    def __init__(self, course: Course):
        self.course = course
        self.config = load_config(course)
        self.factory = ExchangeFactory(config=self.config)
        self.authenticator = Authenticator(config=self.config)

    def _coursedir(self, assignment: str = "", student: str = "") -> CourseDirectory:
        coursedir = CourseDirectory(config=self.config)
        coursedir.root = str(self.course.root)
        coursedir.assignment_id = assignment
        coursedir.student_id = student
        return coursedir

    @property
    def course_id(self) -> str:
        return self._coursedir().course_id

    def inbound(self) -> list[InboundSubmission]:
        """Every submission in the exchange's inbound folder, oldest first."""
        lister = self.factory.List(coursedir=self._coursedir(), authenticator=self.authenticator,
                                   config=self.config)
        lister.inbound = True
        try:
            found = lister.start()
        except ExchangeError:
            return []
        except AssertionError:
            # nbgrader's listing trips over a submission whose secret file is still being written
            # (submit copies, then writes timestamp and secret); the next look will see it whole.
            return []
        submissions = []
        for entry in found:
            for info in entry.get("submissions", [entry]):
                submissions.append(InboundSubmission(info["student_id"], info["assignment_id"],
                                                     info["timestamp"], _owner(info.get("path")),
                                                     _complete(info.get("path"))))
        return sorted(set(submissions), key=lambda s: (s.submitted_at, s.student))

    def collect_one(self, submission: InboundSubmission, dest: Path) -> None:
        """Copy ``submission`` (exactly that one where the exchange allows it) to ``dest``.

        nbgrader collects into ``<root>/submitted/<student>/<assignment>/``; the root used here is
        a staging folder in the service's private state, so that collecting never touches a
        submission being graded. Raises ExchangeError.
        """
        staging = self.course.state_dir / "collecting"
        collected = staging / "submitted" / submission.student / submission.assignment
        if collected.exists():
            shutil.rmtree(collected)
        coursedir = self._coursedir(submission.assignment, submission.student)
        coursedir.root = str(staging)
        collector = _only(self.factory.collect, submission)(
            coursedir=coursedir, authenticator=self.authenticator, config=self.config)
        collector.update = True
        collector.start()
        if not collected.is_dir():
            raise ExchangeError(f"collecting {submission} left nothing in {collected}")
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(collected), str(dest))

    def release_assignment(self, assignment: str) -> None:
        """``nbgrader release_assignment --force``: put ``release/<assignment>`` in the exchange."""
        releaser = self.factory.ReleaseAssignment(coursedir=self._coursedir(assignment),
                                                  authenticator=self.authenticator, config=self.config)
        releaser.force = True
        releaser.start()

    def release_feedback(self, assignment: str, student: str) -> None:
        """Release ``feedback/<student>/<assignment>/`` to the exchange. Raises ExchangeError."""
        releaser = self.factory.ReleaseFeedback(coursedir=self._coursedir(assignment, student),
                                                authenticator=self.authenticator, config=self.config)
        releaser.start()


def _complete(path: str | None) -> bool:
    """Whether a folder exchange's submission is fully written: ``submit`` writes the secret last."""
    if not path:
        return True
    secret = os.path.join(path, SECRET_FILE)
    return os.path.isfile(secret) and os.path.getsize(secret) > 0


def _owner(path: str | None) -> str | None:
    """The account owning ``path`` (a folder exchange's submission), or None when unknown."""
    if not path or not os.path.exists(path):
        return None
    uid = os.stat(path).st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def impersonation(submission: InboundSubmission) -> str | None:
    """Why ``submission`` was handed in under someone else's name, or None.

    nbgrader's ``submit --student NAME`` lets any account hand in as NAME, and its collect only
    warns (``check_owner``). A folder owned by another (non-root) account than the student it
    names is refused. Exchanges that do not expose an owner (plug-ins) authenticate themselves.
    """
    if submission.owner is None or submission.owner in (submission.student, "root"):
        return None
    return (f"this hand-in names student {submission.student} but was handed in by the account "
            f"{submission.owner}; hand in your own work as yourself (nbgrader submit without --student).")


def _only(collect_class: type, submission: InboundSubmission) -> type:
    """``collect_class`` narrowed to ``submission`` when it keeps nbgrader's ``src_records``."""

    class CollectOne(collect_class):
        def init_src(self):
            super().init_src()
            if not hasattr(self, "src_records") or not hasattr(self, "_path_to_record"):
                return
            pattern = os.path.join(self.inbound_path, f"{submission.student}+{submission.assignment}+*")
            wanted = submission.submitted_at
            self.src_records = [record for record in map(self._path_to_record, glob.glob(pattern))
                                if record["username"] == submission.student
                                and record["timestamp"] == wanted][:1]

    CollectOne.__name__ = collect_class.__name__
    return CollectOne


def student_config(course_id: str, exchange_root: Path | str) -> str:
    """The ``nbgrader_config.py`` a student's Jupyter needs (e.g. ``/etc/jupyter/`` on a hub)."""
    return (f"c = get_config()\n"
            f"c.CourseDirectory.course_id = {course_id!r}\n"
            f"c.Exchange.root = {str(exchange_root)!r}\n")
