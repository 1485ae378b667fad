"""The grading service trusts nothing a student put in the exchange's ``inbound/``.

``inbound/`` is writable by every account, so a student can make any folder there by hand, named
for anyone and holding anything. Real accounts: two honest students hand in with ``nbgrader
submit``; other accounts (and root) leave hostile folders beside them; one pass of the service
(``GradingLoop.run(once=True)``, in this process) must grade the honest students, give each
hostile folder a record, copy nothing a link points to, and go on.

Run as root (accounts are created with useradd and removed afterwards); skipped otherwise.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission
from grader.grading.seeds import course_secret
from grader.service.exchange import CourseExchange
from grader.service.inbound import nbgrader_timestamp
from grader.service.journal import RELEASED, Journal
from grader.service.privacy import exchange_problems, fix
from grader.service.watch import GradingLoop
from grader_tests.student_accounts import create_students, remove_students, root_skip_reason

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
HONEST = ("alice", "bob")
# one attacking account per kind of own hand-in, so none waits behind another of the same account
ATTACKERS = ("links", "nblink", "sparse", "deep", "fifo", "hardlink", "many", "lately", "forger", "spinner")


class Scene:
    """The course, its exchange, the accounts by role, and what the pass left."""

    def __init__(self, top: Path, course: Course, exchange: CourseExchange, accounts: dict):
        self.top, self.course, self.exchange, self.accounts = top, course, exchange, accounts
        self.inbound = exchange.inbound_dir
        self.due: datetime | None = None
        self.pages: dict[str, list[Path]] = {}

    def id(self, role: str) -> str:
        return self.accounts[role].name

    def uid(self, role: str) -> int:
        return self.accounts[role].home.stat().st_uid

    def journal(self) -> Journal:
        return Journal(self.course.state_dir / "service.sqlite")

    def rows(self, role: str):
        return self.journal().of(self.id(role), ASSIGNMENT)

    def refused(self) -> dict[bytes, str]:
        return {name: reason for name, _, reason, _ in self.journal().refused_folders()}

    def notebook(self, submission: str) -> str:
        release = nbformat.read(self.course.release_notebook(ASSIGNMENT), as_version=4)
        source = nbformat.read(self.course.source_notebook(ASSIGNMENT), as_version=4)
        return nbformat.writes(build_notebook(get_submission(ASSIGNMENT, submission), release, source))

    def forge(self, name: bytes, owner: int, files: dict[str, str | bytes] | None = None,
              secret: str | None = None, moment: datetime | None = None) -> Path:
        """A hand-in folder made by hand in ``inbound/``, owned by ``owner``: ``files`` plus the
        timestamp and secret files nbgrader submit writes (unless ``secret`` is given)."""
        folder = Path(os.fsdecode(self.inbound)) / os.fsdecode(name)
        folder.mkdir()
        contents = {"timestamp.txt": nbgrader_timestamp((moment or datetime.now(timezone.utc)).timestamp()),
                    "submission_secret.txt": secret or os.urandom(64).hex(), **(files or {})}
        for relative, content in contents.items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        give(folder, owner)
        return folder


def give(folder: Path, uid: int) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)
    os.chmod(folder, 0o777, follow_symlinks=False)


def name_of(student: str, suffix: str, moment: datetime | None = None) -> bytes:
    stamp = (moment or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    return f"{student}+{ASSIGNMENT}+{stamp}+{suffix}".encode()


def set_due_date(course: Course, moment: datetime) -> None:
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=moment.replace(tzinfo=None))


@pytest.fixture(scope="module")
def scene(released_course_template):
    top = Path(tempfile.mkdtemp(prefix="sal-hostile-"))
    top.chmod(0o755)
    accounts = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
        course = Course(top / "course")
        shutil.copytree(released_course_template.root, course.root)
        course.root.chmod(0o700)
        exchange = CourseExchange(course)
        exchange.release_assignment(ASSIGNMENT)
        fix(exchange_problems(top / "exchange", exchange.course_id))
        roles = HONEST + ATTACKERS
        try:
            accounts = dict(zip(roles, create_students(len(roles), top / "home", exchange.course_id,
                                                       top / "exchange")))
            scene = Scene(top, course, exchange, accounts)
            for role in HONEST:
                hand_in_honestly(scene, role)
            plant_hostile_folders(scene)
            spinning = spin(scene)
            try:
                GradingLoop(course, workers=2).run(once=True)  # must return, not raise
            finally:
                spinning.set()
            for role in HONEST + ("lately",):
                accounts[role].nbgrader("fetch_feedback", ASSIGNMENT)
            yield scene
        finally:
            remove_students(list(accounts.values()))
            shutil.rmtree(top, ignore_errors=True)


def hand_in_honestly(scene: Scene, role: str) -> None:
    student = scene.accounts[role]
    student.nbgrader("fetch_assignment", ASSIGNMENT)
    student.write(f"{ASSIGNMENT}/{NOTEBOOK}", scene.notebook("model_answer"))
    student.nbgrader("submit", ASSIGNMENT)


def plant_hostile_folders(scene: Scene) -> None:
    course, model = scene.course, scene.notebook("model_answer")
    blank = course.release_notebook(ASSIGNMENT).read_text()
    alice_notebook = scene.accounts["alice"].home / ASSIGNMENT / NOTEBOOK
    alice_folder = next(p for p in scene.inbound.iterdir() if p.name.startswith(scene.id("alice") + "+"))
    course_secret(course.state_dir)  # made now, so that a link to it has something to point at

    links = scene.forge(name_of(scene.id("links"), "links"), scene.uid("links"), {NOTEBOOK: model})
    for link, target in (("classmate.ipynb", alice_notebook), ("source", course.root / "source"),
                         ("course_secret", course.state_dir / "course_secret"),
                         ("gradebook.db", course.gradebook), ("shadow", Path("/etc/shadow")),
                         ("zero", Path("/dev/zero"))):
        (links / link).symlink_to(target)
        os.lchown(links / link, scene.uid("links"), scene.uid("links"))

    nblink = scene.forge(name_of(scene.id("nblink"), "nblink"), scene.uid("nblink"))
    (nblink / NOTEBOOK).symlink_to(alice_notebook)
    os.lchown(nblink / NOTEBOOK, scene.uid("nblink"), scene.uid("nblink"))

    # a secret read from a classmate (through a link, before links were refused): reused
    scene.forge(name_of(scene.id("forger"), "reuse"), scene.uid("forger"), {NOTEBOOK: blank},
                secret=(alice_folder / "submission_secret.txt").read_text())

    sparse = scene.forge(name_of(scene.id("sparse"), "sparse"), scene.uid("sparse"), {NOTEBOOK: model})
    with open(sparse / "data.bin", "wb") as handle:
        handle.truncate(200 * 1024 ** 2)
    os.lchown(sparse / "data.bin", scene.uid("sparse"), scene.uid("sparse"))

    deep = scene.forge(name_of(scene.id("deep"), "deep"), scene.uid("deep"), {NOTEBOOK: model})
    nested = deep
    for _ in range(600):
        nested = nested / "d"
        nested.mkdir()
        os.lchown(nested, scene.uid("deep"), scene.uid("deep"))

    fifo = scene.forge(name_of(scene.id("fifo"), "fifo"), scene.uid("fifo"), {NOTEBOOK: model})
    os.mkfifo(fifo / "pipe")
    os.lchown(fifo / "pipe", scene.uid("fifo"), scene.uid("fifo"))

    hardlink = scene.forge(name_of(scene.id("hardlink"), "hardlink"), scene.uid("hardlink"), {NOTEBOOK: model})
    private = scene.top / "root-only.txt"
    private.write_text("root's own file")
    private.chmod(0o600)
    os.link(private, hardlink / "notes.txt")

    scene.forge(name_of(scene.id("many"), "many"), scene.uid("many"),
                {f"copy{index}.ipynb": blank for index in range(20)})

    # Under a classmate's name: a link to a folder root filled, a root-owned folder, and eight
    # folders made by another account. None may count as bob's, nor push his own hand-in out.
    decoy = scene.top / "decoy"
    decoy.mkdir()
    (decoy / NOTEBOOK).write_text(blank)
    (decoy / "timestamp.txt").write_text(nbgrader_timestamp(time.time()))
    (decoy / "submission_secret.txt").write_text(os.urandom(64).hex())
    (scene.inbound / os.fsdecode(name_of(scene.id("bob"), "link"))).symlink_to(decoy)
    scene.forge(name_of(scene.id("bob"), "root"), 0, {NOTEBOOK: blank})
    for index in range(8):
        scene.forge(name_of(scene.id("bob"), f"forged{index}"), scene.uid("forger"), {NOTEBOOK: blank})

    # Names no code path may choke on.
    scene.forge(f"{scene.id('forger')}+{ASSIGNMENT}+not-a-date+x".encode(), scene.uid("forger"), {NOTEBOOK: blank})
    scene.forge(name_of(scene.id("forger"), "bytes") + b"\xff\xfe", scene.uid("forger"), {NOTEBOOK: blank})

    # Late, under a name that claims eleven minutes before the due date.
    scene.due = datetime.now(timezone.utc) - timedelta(minutes=1)
    set_due_date(course, scene.due)
    time.sleep(0.05)
    claimed = scene.due - timedelta(minutes=11)
    scene.forge(name_of(scene.id("lately"), "late", claimed), scene.uid("lately"), {NOTEBOOK: model},
                moment=claimed)


def spin(scene: Scene) -> threading.Event:
    """A folder renamed away and back as fast as possible while the service runs."""
    here = scene.forge(name_of(scene.id("spinner"), "spin"), scene.uid("spinner"), {NOTEBOOK: "{}"})
    away = here.with_name(here.name + "-away")
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            for source, target in ((here, away), (away, here)):
                try:
                    os.rename(source, target)
                except OSError:
                    pass

    threading.Thread(target=loop, daemon=True).start()
    return stop


def full_marks(scene: Scene, role: str) -> bool:
    with Gradebook(scene.course.db_url) as gb:
        return gb.find_submission(ASSIGNMENT, scene.id(role)).score == gb.find_assignment(ASSIGNMENT).max_score


def fetched_pages(scene: Scene, role: str) -> list[str]:
    home = scene.accounts[role].home
    return [p.read_text() for p in sorted((home / ASSIGNMENT / "feedback").glob("*/*.html"))]


# ---- honest students beside every hostile folder ---------------------------------------------

@pytest.mark.parametrize("role", HONEST)
def test_honest_students_are_graded_in_the_same_pass(scene, role):
    own = [r for r in scene.rows(role) if r.refusal is None]
    assert [(r.state, r.outcome) for r in own] == [(RELEASED, "graded")]
    assert full_marks(scene, role)
    pages = fetched_pages(scene, role)
    assert len(pages) == 1 and "not graded" not in pages[0] and "refused" not in pages[0]


def test_a_second_pass_over_the_same_folders_starts_and_ends_normally(scene):
    before = len(scene.journal().all())
    GradingLoop(scene.course, workers=1).run(once=True)
    assert len(scene.journal().all()) == before


# ---- links, special files, other accounts' files ----------------------------------------------

def archived_files(scene: Scene, role: str) -> list[Path]:
    archive = scene.course.state_dir / "submissions" / scene.id(role)
    return [p for p in archive.rglob("*") if p.is_file() or p.is_symlink()]


@pytest.mark.parametrize("role, says", [
    ("links", "is a symbolic link"),
    ("nblink", f"{NOTEBOOK} is a symbolic link"),
    ("fifo", "pipe is a FIFO"),
    ("hardlink", "notes.txt belongs to the account root"),
])
def test_a_hand_in_holding_a_link_or_special_or_foreign_file_is_not_copied(scene, role, says):
    (row,) = scene.rows(role)
    assert (row.state, row.outcome) == (RELEASED, "ungradable") and says in row.problem
    names = {p.name for p in archived_files(scene, role)}
    assert names <= {"submission_secret.txt", "timestamp.txt", "not_collected.txt", f"{NOTEBOOK[:-6]}.html"}
    assert not (scene.course.root / "submitted" / scene.id(role) / ASSIGNMENT / NOTEBOOK).exists()


def test_nothing_a_link_points_to_reaches_the_course_folders(scene):
    secret = (scene.course.state_dir / "course_secret").read_bytes()
    shadow = Path("/etc/shadow").read_bytes()
    for folder in ("submitted", "autograded", "feedback"):
        for path in (scene.course.root / folder).rglob("*"):
            if path.is_file():
                content = path.read_bytes()
                assert secret not in content and (not shadow or shadow not in content), path
    for path in (scene.course.state_dir / "submissions").rglob("*"):
        assert not path.is_symlink() and path.name not in ("gradebook.db", "shadow", "zero", "classmate.ipynb")


def test_the_author_of_a_refused_hand_in_is_told_why(scene):
    page = next(Path(scene.course.root, "feedback", scene.id("links"), ASSIGNMENT).glob("*.html")).read_text()
    assert "not graded" in page and "symbolic link" in page


# ---- bounded in total --------------------------------------------------------------------------

@pytest.mark.parametrize("role, says", [
    ("sparse", "the hand-in holds more than 20 MB"),
    ("deep", "nested more than 6 deep"),
    ("many", "more than 10 notebooks"),
])
def test_a_hand_in_over_its_budget_is_refused_before_anything_is_copied(scene, role, says):
    (row,) = scene.rows(role)
    assert row.outcome == "ungradable" and says in row.problem
    pages = list(Path(scene.course.root, "feedback", scene.id(role), ASSIGNMENT).glob("*.html"))
    assert len(pages) == 1  # one page, not one per notebook the hand-in named


# ---- a hand-in speaks only for its owner ------------------------------------------------------

def test_folders_under_a_classmates_name_are_refused_and_not_counted_as_hers(scene):
    refused = scene.refused()
    assert "symbolic link" in refused[name_prefix(scene, "bob", b"link")]
    assert "belongs to root" in refused[name_prefix(scene, "bob", b"root")]
    forged = [r for r in scene.rows("forger") if f"names student {scene.id('bob')}" in (r.refusal or "")]
    assert len(forged) == 8 and {r.outcome for r in forged} == {"refused"}
    assert all(f"handed in by the account {scene.id('forger')}" in r.problem for r in forged)
    assert [r.outcome for r in scene.rows("bob")] == ["graded"]  # no row of the forger's under his name


def name_prefix(scene: Scene, role: str, suffix: bytes) -> bytes:
    return next(name for name in scene.refused() if name.startswith(scene.id(role).encode() + b"+")
                and name.endswith(b"+" + suffix))


def test_a_reused_submission_secret_is_refused_and_the_owner_keeps_her_page(scene):
    refused = scene.refused()
    (reason,) = [r for name, r in refused.items() if name.endswith(b"+reuse")]
    assert "submission secret is the one of another hand-in" in reason
    assert not [r for r in scene.journal().all() if r.student == scene.id("forger") and r.refusal is None]
    (page,) = fetched_pages(scene, "alice")
    assert "refused" not in page and "not graded" not in page


@pytest.mark.parametrize("suffix, says", [(b"+x", "is not a date"), (b"\xff\xfe", "is not UTF-8")])
def test_a_folder_whose_name_is_not_nbgraders_is_recorded_as_refused(scene, suffix, says):
    (reason,) = [r for name, r in scene.refused().items() if name.endswith(suffix)]
    assert says in reason


# ---- trustworthy hand-in times ----------------------------------------------------------------

def test_a_hand_in_counts_as_made_when_it_was_written_not_when_its_name_says(scene):
    (row,) = scene.rows("lately")
    assert row.outcome == "graded"
    assert row.submitted_at > scene.due.timestamp()  # the name claims eleven minutes before it
    with Gradebook(scene.course.db_url) as gb:
        submission = gb.find_submission(ASSIGNMENT, scene.id("lately"))
        assert submission.timestamp > scene.due.replace(tzinfo=None)
