"""The adversarial corpus (``grader_tests/attacks/``), graded end to end by plain ``nbgrader autograde``.

Every attacker shares one wrong ``softmax`` (the identity) and otherwise hands in the model answer;
a baseline student hands in the same without the attack. However it attacks, an attacker scores
no more than the baseline, cell by cell (and exactly what the verdict logic says where that is
deterministic), learns nothing it must not see, and changes nobody else's score. Correct
submissions, including one whose softmax makes numpy warn, keep full marks.
"""
from __future__ import annotations

import fcntl
import json
import shutil
from pathlib import Path

import pytest
from attack_harness import (
    ASSIGNMENT,
    CANARY_MODE,
    CANARY_TEXT,
    LEAK_MARKER,
    PROCESSES,
    GradedCorpus,
    canary_path,
    grade_corpus,
    gradebook_definitions,
    irregular_entries,
    load_attacks,
    max_scores,
    plan_batches,
    process_marker,
    processes_named,
    scores,
    tree_digest,
)

from grader.course import Course
from grader.grading.ungradable_record import ungradable_reason
from grader.sandbox.limits import SandboxLimits
from grader.scheduling.pool import grade_class

pytestmark = pytest.mark.slow

LOOP_TIMEOUT = 10  # seconds per cell in the batch of infinite loops, fork and memory bombs
RUN_DEADLINE = 900  # seconds for one nbgrader run before the test gives up on it

CORPUS = load_attacks()
BATCHES = plan_batches(CORPUS)
ATTACKS = [a for a in CORPUS if not a.correct]
CORRECT = [a for a in CORPUS if a.correct]
DETERMINISTIC = [a for a in ATTACKS if a.deterministic]
FOLLOWED_BY_HONEST = [a for a in CORPUS if a.batch == PROCESSES]
LEAKING = [a for a in ATTACKS if a.mentions(LEAK_MARKER)]
NEAR_A_CANARY = [a for a in ATTACKS if a.mentions("$canary")]
NAMING_PROCESSES = [a for a in ATTACKS if a.mentions("$marker")]


def ids(attack):
    return attack.name


@pytest.fixture(scope="module")
def graded(tmp_path_factory, worker_id) -> GradedCorpus:
    """The corpus, graded once per pytest run; under pytest-xdist the workers share it."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    summary = shared / "attack-corpus.json"
    with open(shared / "attack-corpus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not summary.exists():
            folder = shared / "attack-corpus"
            shutil.rmtree(folder, ignore_errors=True)  # a run that broke off half-way
            folder.mkdir()
            summary.write_text(json.dumps(grade_corpus(folder, CORPUS, LOOP_TIMEOUT, RUN_DEADLINE)),
                               encoding="utf-8")
    return GradedCorpus(json.loads(summary.read_text(encoding="utf-8")), CORPUS)


def total(cell_scores: dict) -> float:
    return sum(score or 0.0 for score in cell_scores.values())


# ---- the attackers ------------------------------------------------------------------------------

@pytest.mark.parametrize("attack", ATTACKS, ids=ids)
def test_attacker_scores_no_more_than_the_same_wrong_answer(graded, attack):
    got, baseline = graded.scores(attack), graded.baseline(attack)
    assert total(got) <= total(baseline)
    assert {cell: score for cell, score in got.items() if (score or 0.0) > (baseline[cell] or 0.0)} == {}


@pytest.mark.parametrize("attack", DETERMINISTIC, ids=ids)
def test_attacker_scores_exactly_what_the_verdicts_say(graded, attack):
    baseline = graded.baseline(attack)
    if attack.expect == "baseline":
        expected = {cell: 0.0 if cell in attack.sabotaged else score for cell, score in baseline.items()}
    elif attack.expect == "zero":
        expected = dict.fromkeys(baseline, 0.0)
    else:  # "ungraded": nbgrader could not grade the notebook, so it recorded no score
        expected = dict.fromkeys(baseline, None)
    assert graded.scores(attack) == expected


@pytest.mark.parametrize("attack", LEAKING, ids=ids)
def test_attacker_sees_nothing_it_must_not(graded, attack):
    leaks = [line for line in graded.outputs(attack).splitlines() if LEAK_MARKER in line]
    assert leaks == []


@pytest.mark.parametrize("attack", NEAR_A_CANARY, ids=ids)
def test_attacker_touches_no_file_outside_the_course(graded, attack):
    canary = canary_path(graded.folder, attack)
    assert (canary.read_text(encoding="utf-8"), oct(canary.stat().st_mode & 0o777)) == (CANARY_TEXT, oct(CANARY_MODE))


@pytest.mark.parametrize("attack", NAMING_PROCESSES, ids=ids)
def test_no_process_of_the_attacker_outlives_grading(graded, attack):
    assert processes_named(process_marker(graded.run_token, attack)) == []


@pytest.mark.parametrize("attack", FOLLOWED_BY_HONEST, ids=ids)
def test_students_graded_after_an_attack_keep_their_marks(graded, attack):
    batch = graded.batch_of[attack.name]
    follower = batch.followers(attack)[0]
    assert scores(batch.course, follower) == max_scores(batch.course)


# ---- correct submissions ---------------------------------------------------------------------

@pytest.mark.parametrize("attack", CORRECT, ids=ids)
def test_correct_submission_gets_full_marks(graded, attack):
    assert graded.scores(attack) == graded.full_marks(attack)


@pytest.mark.parametrize("batch_name", sorted(BATCHES))
def test_honest_student_graded_last_in_a_batch_gets_full_marks(graded, batch_name):
    batch = next(b for b in graded.batches if b.name == batch_name)
    assert scores(batch.course, batch.roster[-1][0]) == max_scores(batch.course)


# ---- the grader and the machine ----------------------------------------------------------------

def test_no_attack_changes_the_assignment_in_the_gradebook(graded):
    after = {b.name: gradebook_definitions(b.course) for b in graded.batches}
    assert after == graded.definitions_before


def test_no_attack_changes_the_source_folder(graded):
    after = {b.name: tree_digest(b.course.root / "source") for b in graded.batches}
    assert after == graded.digests_before


def test_graded_folders_hold_only_regular_files_and_folders(graded):
    irregular = {f"{batch.name}/{path}" for batch in graded.batches
                 for path in irregular_entries(batch.course.root / "autograded")}
    assert irregular == set()


def test_files_written_while_grading_stay_under_the_file_size_limit(graded):
    limit = SandboxLimits().file_size_limit
    too_large = {f"{batch.name}/{path.relative_to(batch.course.root)}": path.stat().st_size
                 for batch in graded.batches for path in (batch.course.root / "autograded").rglob("*")
                 if path.is_file() and not path.is_symlink() and path.suffix != ".ipynb"
                 and path.stat().st_size > limit}
    assert too_large == {}


def test_no_attacker_reaches_a_server_on_the_grading_machine(graded):
    assert graded.server_hits == 0


def test_one_submission_never_stops_nbgrader_from_grading_the_others(graded):
    not_graded = [f"{batch.name}/{student}" for batch in graded.batches for student, attack in batch.roster
                  if attack.expect != "ungraded" and None in scores(batch.course, student).values()]
    assert not_graded == []


# ---- an unreadable submission in the parallel pipeline ----------------------------------------------

def test_grade_class_records_invalid_json_as_ungradable_with_its_reason(graded, tmp_path):
    attack = next(a for a in CORPUS if a.name == "invalid_json")
    batch = graded.batch_of[attack.name]
    course = Course(Path(shutil.copytree(batch.course.root, tmp_path / "course")))  # the others read the original
    student = batch.student(attack)
    [outcome] = grade_class(course, ASSIGNMENT, students=[student], workers=1)
    assert (outcome.graded, "not a readable notebook" in (outcome.reason or "")) == (False, True)
    assert "not a readable notebook" in ungradable_reason(course, ASSIGNMENT, student)
