"""Every hand-in gets an answer its owner can fetch, whatever the service decides about it.

Real accounts: an honest classmate hands in with ``nbgrader submit``; other accounts leave hand-in
folders the service refuses, each together with the copy ``nbgrader submit`` keeps in the
student's own nbgrader cache (the copy ``nbgrader fetch_feedback`` looks up feedback by), as a
client other than nbgrader's own, or a student working by hand, would. One pass of the service
(``GradingLoop.run(once=True)``, in this process) must grade the classmate and leave every other
owner a page that ``nbgrader fetch_feedback``, run as that owner, finds: naming the reason and
what to do, and holding nothing private (no hidden test, no course secret, nobody else's name).
Thirty accounts write such folders within a second (the rush); each gets its page.

Run as root (accounts are created with useradd and removed afterwards); skipped otherwise.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import notebook_hash

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission
from grader.grading.seeds import course_secret
from grader.service.exchange import CourseExchange
from grader.service.inbound import nbgrader_timestamp
from grader.service.journal import Journal
from grader.service.privacy import exchange_problems, fix
from grader.service.watch import GradingLoop
from grader_tests.student_accounts import Student, create_students, remove_students, root_skip_reason

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
RUSH = 30
# one account per way a hand-in is refused, beside the honest classmate
ROLES = ("classmate", "short_secret", "link", "unknown_assignment", "not_a_date", "oversized", "disk")
BUDGETS = ("c.GradingService.max_archive_megabytes_per_account = 1.0\n"
           "c.GradingService.max_handin_megabytes = 2.0\n")


class Scene:
    """The course, its exchange, the accounts by role, the rush's accounts, what the pass took."""

    def __init__(self, top: Path, course: Course, exchange: CourseExchange, accounts: dict[str, Student],
                 rush: list[Student]):
        self.top, self.course, self.exchange, self.accounts, self.rush = top, course, exchange, accounts, rush
        self.inbound = exchange.inbound_dir
        self.model = self.notebook("model_answer")
        self.rush_seconds = float("inf")  # from the rush's last folder written to its last page in the exchange

    def notebook(self, submission: str) -> str:
        release = nbformat.read(self.course.release_notebook(ASSIGNMENT), as_version=4)
        source = nbformat.read(self.course.source_notebook(ASSIGNMENT), as_version=4)
        return nbformat.writes(build_notebook(get_submission(ASSIGNMENT, submission), release, source))

    def journal(self) -> Journal:
        return Journal(self.course.state_dir / "service.sqlite")

    def hand_in_by_hand(self, student: Student, assignment: str = ASSIGNMENT, stamp: str | None = None,
                        secret: str | None = None, files: dict[str, bytes] | None = None) -> Path:
        """What a client other than ``nbgrader submit`` writes: the folder in ``inbound/`` and the
        student's own copy in their nbgrader cache, both owned by the student; returns the folder."""
        stamp = stamp or datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
        contents = {NOTEBOOK: self.model.encode(), "timestamp.txt": stamp.encode(),
                    "submission_secret.txt": (secret or os.urandom(64).hex()).encode(), **(files or {})}
        name = f"{student.name}+{assignment}+{stamp}"
        cache = student.home / ".local/share/jupyter/nbgrader_cache" / self.exchange.course_id / name
        folder = self.inbound / f"{name}+{os.urandom(8).hex()}"
        uid = student.home.stat().st_uid
        for target in (cache, folder):
            target.mkdir(parents=True)
            for relative, content in contents.items():
                (target / relative).write_bytes(content)
            for path in [target, *target.rglob("*")]:
                os.lchown(path, uid, uid)
        for parent in cache.parents:
            if parent == student.home:
                break
            os.lchown(parent, uid, uid)
        folder.chmod(0o777)
        return folder

    def exchange_page(self, secret: str) -> Path:
        """Where nbgrader releases the page of a hand-in with this secret (``nbgrader.utils.notebook_hash``)."""
        return (self.exchange.inbound_dir.parent / "feedback"
                / f"{notebook_hash(secret=secret, notebook_id=NOTEBOOK[:-len('.ipynb')])}.html")

    def fetched(self, student: Student, assignment: str = ASSIGNMENT) -> list[str]:
        """The pages ``nbgrader fetch_feedback`` brings the student, run as the student."""
        student.nbgrader("fetch_feedback", assignment)
        return [p.read_text() for p in sorted((student.home / assignment / "feedback").glob("*/*.html"))]


def seconds_until_all_exist(paths: list[Path], since: float, timeout: float) -> float:
    """Seconds from ``since`` until every path exists (polled every 50 ms); inf after ``timeout``."""
    while time.time() - since < timeout:
        if all(path.exists() for path in paths):
            return time.time() - since
        time.sleep(0.05)
    return float("inf")


def hand_in_with_nbgrader(scene: Scene, student: Student) -> Path:
    student.nbgrader("fetch_assignment", ASSIGNMENT)
    student.write(f"{ASSIGNMENT}/{NOTEBOOK}", scene.model)
    student.nbgrader("submit", ASSIGNMENT)
    return next(p for p in scene.inbound.iterdir() if p.name.startswith(student.name + "+"))


def plant_refused_hand_ins(scene: Scene) -> None:
    accounts = scene.accounts
    # a secret of 64 hex digits where nbgrader submit writes 128
    scene.hand_in_by_hand(accounts["short_secret"], secret=os.urandom(32).hex())
    # nbgrader's own hand-in, then a link added to it before the service looked
    linked = hand_in_with_nbgrader(scene, accounts["link"])
    (linked / "classmate.ipynb").symlink_to(accounts["classmate"].home / ASSIGNMENT / NOTEBOOK)
    uid = accounts["link"].home.stat().st_uid
    os.lchown(linked / "classmate.ipynb", uid, uid)
    scene.hand_in_by_hand(accounts["unknown_assignment"], assignment="99_nothing")
    scene.hand_in_by_hand(accounts["not_a_date"], stamp="yesterday-after-lunch")
    scene.hand_in_by_hand(accounts["oversized"], files={"data.bin": os.urandom(3_000_000)})
    # the archive budget: a first hand-in holding a sparse file of 1.5 MB (under the hand-in's own
    # 2 MB, over the account's 1 MB of archive once archived), then a second one
    first = scene.hand_in_by_hand(accounts["disk"], stamp="2026-01-01 10:00:00.000000 UTC")
    with open(first / "data.bin", "wb") as handle:
        handle.truncate(1_500_000)
    os.lchown(first / "data.bin", accounts["disk"].home.stat().st_uid, accounts["disk"].home.stat().st_uid)
    time.sleep(0.05)  # the second is written after the first (hand-ins are collected oldest first)
    scene.hand_in_by_hand(accounts["disk"], stamp="2026-01-01 10:05:00.000000 UTC")


@pytest.fixture(scope="module")
def scene(released_course_template):
    top = Path(tempfile.mkdtemp(prefix="sal-answered-"))
    top.chmod(0o755)
    accounts: list[Student] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
        course = Course(top / "course")
        shutil.copytree(released_course_template.root, course.root)
        course.root.chmod(0o700)
        config = course.root / "nbgrader_config.py"
        config.write_text(config.read_text() + "\n" + BUDGETS)
        exchange = CourseExchange(course)
        exchange.release_assignment(ASSIGNMENT)
        fix(exchange_problems(top / "exchange", exchange.course_id))
        course_secret(course.state_dir)
        try:
            accounts = create_students(len(ROLES) + RUSH, top / "home", exchange.course_id, top / "exchange")
            scene = Scene(top, course, exchange, dict(zip(ROLES, accounts)), accounts[len(ROLES):])
            hand_in_with_nbgrader(scene, scene.accounts["classmate"])
            plant_refused_hand_ins(scene)
            secrets = [os.urandom(32).hex() for _ in scene.rush]
            for student, secret in zip(scene.rush, secrets):  # thirty folders within a second, each as its own account
                scene.hand_in_by_hand(student, secret=secret)
            written = time.time()
            pages = [scene.exchange_page(secret) for secret in secrets]
            with ThreadPoolExecutor(1) as watcher:
                answered = watcher.submit(seconds_until_all_exist, pages, written, 300.0)
                GradingLoop(course, workers=2).run(once=True)
                scene.rush_seconds = answered.result()
            yield scene
        finally:
            remove_students(accounts)
            shutil.rmtree(top, ignore_errors=True)


def what_to_do(page: str) -> str:
    return page.split("<h2>What to do</h2>", 1)[1]


def assert_private(scene: Scene, page: str) -> None:
    """Nothing of the hidden tests, the course secret or the classmate is on a refusal page."""
    assert "BEGIN HIDDEN TESTS" not in page and "solutions" not in page
    assert (scene.course.state_dir / "course_secret").read_text().strip() not in page
    assert scene.accounts["classmate"].name not in page


# ---- the classmate beside them ----------------------------------------------------------------

def test_the_classmate_is_graded_in_the_same_pass(scene):
    (page,) = scene.fetched(scene.accounts["classmate"])
    assert "refused" not in page and "not graded" not in page


# ---- a page per refusal class, as its owner fetches it ----------------------------------------

@pytest.mark.parametrize("role, assignment, says", [
    ("short_secret", ASSIGNMENT, "submission_secret.txt is not one nbgrader submit wrote"),
    ("link", ASSIGNMENT, "classmate.ipynb is a symbolic link"),
    ("unknown_assignment", "99_nothing", "the course has no assignment '99_nothing'"),
    ("not_a_date", ASSIGNMENT, "is not a date"),
    ("oversized", ASSIGNMENT, "the hand-in holds more than 2 MB"),
])
def test_a_refused_hand_in_leaves_its_owner_a_page_naming_the_reason(scene, role, assignment, says):
    (page,) = scene.fetched(scene.accounts[role], assignment)
    assert says in html.unescape(page)
    assert "submit" in what_to_do(page).lower()
    assert_private(scene, page)


def test_a_hand_in_over_the_accounts_archive_budget_leaves_a_page(scene):
    pages = scene.fetched(scene.accounts["disk"])
    refused = [page for page in pages if "refused" in page]
    assert len(pages) == 2 and len(refused) == 1
    assert "of the course's archive, its limit per student (1 MB)" in html.unescape(refused[0])
    assert "ask the instructor" in what_to_do(refused[0])
    assert_private(scene, refused[0])


def test_a_sparse_file_counts_at_its_full_size_toward_the_archive_budget(scene):
    (reason,) = [reason for name, owner, reason, _ in scene.journal().refused_folders()
                 if owner == scene.accounts["disk"].name]
    taken = re.match(r"your earlier hand-ins already take ([0-9.]+) MB of the course's archive", reason)
    assert taken and 1.5 <= float(taken.group(1)) < 1.8  # the sparse 1.5 MB, the notebook, a few blocks


def test_refused_folders_are_recorded_for_the_instructor_with_their_owner(scene):
    owners = {owner for _, owner, _, _ in scene.journal().refused_folders()}
    assert {scene.accounts[role].name for role in ("short_secret", "unknown_assignment", "not_a_date")} <= owners
    assert {student.name for student in scene.rush} <= owners


# ---- the rush ---------------------------------------------------------------------------------

def test_thirty_refused_hand_ins_written_within_a_second_all_get_a_page(scene):
    with ThreadPoolExecutor(4) as pool:
        fetched = dict(zip((student.name for student in scene.rush), pool.map(scene.fetched, scene.rush)))
    answered = [name for name, pages in fetched.items()
                if len(pages) == 1 and "is not one nbgrader submit wrote" in pages[0]]
    assert answered == [student.name for student in scene.rush]


def test_the_rush_of_refused_hand_ins_is_answered_within_the_rush_budget(scene):
    assert scene.rush_seconds <= 20.0, f"the rush's last page was released {scene.rush_seconds:.1f} s after it"
