"""The corpus and its expected table agree with each other, with the notebooks and with the issue's list."""
from __future__ import annotations

from collections import Counter

import nbformat
import pytest
from corpus_expected import EVERY_OTHER_CELL, FULL_POINTS, UNGRADABLE, expected_outcome, load_expected

from grader.checks import get_check
from grader.checks.api import STAGES
from grader.demo.corpus import build_notebook, load_corpus
from grader.demo.simulated_class import COPIED, ROSTER, simulated_class
from grader.notebook_cells import checks_of_test_cells, points_of_test_cells
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT

# What the corpus must show, as (check, misconception named in the feedback).
REQUIRED_MISCONCEPTIONS = {
    ("unit_variance_scale", "divide by d_k"),
    ("answer_weights_scaled", "divided by d_k"),
    ("answer_weights_scaled", "unscaled weights"),
    ("softmax", "no max subtraction"),
    ("softmax", "wrong axis"),
    ("entropy", "entropy in bits"),
    ("entropy", "0·log 0 not handled"),
    ("answer_var_component4", "variance 4 counted once"),
    ("answer_ab_ratio", "ratio before exponentiating"),
    ("relative_weight", "ratio before exponentiating"),
    ("mean_and_variance", "sample variance (ddof=1)"),
    ("causal_mask", "off by one"),
    ("multi_head_attention", "heads scaled by sqrt(d_model)"),
}
# The faults, by submission name: each must end with a score or an explicit ungradable reason.
REQUIRED_FAULTS = {"exception_in_cell", "undefined_name", "printed_warning", "nan_output",
                   "infinite_loop", "long_output", "kills_kernel"}


def source(assignment):
    return nbformat.read(REPO_ROOT / "source" / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)


@pytest.fixture(scope="module")
def rows():
    return load_expected()


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def test_every_assignment_has_submissions(corpus):
    assert {s.assignment for s in corpus} == set(ASSIGNMENTS)


def test_each_assignment_has_a_model_answer_an_independent_correct_one_a_blank_and_a_partial_one(corpus):
    for assignment in ASSIGNMENTS:
        kinds = Counter(s.kind for s in corpus if s.assignment == assignment)
        names = {s.name for s in corpus if s.assignment == assignment}
        assert "model_answer" in names and kinds["correct"] >= 2, assignment
        assert kinds["blank"] >= 1 and kinds["partial"] >= 1, assignment


def test_an_independent_correct_submission_fills_every_solution_cell_itself(corpus):
    for assignment in ASSIGNMENTS:
        solutions = {c.metadata["nbgrader"]["grade_id"] for c in source(assignment).cells
                     if c.metadata.get("nbgrader", {}).get("solution")}
        independent = [s for s in corpus if s.assignment == assignment and s.kind == "correct" and s.base == "blank"]
        assert independent, assignment
        for submission in independent:
            assert set(submission.cells) == solutions, submission.name


def test_every_submission_has_exactly_one_row_for_its_other_cells(corpus, rows):
    stars = Counter((r.assignment, r.submission) for r in rows if r.grade_id == EVERY_OTHER_CELL)
    assert stars == Counter({(s.assignment, s.name): 1 for s in corpus})


def test_every_row_names_a_submission_of_the_corpus(corpus, rows):
    known = {(s.assignment, s.name) for s in corpus}
    assert [r for r in rows if (r.assignment, r.submission) not in known] == []


def test_every_row_names_a_test_cell_of_its_notebook_and_a_score_within_its_points(corpus, rows):
    for assignment in ASSIGNMENTS:
        points = points_of_test_cells(source(assignment))
        for submission in (s for s in corpus if s.assignment == assignment):
            for grade_id, expected in expected_outcome(rows, assignment, submission.name, points).items():
                assert 0 <= expected.score <= points[grade_id], (submission.name, grade_id)


def test_a_cell_has_a_diagnosis_exactly_when_it_loses_points(corpus, rows):
    for assignment in ASSIGNMENTS:
        points = points_of_test_cells(source(assignment))
        for submission in (s for s in corpus if s.assignment == assignment):
            for grade_id, expected in expected_outcome(rows, assignment, submission.name, points).items():
                assert bool(expected.diagnosis) == (expected.score < points[grade_id]), (submission.name, grade_id)


def test_every_diagnosis_is_a_misconception_of_its_check_a_stage_or_an_ungradable_reason(rows):
    checks = {a: checks_of_test_cells(source(a)) for a in ASSIGNMENTS}
    for row in rows:
        if not row.diagnosis or row.diagnosis.startswith(f"{UNGRADABLE}: "):
            continue
        names = checks[row.assignment].values() if row.grade_id == EVERY_OTHER_CELL \
            else [checks[row.assignment][row.grade_id]]
        for name in names:
            known = {m.name for m in get_check(name).misconceptions} | set(STAGES)
            assert row.diagnosis in known, (row.submission, row.grade_id, row.diagnosis)


def test_only_unreadable_files_are_expected_to_be_ungradable(corpus, rows):
    ungradable = {(r.assignment, r.submission) for r in rows if r.diagnosis.startswith(UNGRADABLE)}
    assert ungradable == {(s.assignment, s.name) for s in corpus if s.unreadable}


def test_the_corpus_shows_every_required_misconception(rows):
    checks = {a: checks_of_test_cells(source(a)) for a in ASSIGNMENTS}
    shown = {(checks[r.assignment][r.grade_id], r.diagnosis) for r in rows if r.grade_id != EVERY_OTHER_CELL}
    assert REQUIRED_MISCONCEPTIONS - shown == set()


def test_the_corpus_has_every_kind_of_fault_and_an_unreadable_file(corpus):
    faults = {s.name for s in corpus if s.kind == "fault"}
    assert REQUIRED_FAULTS - faults == set()
    assert any(s.unreadable for s in corpus)


def test_full_points_are_written_as_max(rows):
    # A number equal to the cell's points would silently break when the notebook's points change.
    for assignment in ASSIGNMENTS:
        points = points_of_test_cells(source(assignment))
        for row in rows:
            if row.assignment == assignment and row.grade_id in points and row.score != FULL_POINTS:
                assert float(row.score) < points[row.grade_id], (row.submission, row.grade_id)


def test_every_submission_builds_from_the_release(corpus, released_course_template):
    course = released_course_template
    for submission in (s for s in corpus if not s.unreadable):
        release = nbformat.read(course.release_notebook(submission.assignment), as_version=4)
        built = build_notebook(submission, release, source(submission.assignment))
        nbformat.validate(built)


def test_the_simulated_class_hands_in_four_to_six_different_corpus_submissions_per_assignment(corpus):
    by_name = {(s.assignment, s.name): s for s in corpus}
    for assignment in ASSIGNMENTS:
        handed_in = [by_name[(assignment, names[assignment])] for names in ROSTER.values() if assignment in names]
        readable = [s for s in handed_in if not s.unreadable]
        assert 4 <= len(readable) <= 6 and len({s.name for s in readable}) == len(readable), assignment
        assert {"correct", "misconception", "partial", "blank"} <= {s.kind for s in readable}, assignment


def test_the_simulated_class_includes_one_unreadable_file_and_nothing_that_only_costs_time(corpus):
    by_name = {(s.assignment, s.name): s for s in corpus}
    handed_in = [by_name[(a, name)] for names in ROSTER.values() for a, name in names.items()]
    assert sum(s.unreadable for s in handed_in) == 1
    assert [s.name for s in handed_in if s.sandbox_only] == []


def test_the_simulated_class_builds_valid_notebooks_from_the_release(released_course_template):
    handed_in = simulated_class(released_course_template)
    assert len(handed_in) == sum(len(names) for names in (*ROSTER.values(), *COPIED.values()))
    for student, assignment, notebook in handed_in:
        if isinstance(notebook, str):
            with pytest.raises(nbformat.reader.NotJSONError):
                nbformat.reads(notebook, as_version=4)
        else:
            nbformat.validate(notebook)
