"""A rush written as a hub writes it (``grader.demo.handin_rush``): each account writes its own
hand-in folder, as ``nbgrader submit`` writes it, all within a moment.

Real accounts (root only; skipped otherwise, failing under CI); the folder is compared with one
nbgrader's own ``ExchangeSubmit`` writes for the same account into the same exchange.
"""
from __future__ import annotations

import os
import pwd
import re
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from nbgrader.utils import notebook_hash

from grader.demo.handin_rush import Handin, Rush, handin_from_home, write_rush
from grader.service.student import StudentSide, temporary_accounts
from grader_tests.account_prefix import unused_account_prefix
from grader_tests.service_setup import accounts_skip_reason

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

COURSE = "rushcourse"
ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
CONTENT = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


class Exchange:
    """A folder exchange as nbgrader's instructor commands leave it: ``inbound/`` writable by every
    account (sticky), the assignment released in ``outbound/``, ``feedback/``."""

    def __init__(self, top: Path):
        self.top = top
        self.root = top / "exchange"
        self.inbound = self.root / COURSE / "inbound"
        self.feedback = self.root / COURSE / "feedback"
        (self.root / COURSE / "outbound" / ASSIGNMENT).mkdir(parents=True)
        (self.root / COURSE / "outbound" / ASSIGNMENT / NOTEBOOK).write_bytes(CONTENT)
        self.inbound.mkdir(mode=0o1733)
        self.inbound.chmod(0o1733)
        self.feedback.mkdir(mode=0o711)

    def home(self, name: str) -> Path:
        return self.top / "homes" / name

    def side(self, account: str, name: str) -> StudentSide:
        return StudentSide(account, self.home(name), COURSE, self.root)

    def handin(self, account: str, name: str) -> Handin:
        return handin_from_home(account, ASSIGNMENT, {NOTEBOOK: CONTENT}, self.home(name), COURSE)


@pytest.fixture
def exchange():
    top = Path(tempfile.mkdtemp(prefix="sal-rush-"))
    top.chmod(0o755)
    try:
        yield Exchange(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def accounts():
    names = [f"s{index}" for index in range(10)]
    with temporary_accounts(names, prefix=unused_account_prefix("h")) as made:
        yield made


def layout(folder: Path) -> dict[str, tuple[int, int]]:
    """Name -> (mode, owner uid) of the folder itself ('.') and of each entry in it."""
    entries = {".": folder, **{path.name: path for path in folder.iterdir()}}
    return {name: (stat.S_IMODE(path.lstat().st_mode), path.lstat().st_uid) for name, path in entries.items()}


def test_a_folder_has_the_name_files_modes_and_owner_nbgrader_submit_gives_it(exchange, accounts):
    account = accounts["s0"]
    side = exchange.side(account, "s0")
    (side.fetch(ASSIGNMENT) / NOTEBOOK).write_bytes(CONTENT)
    side.submit(ASSIGNMENT)  # nbgrader's own ExchangeSubmit
    (by_nbgrader,) = exchange.inbound.iterdir()
    # a home of its own: root's in-process submit above left root's cache in the first one
    (written,) = write_rush(exchange.inbound, [exchange.handin(account, "s0-again")])
    ours = exchange.inbound / written.folder
    assert layout(ours) == layout(by_nbgrader)
    name = re.compile(re.escape(f"{account}+{ASSIGNMENT}+") + r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} UTC\+[\w-]{12}")
    assert name.fullmatch(by_nbgrader.name) and name.fullmatch(ours.name)
    assert re.fullmatch(r"[0-9a-f]{128}", (ours / "submission_secret.txt").read_text()) is not None


def test_the_submission_secret_is_written_last(exchange, accounts):
    (written,) = write_rush(exchange.inbound, [exchange.handin(accounts["s0"], "s0")])
    folder = exchange.inbound / written.folder
    secret_written = (folder / "submission_secret.txt").stat().st_mtime_ns
    assert all(path.stat().st_mtime_ns <= secret_written for path in folder.iterdir())
    assert written.written_at * 1e9 >= secret_written


def test_every_account_writes_its_own_folder_within_a_second(exchange, accounts):
    with Rush(exchange.inbound, [exchange.handin(account, name) for name, account in accounts.items()]) as rush:
        rush.release()
        written = rush.wait()
    assert [w.account for w in written] == list(accounts.values())
    for handin in written:
        assert pwd.getpwuid((exchange.inbound / handin.folder).lstat().st_uid).pw_name == handin.account
    assert max(w.written_at for w in written) - min(w.written_at for w in written) < 1.0


def test_fetch_feedback_finds_the_page_named_after_the_written_secret(exchange, accounts):
    account = accounts["s0"]
    (written,) = write_rush(exchange.inbound, [exchange.handin(account, "s0")])
    page = exchange.feedback / f"{notebook_hash(secret=written.secret, notebook_id=NOTEBOOK[:-len('.ipynb')])}.html"
    page.write_text("<p>graded</p>")
    page.chmod(0o644)
    (fetched,) = exchange.side(account, "s0").fetch_feedback(ASSIGNMENT)
    assert fetched.read_text() == "<p>graded</p>"


def test_an_account_that_does_not_exist_is_named_before_anything_is_written(exchange):
    with pytest.raises(ValueError, match="no account 'nobody-here-at-all'.*create it first"):
        write_rush(exchange.inbound, [Handin("nobody-here-at-all", ASSIGNMENT, {NOTEBOOK: CONTENT})])
    assert list(exchange.inbound.iterdir()) == []


def test_a_hand_in_that_could_not_be_written_is_reported_with_its_account_and_error(exchange, accounts):
    exchange.inbound.chmod(0o755)  # root's, closed to students
    with pytest.raises(RuntimeError, match=rf"{accounts['s0']}: PermissionError"):
        write_rush(exchange.inbound, [exchange.handin(accounts["s0"], "s0")])


def test_waiting_for_a_rush_not_released_yet_is_refused(exchange, accounts):
    with Rush(exchange.inbound, [exchange.handin(accounts["s0"], "s0")]) as rush:
        with pytest.raises(RuntimeError, match="release"):
            rush.wait()
    assert list(exchange.inbound.iterdir()) == []
    assert not os.path.exists(exchange.home("s0") / ".nbgrader_cache" / COURSE)
