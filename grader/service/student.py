"""A student's side of nbgrader's exchange, in-process: fetch, submit, fetch feedback.

What ``nbgrader fetch_assignment`` / ``submit`` / ``fetch_feedback`` do, through the same
exchange classes (``c.ExchangeFactory``), with a student id given explicitly (as
``nbgrader submit --student`` does). The demo, the latency benchmark and the bad-input tests hand
in many submissions quickly with it; the tests with real accounts run the commands themselves.
"""
from __future__ import annotations

import getpass
import glob
import grp
import os
import pwd
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.exchange_factory import ExchangeFactory
from traitlets.config import Config


def temporary_account_name(name: str, prefix: str = "") -> str:
    """The account :func:`temporary_accounts` makes for ``name``: ``prefix + name`` without
    underscores, at most 32 characters (what useradd takes)."""
    return f"{prefix}{name}".replace("_", "")[:32]


@contextmanager
def temporary_accounts(names: Iterable[str], prefix: str = "") -> Iterator[dict[str, str]]:
    """A Unix account for each of ``names`` (as root), removed afterwards: name -> account.

    The grading service grades only hand-ins that belong to the account they name, so whoever
    hands in through :class:`StudentSide` on behalf of several students (the demo, the latency
    benchmark, the service tests) needs an account per student. Each account is ``prefix + name``
    (at most 32 characters), made with ``useradd`` without a home or a login shell; an account of
    that name that already exists is used and kept. Without root there is one account, the
    running one, and every name maps to it.
    """
    names = list(names)
    if os.geteuid() != 0:
        yield {name: getpass.getuser() for name in names}
        return
    accounts, created = {}, []
    try:
        for name in names:
            account = temporary_account_name(name, prefix)
            try:
                pwd.getpwnam(account)
            except KeyError:
                # A group of that name left behind (by a removed account) becomes the account's group.
                group = ["--gid", account] if _group_exists(account) else ["--user-group"]
                subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin",
                                *group, account], check=True, capture_output=True)
                created.append(account)
            accounts[name] = account
        yield accounts
    finally:
        for account in created:
            subprocess.run(["userdel", "--force", account], capture_output=True)


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


class StudentSide:
    """One student working in ``home`` on the course ``course_id`` of the exchange ``exchange_root``."""

    def __init__(self, student: str, home: Path, course_id: str, exchange_root: Path | str):
        self.student = student
        self.home = Path(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.config = Config()
        self.config.CourseDirectory.course_id = course_id
        self.config.Exchange.root = str(exchange_root)
        self.config.Exchange.cache = str(self.home / ".nbgrader_cache")
        self.config.Exchange.assignment_dir = str(self.home)
        self.factory = ExchangeFactory(config=self.config)

    def _run(self, make, assignment: str) -> None:
        coursedir = CourseDirectory(config=self.config)
        coursedir.assignment_id = assignment
        coursedir.student_id = self.student
        make(coursedir=coursedir, authenticator=Authenticator(config=self.config),
             config=self.config).start()

    def folder(self, assignment: str) -> Path:
        return self.home / assignment

    def fetch(self, assignment: str) -> Path:
        """``nbgrader fetch_assignment``; returns the assignment folder."""
        if not self.folder(assignment).exists():
            self._run(self.factory.FetchAssignment, assignment)
        return self.folder(assignment)

    def submit(self, assignment: str) -> None:
        """``nbgrader submit`` of the assignment folder as it is now.

        Run as root for an account named like the student, the hand-in is given to that account
        (as if the account had run ``nbgrader submit`` itself): the grading service refuses
        hand-ins that belong to root or to another account than the one they name.
        """
        account = None
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam(self.student)
            except KeyError:
                pass
        if account is None:
            self._run(self.factory.Submit, assignment)
            return
        # The hand-in is written in a staging folder next to inbound/, given to the account and
        # then renamed into inbound/ at once: the service never sees it half-written or root's.
        inbound = Path(self.config.Exchange.root) / self.config.CourseDirectory.course_id / "inbound"
        staging = inbound.parent / f".staging-{self.student}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(mode=0o700)
        try:
            self._run(_submitting_into(self.factory.submit, staging), assignment)
            for folder in staging.iterdir():
                for path in [folder, *folder.rglob("*")]:
                    os.lchown(path, account.pw_uid, account.pw_gid)
                os.rename(folder, inbound / folder.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def fetch_feedback(self, assignment: str) -> list[Path]:
        """``nbgrader fetch_feedback``; every feedback page fetched so far, oldest submission first."""
        self._run(self.factory.FetchFeedback, assignment)
        return sorted(Path(p) for p in glob.glob(str(self.folder(assignment) / "feedback" / "*" / "*.html")))


def _submitting_into(submit_class: type, folder: Path) -> type:
    """``submit_class`` writing its hand-in folder into ``folder`` instead of ``inbound/``."""

    class SubmitInto(submit_class):
        def init_dest(self):
            super().init_dest()
            self.inbound_path = str(folder)

    SubmitInto.__name__ = submit_class.__name__
    return SubmitInto
