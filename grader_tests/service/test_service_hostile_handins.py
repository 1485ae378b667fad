"""What a student's own hand-in does never stops the grading service, nor reaches a classmate.

Real accounts and the real command: ``grader watch --once`` runs twice, as a service restarted in
the middle. Before the first run, honest alice hands in with ``nbgrader submit`` beside a hand-in
of each class that used to stop the service at every start, or to reach her:

- a notebook whose code removes the ``submission_secret.txt`` of the folder its kernel works in
  (``eraser``), or writes non-UTF-8 bytes into it and into ``timestamp.txt`` and leaves a page of
  its own there (``scribbler``);
- notebooks named with bytes that are not UTF-8 (``b'\\xff.ipynb'``), alone (``bytes``) or beside
  the assignment's notebook (``beside``);
- folders made by another account (``forger``) and named after alice, holding such a notebook;
- hand-ins renamed by their author to a time in 2099 (``future``): a wrong quiz letter, and an
  assignment whose feedback is held until a due date two days away.

Between the runs the eraser's hand-in is put back to "graded, not yet released" with the secret
gone from its archived feedback (where an earlier service left the kernel's leftovers), so the
restart's delivery meets it; then bob and alice hand in, and ``future`` hands in the right letter.
Every run must end normally, and everyone fetches feedback with ``nbgrader fetch_feedback``.

Run as root (accounts are created with useradd and removed afterwards); skipped otherwise.
"""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.utils import notebook_hash

from grader.course import Course
from grader.demo.corpus import Submission, build_notebook, get_submission
from grader.grading.attempt_credit import AttemptCredit
from grader.grading.ungradable_record import ungradable_reason
from grader.service.exchange import CourseExchange
from grader.service.inbound import nbgrader_timestamp
from grader.service.journal import GRADED, HELD, RELEASED, Journal
from grader.service.privacy import exchange_problems, fix
from grader_tests.checkout import notebook_name
from grader_tests.service_setup import temporary_service_course
from grader_tests.student_accounts import create_students, remove_students, root_skip_reason
from solutions.quiz import quiz_answer
from solutions.variants import numbers_for

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(root_skip_reason() is not None, reason=str(root_skip_reason()))]

SOFTMAX, VARIANCE = "02_softmax", "01_variance"
ROLES = ("alice", "bob", "eraser", "scribbler", "bytes", "beside", "forger", "future")
FORGED = 5
IN_2099 = "2099-01-01 00:00:00.000000 UTC"

ERASE_SECRET = 'import os\nos.remove("submission_secret.txt")\n'
SCRIBBLE = ('for name in ("submission_secret.txt", "timestamp.txt"):\n'
            '    with open(name, "wb") as handle:\n'
            '        handle.write(bytes([0xff, 0xfe, 0x80]))\n'
            'with open("planted.html", "w") as handle:\n'
            '    handle.write("<p>planted " + "by the kernel</p>")\n')  # the page shows this source, not the text


class Scene:
    """The course, its exchange, the accounts by role, and what the two runs of the service left."""

    def __init__(self, top: Path, course: Course, exchange: CourseExchange, accounts: dict):
        self.top, self.course, self.exchange, self.accounts = top, course, exchange, accounts
        self.runs: list = []
        self.variance_due = datetime.now(timezone.utc) + timedelta(days=2)

    def id(self, role: str) -> str:
        return self.accounts[role].name

    def uid(self, role: str) -> int:
        return self.accounts[role].home.stat().st_uid

    def rows(self, role: str, assignment: str = SOFTMAX):
        return Journal(self.course.state_dir / "service.sqlite").of(self.id(role), assignment)

    def notebook(self, assignment: str, submission: str, extra_cell: str | None = None,
                 culprit: str | None = None) -> str:
        release = nbformat.read(self.course.release_notebook(assignment), as_version=4)
        source = nbformat.read(self.course.source_notebook(assignment), as_version=4)
        handed_in = get_submission(assignment, submission)
        if culprit is not None:
            handed_in = Submission(assignment, f"letter_{culprit}", "model", "partial", "",
                                   {"answer_culprit": f'answer_culprit = "{culprit}"\n'})
        notebook = build_notebook(handed_in, release, source)
        if extra_cell is not None:
            notebook.cells.append(nbformat.v4.new_code_cell(extra_cell))
        return nbformat.writes(notebook)

    def submit(self, role: str, assignment: str, notebook: str) -> None:
        """``nbgrader submit`` from the account, after writing its notebook."""
        student = self.accounts[role]
        if not (student.home / assignment).exists():
            student.nbgrader("fetch_assignment", assignment)
        student.write(f"{assignment}/{notebook_name(assignment)}.ipynb", notebook)
        student.nbgrader("submit", assignment)

    def rename_into_2099(self, role: str, assignment: str) -> None:
        """The account renames its newest hand-in folder (and rewrites its timestamp.txt) to 2099."""
        prefix = f"{self.id(role)}+{assignment}+"
        folder = max((p for p in self.exchange.inbound_dir.iterdir() if p.name.startswith(prefix)),
                     key=lambda p: p.stat().st_ctime)
        renamed = folder.with_name(f"{prefix}{IN_2099}+{folder.name.rsplit('+', 1)[-1]}")
        self.accounts[role].run("sh", "-c", 'mv "$1" "$2" && printf %s "$3" > "$2/timestamp.txt"', "sh",
                                str(folder), str(renamed), IN_2099)

    def make(self, name: bytes, owner: str, files: dict[bytes, str]) -> None:
        """A hand-in folder made by hand in ``inbound/`` and owned by ``owner``'s account, with the
        timestamp and secret files nbgrader submit writes."""
        folder = os.path.join(os.fsencode(self.exchange.inbound_dir), name)
        os.mkdir(folder)
        contents = {b"timestamp.txt": nbgrader_timestamp(datetime.now(timezone.utc).timestamp()),
                    b"submission_secret.txt": os.urandom(64).hex(), **files}
        for relative, text in contents.items():
            with open(os.path.join(folder, relative), "w", encoding="utf-8") as handle:
                handle.write(text)
        for path in [folder, *(os.path.join(folder, relative) for relative in contents)]:
            os.lchown(path, self.uid(owner), self.uid(owner))

    def watch(self) -> None:
        """``grader watch --once`` as the instructor (root); its exit status and log are kept."""
        env = {**os.environ, "GRADER_EXCHANGE_ROOT": str(self.top / "exchange")}
        self.runs.append(subprocess.run([sys.executable, "-m", "grader.cli", "watch", "--once", "--fix-permissions",
                                         "--workers", "2"],
                                        cwd=self.course.root, env=env, capture_output=True, text=True,
                                        timeout=1200))

    def fetched(self, role: str, assignment: str = SOFTMAX) -> list[str]:
        home = self.accounts[role].home
        return [p.read_text(encoding="utf-8")
                for p in sorted((home / assignment / "feedback").glob("*/*.html"))]


def handin_name(student: str, suffix: str) -> bytes:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    return f"{student}+{SOFTMAX}+{stamp}+{suffix}".encode()


def wrong_letter(student: str) -> tuple[str, str]:
    """(a wrong letter, the right one) of ``answer_culprit`` for ``student``."""
    right = quiz_answer("answer_culprit", numbers_for(student)["answer_culprit"])
    return next(letter for letter in "ABCD" if letter != right), right


@pytest.fixture(scope="module")
def scene(released_course_template):
    accounts = {}
    with temporary_service_course(released_course_template, "sal-handins-", (SOFTMAX, VARIANCE)) as setup:
        top, course, exchange = setup.exchange_root.parent, setup.course, setup.exchange
        top.chmod(0o755)  # the students' homes are in it
        fix(exchange_problems(setup.exchange_root, exchange.course_id))
        config = course.root / "nbgrader_config.py"
        config.write_text(config.read_text() + f'\nc.GradingService.immediate_feedback = {{"{VARIANCE}": False}}\n')
        try:
            accounts = dict(zip(ROLES, create_students(len(ROLES), top / "home", exchange.course_id,
                                                       setup.exchange_root)))
            scene = Scene(top, course, exchange, accounts)
            with Gradebook(course.db_url) as gb:
                gb.update_or_create_assignment(VARIANCE, duedate=scene.variance_due.replace(tzinfo=None))
            first_run(scene)
            as_left_by_an_earlier_service(scene)
            second_run(scene)
            for role in ROLES:
                for assignment in (SOFTMAX, VARIANCE):
                    if (accounts[role].home / assignment).exists():
                        accounts[role].nbgrader("fetch_feedback", assignment)
            yield scene
        finally:
            remove_students(list(accounts.values()))


def first_run(scene: Scene) -> None:
    model = scene.notebook(SOFTMAX, "model_answer")
    scene.submit("alice", SOFTMAX, model)
    scene.submit("eraser", SOFTMAX, scene.notebook(SOFTMAX, "model_answer", ERASE_SECRET))
    scene.submit("scribbler", SOFTMAX, scene.notebook(SOFTMAX, "model_answer", SCRIBBLE))
    scene.make(handin_name(scene.id("bytes"), "bytes"), "bytes", {b"\xff.ipynb": model})
    scene.make(handin_name(scene.id("beside"), "beside"), "beside",
               {b"softmax.ipynb": model, b"\xff.ipynb": model, b"notes\xfe.txt": "notes"})
    for index in range(FORGED):
        scene.make(handin_name(scene.id("alice"), f"forged{index}"), "forger", {b"\xff.ipynb": model})
    wrong, _ = wrong_letter(scene.id("future"))
    scene.submit("future", SOFTMAX, scene.notebook(SOFTMAX, "model_answer", culprit=wrong))
    scene.rename_into_2099("future", SOFTMAX)
    scene.submit("future", VARIANCE, scene.notebook(VARIANCE, "model_answer"))
    scene.rename_into_2099("future", VARIANCE)
    scene.watch()


def as_left_by_an_earlier_service(scene: Scene) -> None:
    """The eraser's hand-in as a service that stopped after grading it left it: graded, not yet
    released, its archived feedback holding what the kernel left (no submission secret)."""
    (row,) = scene.rows("eraser")
    Journal(scene.course.state_dir / "service.sqlite").update(row.id, state=GRADED)
    for secret in (scene.course.state_dir / "submissions" / scene.id("eraser")).rglob("feedback/submission_secret.txt"):
        secret.unlink()


def second_run(scene: Scene) -> None:
    scene.submit("bob", SOFTMAX, scene.notebook(SOFTMAX, "model_answer"))
    scene.submit("alice", SOFTMAX, scene.notebook(SOFTMAX, "softmax_no_max_subtraction"))
    _, right = wrong_letter(scene.id("future"))
    scene.submit("future", SOFTMAX, scene.notebook(SOFTMAX, "model_answer", culprit=right))
    scene.watch()


# ---- every run ends normally, and the classmates are graded in it ------------------------------

def test_the_service_ends_each_run_normally_with_every_hand_in_recorded(scene):
    assert [run.returncode for run in scene.runs] == [0, 0], [run.stderr[-3000:] for run in scene.runs]
    rows = Journal(scene.course.state_dir / "service.sqlite").all()
    assert {row.state for row in rows} <= {RELEASED, HELD}
    assert all(row.outcome for row in rows if row.state == RELEASED)


def test_the_classmates_get_graded_feedback_before_and_after_the_restart(scene):
    assert [(r.outcome, r.refusal) for r in scene.rows("alice")] == [("graded", None), ("graded", None)]
    assert [r.outcome for r in scene.rows("bob")] == ["graded"]
    alice, bob = scene.fetched("alice"), scene.fetched("bob")
    assert len(alice) == 2 and "no max subtraction" in alice[1] and "not graded" not in alice[0]
    assert len(bob) == 1 and "not graded" not in bob[0] and "refused" not in bob[0]


# ---- 1. what the kernel leaves in its working folder ------------------------------------------

def test_a_kernel_that_removes_its_hand_ins_secret_still_gets_its_feedback(scene):
    (row,) = scene.rows("eraser")
    assert (row.state, row.outcome) == (RELEASED, "graded")
    (page,) = scene.fetched("eraser")
    assert "not graded" not in page and "softmax" in page


def test_a_kernel_that_writes_bytes_into_the_secret_and_plants_a_page_releases_only_the_graders_page(scene):
    (row,) = scene.rows("scribbler")
    assert (row.state, row.outcome) == (RELEASED, "graded")
    (page,) = scene.fetched("scribbler")
    assert "planted by the kernel" not in page
    folder = scene.course.root / "feedback" / scene.id("scribbler") / SOFTMAX
    assert sorted(p.name for p in folder.iterdir()) == ["softmax.html", "submission_secret.txt", "timestamp.txt"]
    archived = next((scene.course.state_dir / "submissions" / scene.id("scribbler")).rglob("handin"))
    assert (folder / "submission_secret.txt").read_bytes() == (archived / "submission_secret.txt").read_bytes()
    released = {p.read_text(encoding="utf-8", errors="replace") for p in (scene.exchange.inbound_dir.parent
                                                                          / "feedback").glob("*.html")}
    assert not any("planted by the kernel" in text for text in released)


# ---- 2. names that are not UTF-8 ------------------------------------------------------------------

def test_a_hand_in_holding_only_a_notebook_named_with_bytes_is_recorded_ungradable_with_a_readable_reason(scene):
    (row,) = scene.rows("bytes")
    assert (row.state, row.outcome) == (RELEASED, "ungradable")
    assert "names are not UTF-8 text (\\xff.ipynb)" in row.problem
    assert "\\xff.ipynb" in ungradable_reason(scene.course, SOFTMAX, scene.id("bytes"))
    page = (scene.course.root / "feedback" / scene.id("bytes") / SOFTMAX / "softmax.html").read_text()
    assert "\\xff.ipynb" in page


def test_a_notebook_named_with_bytes_beside_the_assignments_own_is_refused_with_its_name_and_a_page(scene):
    (row,) = scene.rows("beside")
    assert (row.state, row.outcome) == (RELEASED, "ungradable")
    assert "names are not UTF-8 text (\\xff.ipynb, notes\\xfe.txt); rename them" in row.problem
    folder = scene.course.root / "feedback" / scene.id("beside") / SOFTMAX
    assert sorted(os.listdir(os.fsencode(folder))) == [b"softmax.html", b"submission_secret.txt", b"timestamp.txt"]


# ---- 3. folders made by another account under a classmate's name ------------------------------

def test_folders_named_after_a_classmate_are_their_makers_and_never_touch_her(scene):
    forged = scene.rows("forger")
    assert len(forged) == FORGED and {r.outcome for r in forged} == {"refused"}
    assert all(f"names student {scene.id('alice')}" in r.problem for r in forged)
    assert all(r.refusal is None for r in scene.rows("alice"))  # no row of the forger's under her name
    archived = list((scene.course.state_dir / "submissions" / scene.id("alice")).glob("*/*"))
    assert len(archived) == 2  # her own two hand-ins: nothing forged is archived under her name
    own_page = (scene.course.root / "feedback" / scene.id("alice") / SOFTMAX / "softmax.html").read_text()
    assert "refused" not in own_page and "not graded" not in own_page


# ---- 4. hand-in times come from the service ---------------------------------------------------

def test_a_wrong_answer_handed_in_under_a_2099_name_costs_an_attempt_like_any_other(scene):
    wrong, right = scene.rows("future")
    assert wrong.submitted_at < right.submitted_at < datetime.now(timezone.utc).timestamp()
    with Gradebook(scene.course.db_url) as gb:
        notebook = gb.find_submission_notebook("softmax", SOFTMAX, scene.id("future"))
        score = {grade.name: float(grade.score) for grade in notebook.grades}["test_answer_culprit"]
    assert score == 2 * AttemptCredit().schedule[1]


def test_feedback_handed_in_under_a_2099_name_is_held_until_the_due_date(scene):
    (row,) = scene.rows("future", VARIANCE)
    assert row.state == HELD and row.submitted_at < scene.variance_due.timestamp()
    (page,) = scene.fetched("future", VARIANCE)
    assert "received and graded" in page and "released after its due date" in page
    secret = next((scene.course.state_dir / "submissions" / scene.id("future") / VARIANCE).rglob(
        "handin/submission_secret.txt")).read_text()
    released = scene.exchange.inbound_dir.parent / "feedback" / f"{notebook_hash(secret=secret, notebook_id='variance')}.html"
    assert "received and graded" in released.read_text()
