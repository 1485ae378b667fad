"""The instructor's side of nbgrader's exchange, through the classes ``c.ExchangeFactory`` chooses.

Releasing assignments and feedback goes through nbgrader's exchange API (``ExchangeReleaseAssignment``,
``ExchangeReleaseFeedback``), so an exchange plug-in such as ngshare works as well as nbgrader's
default folder exchange. Hand-ins are listed and copied differently for the two:

- nbgrader's folder exchange: ``inbound/`` is writable by every account and nbgrader's own
  ``ExchangeList`` and ``ExchangeCollect`` follow links and read files whole as the service's user,
  so its hand-ins are read by :mod:`grader.service.inbound` instead (same names, same layout, no
  link followed, owner checked, within a budget);
- a plug-in: through its own ``ExchangeList`` and ``ExchangeCollect``. ``ExchangeCollect`` copies
  only the *latest* submission of a student; the service grades every submission in arrival
  order, so :func:`_only` narrows the selection to the submission asked for where the class keeps
  nbgrader's ``src_records``; otherwise a newer delivery is detected from its ``timestamp.txt``.
"""
from __future__ import annotations

import glob
import os
import shutil
import time
from collections.abc import Set
from pathlib import Path

from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default import ExchangeCollect as DefaultCollect
from nbgrader.exchange.exchange_factory import ExchangeFactory
from nbgrader.utils import parse_utc

from grader.course import Course, load_config, read_timestamp
from grader.course_folders import SUBMITTED
from grader.grading.admission import HandinBudget, Refusal, assignment_refusal, owner_refusal
from grader.service.inbound import (
    SECRET_FILE,
    TIMESTAMP_FILE,
    Collected,
    InboundFolder,
    collect_folder,
    list_folder_exchange,
    name_of_uid,
    nbgrader_timestamp,
    read_secret,
)
from grader.settings import EXCHANGE_ROOT
from grader.state_folders import COLLECT_STAGING


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

    @property
    def is_folder_exchange(self) -> bool:
        """Whether the exchange is nbgrader's own folder exchange (not a plug-in such as ngshare)."""
        return issubclass(self.factory.collect, DefaultCollect)

    @property
    def root(self) -> Path:
        """The exchange's root folder: ``c.Exchange.root``, else nbgrader's default (``EXCHANGE_ROOT``'s)."""
        return Path(self.config.Exchange.get("root", EXCHANGE_ROOT.default))

    @property
    def inbound_dir(self) -> Path:
        return self.root / self.course_id / "inbound"

    def inbound(self, known: Set[bytes] = frozenset(), max_per_account: int | None = None) -> list[InboundFolder]:
        """Every hand-in waiting in the exchange, each described without trusting it.

        The folder exchange is read by :mod:`grader.service.inbound` (no link followed, each entry
        on its own; entries named in ``known`` left out, an account's entries past
        ``max_per_account`` listed unread); a plug-in exchange is listed through its own ``ExchangeList``.
        """
        if self.is_folder_exchange:
            if not self.inbound_dir.is_dir():
                return []
            return list_folder_exchange(self.inbound_dir, self.owner_problem, known, max_per_account)
        return self._plugin_inbound()

    def owner_problem(self, student: str, uid: int) -> Refusal | None:
        """Why a folder owned by ``uid`` cannot be ``student``'s hand-in, or None when it can
        (``grader.grading.admission.owner_refusal``, given the uid's account)."""
        return owner_refusal(student, uid, name_of_uid(uid), self.check_owner)

    @property
    def check_owner(self) -> bool:
        """nbgrader's ``ExchangeCollect.check_owner``: a folder's owner must be the student it names."""
        return bool(self.config.ExchangeCollect.get("check_owner", True))

    def _plugin_inbound(self) -> list[InboundFolder]:
        lister = self.factory.List(coursedir=self._coursedir(), authenticator=self.authenticator,
                                   config=self.config)
        lister.inbound = True
        try:
            found = lister.start()
        except (ExchangeError, AssertionError):
            # an exchange that cannot be listed now (or nbgrader's listing tripping over a
            # submission still being written) is looked at again at the next pass
            return []
        folders = []
        for entry in found:
            for info in entry.get("submissions", [entry]):
                name = f"{info['student_id']}+{info['assignment_id']}+{info['timestamp']}".encode()
                folders.append(InboundFolder(name, -1, "", info["student_id"], info["assignment_id"],
                                             info["timestamp"], assignment_refusal(self.course, info["assignment_id"])))
        return folders

    def collect(self, folder: InboundFolder, dest: Path, budget: HandinBudget) -> Collected:
        """Copy the hand-in ``folder`` to ``dest``; raises HandinRefused, ExchangeError or OSError.

        The folder exchange's hand-ins are copied by :func:`grader.service.inbound.collect_folder`
        (regular files of their owner only, within ``budget``); a plug-in's through its
        ``ExchangeCollect``, narrowed to that hand-in.
        """
        if dest.exists():
            shutil.rmtree(dest)
        if self.is_folder_exchange:
            return collect_folder(self.inbound_dir, folder, dest, budget)
        return self._plugin_collect(folder, dest)

    def _plugin_collect(self, folder: InboundFolder, dest: Path) -> Collected:
        staging = self.course.state_dir / COLLECT_STAGING
        collected = staging / SUBMITTED / folder.student / folder.assignment
        if collected.exists():
            shutil.rmtree(collected)
        coursedir = self._coursedir(folder.assignment, folder.student)
        coursedir.root = str(staging)
        collector = _only(self.factory.collect, folder)(
            coursedir=coursedir, authenticator=self.authenticator, config=self.config)
        collector.update = True
        collector.start()
        if not collected.is_dir():
            raise ExchangeError(f"collecting {folder.printable_name} left nothing in {collected}")
        delivered = read_timestamp(collected)
        delivered = folder.timestamp if delivered is None else delivered
        if delivered != folder.timestamp:
            raise ExchangeError(f"asked for {folder.printable_name}, the exchange delivered {delivered}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(collected), str(dest))
        secret = read_secret(dest / SECRET_FILE)
        # A plug-in exchange's timestamp is the client's word too: the hand-in counts as made when
        # the service collected it, never earlier.
        counted = time.time()
        (dest / TIMESTAMP_FILE).write_text(nbgrader_timestamp(counted))
        notebooks = tuple(sorted(p.name for p in dest.glob("*.ipynb")))
        return Collected(counted, secret, notebooks, sum(p.stat().st_size for p in dest.rglob("*")
                                                         if p.is_file()))

    def release_assignment(self, assignment: str) -> None:
        """``nbgrader release_assignment --force``: put ``release/<assignment>`` in the exchange."""
        releaser = self.factory.ReleaseAssignment(coursedir=self._coursedir(assignment),
                                                  authenticator=self.authenticator, config=self.config)
        releaser.force = True
        releaser.start()

    def release_feedback(self, assignment: str, student: str, root: Path | None = None) -> None:
        """Release ``<root>/feedback/<student>/<assignment>/`` to the exchange (``root``: the course
        folder unless another is named). Raises ExchangeError."""
        coursedir = self._coursedir(assignment, student)
        if root is not None:
            coursedir.root = str(root)
        releaser = self.factory.ReleaseFeedback(coursedir=coursedir,
                                                authenticator=self.authenticator, config=self.config)
        releaser.start()


def _only(collect_class: type, submission: InboundFolder) -> type:
    """``collect_class`` narrowed to ``submission`` when it keeps nbgrader's ``src_records``."""

    class CollectOne(collect_class):
        def init_src(self):
            super().init_src()
            if not hasattr(self, "src_records") or not hasattr(self, "_path_to_record"):
                return
            pattern = os.path.join(self.inbound_path, f"{submission.student}+{submission.assignment}+*")
            wanted = parse_utc(submission.timestamp)
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
