"""Attacks on everyone else (``grader_tests/attacks_neighbours/``), graded by ``grader autograde``.

Each attack tries to hurt someone other than its author: starve a neighbour of CPU (busy
children in new sessions, daemons, a process pool), take the machine's memory across processes,
flood the grading process through comm messages or display updates, fill the disk with bytes or
files, make nbgrader follow a link to a device or block on a FIFO, make the grader parse a huge
timestamp, forge the class report's verdict records or an ungradable reason, crash the report
with rich markup, or leave world-writable folders. The corpus is graded as two courses ("machine"
and "forgery"), each by one ``grader autograde --workers 2`` run with an honest student (the model
answer) after every attacker. Every honest student keeps full marks and is listed as graded with
every check passed; no attacker gains; the grading processes stay under a memory bound; the
graded notebooks and folders stay bounded; each run ends within its deadline.
"""
from __future__ import annotations

import fcntl
import json
import shutil
import stat
from pathlib import Path

import pytest
from attack_harness import (
    ASSIGNMENT,
    HONEST,
    NOTEBOOK_NAME,
    TARGET,
    AnswerServer,
    irregular_entries,
    lay_out_batch,
    load_attacks,
    max_scores,
    model_answers,
    placeholders,
    process_marker,
    processes_named,
    run_grader_autograde,
    scores,
)

from grader.course import Course
from grader.release import generate_release
from grader.reporting.class_report import build_report
from grader.sandbox.limits import SandboxLimits
from grader.sandbox.submitted_links import quarantine_folder
from grader_tests.checkout import create_course

pytestmark = pytest.mark.slow

CORPUS_DIR = Path(__file__).resolve().parents[1] / "attacks_neighbours"
COURSES = ("machine", "forgery")
CORPUS = load_attacks(CORPUS_DIR, batches=COURSES)
WORKERS = 2
# The course config grades with 30 s per cell; here a whole notebook gets 60 s, so that the
# attackers that keep their kernel alive with long sleeps end soon.
NOTEBOOK_TIMEOUT = 60
RUN_DEADLINE = 1200  # seconds for one course's grader autograde run before the test gives up
GRADER_MEMORY_BOUND = 768 * 1024 ** 2  # bytes of resident memory any grading process may reach
NOTEBOOK_SIZE_BOUND = 32 * 1024 ** 2  # bytes of any autograded notebook
LIMITS = SandboxLimits()


def ids(attack):
    return attack.name


def grade_courses(folder: Path) -> dict:
    """Release 02_softmax, lay out both courses, grade each with ``grader autograde``; a summary."""
    import secrets

    import nbformat

    template = create_course(folder / "template")
    generate_release(template, ASSIGNMENT)
    with (template.root / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.SandboxedExecute.notebook_timeout = {NOTEBOOK_TIMEOUT}\n")
    run_token = secrets.token_hex(8)
    source = nbformat.read(template.source_notebook(ASSIGNMENT), as_version=4)
    summary = {"folder": str(folder), "run_token": run_token, "courses": []}
    with AnswerServer(model_answers(source)[TARGET]) as server:
        for name in COURSES:
            attacks = [a for a in CORPUS if a.batch == name]
            batch = lay_out_batch(template, folder, name, attacks, placeholders(server.url), run_token,
                                  honest_after_each=True)
            run = run_grader_autograde(batch, WORKERS, RUN_DEADLINE)
            summary["courses"].append({"name": name, "root": str(batch.course.root), **run,
                                       "roster": [[s, a.name] for s, a in batch.roster]})
    return summary


@pytest.fixture(scope="module")
def graded(tmp_path_factory, worker_id) -> dict:
    """Both courses, graded once per pytest run (pytest-xdist workers share the result)."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    summary = shared / "neighbour-attacks.json"
    with open(shared / "neighbour-attacks.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not summary.exists():
            folder = shared / "neighbour-attacks"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            summary.write_text(json.dumps(grade_courses(folder)), encoding="utf-8")
    return json.loads(summary.read_text(encoding="utf-8"))


def courses(graded) -> list[tuple[dict, Course]]:
    return [(c, Course(Path(c["root"]))) for c in graded["courses"]]


def students_of(graded, kind: str) -> list[tuple[Course, str]]:
    """(course, student) of every honest student (kind "honest") or of the attack named ``kind``."""
    return [(course, student) for c, course in courses(graded) for student, name in c["roster"]
            if name == kind]


def attacker(graded, attack) -> tuple[Course, str]:
    [found] = students_of(graded, attack.name)
    return found


def total(cell_scores: dict) -> float:
    return sum(score or 0.0 for score in cell_scores.values())


# ---- honest students ------------------------------------------------------------------------------

def test_every_honest_student_keeps_full_marks(graded):
    short = {f"{course.root.parent.name}/{student}": scores(course, student)
             for course, student in students_of(graded, HONEST.name)
             if scores(course, student) != max_scores(course)}
    assert short == {}


def test_report_lists_every_honest_student_as_graded_with_every_check_passed(graded):
    wrong = {}
    for _, course in courses(graded):
        report = {r.student: r for r in build_report(course, ASSIGNMENT).students}
        for c_course, student in students_of(graded, HONEST.name):
            if c_course != course:
                continue
            result = report[student]
            if (result.status, result.score, result.ignored_records) != ("graded", result.max_score, 0) or \
                    not result.checks or any(r["fraction"] != 1.0 for r in result.checks.values()):
                wrong[f"{course.root.parent.name}/{student}"] = (result.status, result.score, result.checks)
    assert wrong == {}


def test_printed_report_shows_every_honest_student(graded):
    for course_summary, course in courses(graded):
        full = sum(max_scores(course).values())
        for student, name in course_summary["roster"]:
            if name == HONEST.name:
                line = next(line for line in course_summary["report"].splitlines() if f" {student} " in line)
                assert f"{full:g} / {full:g}" in line and "graded" in line


# ---- attackers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("attack", CORPUS, ids=ids)
def test_attacker_gains_nothing(graded, attack):
    course, student = attacker(graded, attack)
    [baseline] = [s for c, s in students_of(graded, "baseline") if c == course]
    assert total(scores(course, student)) <= total(scores(course, baseline))


@pytest.mark.parametrize("attack", CORPUS, ids=ids)
def test_every_attacker_ends_with_a_score_or_a_reason(graded, attack):
    course, student = attacker(graded, attack)
    assert None not in scores(course, student).values()


@pytest.mark.parametrize("attack", [a for a in CORPUS if a.expect == "zero"], ids=ids)
def test_unreadable_attacker_is_ungradable_with_its_reason_printed_literally(graded, attack):
    course, student = attacker(graded, attack)
    [result] = [r for r in build_report(course, ASSIGNMENT).students if r.student == student]
    assert result.status.startswith("ungradable: ") and "[/oops]" in result.status
    summary = next(c for c, k in courses(graded) if k == course)
    assert "[/oops]" in summary["report"]


def test_forged_verdict_records_are_ignored_and_counted(graded):
    for name in ("forged_verdict_with_fraction", "forged_verdict_without_fraction"):
        course, student = attacker(graded, next(a for a in CORPUS if a.name == name))
        [result] = [r for r in build_report(course, ASSIGNMENT).students if r.student == student]
        assert result.ignored_records > 0 and result.checks["softmax"]["fraction"] < 1.0


def test_a_file_the_kernel_writes_is_no_ungradable_reason(graded):
    course, student = attacker(graded, next(a for a in CORPUS if a.name == "ungradable_file_written_by_kernel"))
    [result] = [r for r in build_report(course, ASSIGNMENT).students if r.student == student]
    assert result.status == "graded"


@pytest.mark.parametrize("name", ["link_to_device_in_submission", "fifo_in_submission", "huge_timestamp"])
def test_unsafe_submission_entries_are_kept_aside_before_nbgrader_copies_them(graded, name):
    course, student = attacker(graded, next(a for a in CORPUS if a.name == name))
    kept = quarantine_folder(course.root, student, ASSIGNMENT)
    assert sorted(p.name for p in kept.rglob("*") if not p.is_dir()) != []
    assert irregular_entries(course.root / "submitted" / student / ASSIGNMENT) == []


# ---- the grading machine ------------------------------------------------------------------------

def test_each_run_finishes_within_its_deadline(graded):
    assert {c["name"]: (c["returncode"], c["seconds"] < RUN_DEADLINE) for c in graded["courses"]} == \
        {name: (0, True) for name in COURSES}


def test_grading_processes_stay_under_the_memory_bound(graded):
    peaks = {c["name"]: c["peak_rss"] for c in graded["courses"]}
    assert all(0 < peak < GRADER_MEMORY_BOUND for peak in peaks.values()), peaks


def test_autograded_notebooks_stay_bounded(graded):
    large = {str(path): path.stat().st_size for _, course in courses(graded)
             for path in (course.root / "autograded").rglob(f"{NOTEBOOK_NAME}.ipynb")
             if path.stat().st_size > NOTEBOOK_SIZE_BOUND}
    assert large == {}


def test_no_widget_state_is_written_into_an_autograded_notebook(graded):
    import nbformat

    with_widgets = [str(path) for _, course in courses(graded)
                    for path in (course.root / "autograded").rglob(f"{NOTEBOOK_NAME}.ipynb")
                    if "widgets" in nbformat.read(path, as_version=4).metadata]
    assert with_widgets == []


def test_each_working_folder_stays_within_its_quota(graded):
    over = {}
    for _, course in courses(graded):
        for folder in (course.root / "autograded").glob(f"*/{ASSIGNMENT}"):
            entries = [p for p in folder.rglob("*") if p.name != f"{NOTEBOOK_NAME}.ipynb"]
            size = sum(p.stat().st_size for p in entries if p.is_file())
            if size > LIMITS.workdir_size_limit or len(entries) > LIMITS.workdir_file_limit:
                over[str(folder)] = (size, len(entries))
    assert over == {}


def test_nothing_left_in_autograded_is_world_writable_set_id_or_irregular(graded):
    unsafe = [str(p) for _, course in courses(graded) for p in (course.root / "autograded").rglob("*")
              if p.is_symlink() or not (p.is_file() or p.is_dir())
              or p.lstat().st_mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH)]
    assert unsafe == []


@pytest.mark.parametrize("attack", [a for a in CORPUS if a.mentions("$marker")], ids=ids)
def test_no_attacker_process_outlives_grading(graded, attack):
    assert processes_named(process_marker(graded["run_token"], attack)) == []
