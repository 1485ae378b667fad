"""The four assignments as notebooks: structure, release invariants, and grading of the extremes."""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import nbformat
import numpy as np
import pytest
from nbgrader.api import Gradebook

from grader.checks import all_checks, get_check
from grader.grading.probe_cells import probe_names
from grader.release import release_differences
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT, THE_COURSE

# The student API of COURSE_SPEC.md, per assignment: every item is graded by exactly one test cell.
STUDENT_API = {
    "01_variance": {"coin_dot_products", "mean_and_variance", "expansion_counts", "dot_variance_theory",
                    "dot_variance_mc", "answer_std_ratio", "answer_var_component4", "answer_sigma_divide_dk"},
    "02_softmax": {"softmax", "entropy", "saturation_experiment", "score_gradient", "unit_variance_scale",
                   "answer_weights_unscaled", "answer_weights_scaled", "answer_worked_example", "answer_culprit"},
    "03_readout": {"exp_weights", "relative_weight", "normalize_rows", "softmax_readout", "retrieval_accuracy",
                   "retrieval_capacity",
                   "answer_ab_exp", "answer_ab_ratio", "answer_ab_weights", "answer_beta_equiv"},
    "04_attention": {"scaled_dot_product_attention", "causal_mask", "multi_head_attention",
                     "projected_score_variance", "answer_init_std"},
}
HEADING_POINTS = re.compile(r"^##\s+Part\b.*\((\d+(?:\.\d+)?)\s+points?\)", re.MULTILINE)


def source(assignment):
    return nbformat.read(REPO_ROOT / "source" / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)


def release(assignment):
    return nbformat.read(REPO_ROOT / "release" / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


def solution_cells(nb):
    return [c for c in nb.cells if nbgrader_meta(c).get("solution")]


def graded_test_cells(nb):
    return [c for c in nb.cells if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")]


assignments = pytest.mark.parametrize("assignment", list(ASSIGNMENTS))


@assignments
def test_source_notebook_has_no_outputs_or_execution_counts(assignment):
    stored = [c for c in source(assignment).cells if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert stored == []


@assignments
def test_every_student_api_item_has_one_solution_cell_named_after_it(assignment):
    names = [nbgrader_meta(c)["grade_id"] for c in solution_cells(source(assignment))]
    assert sorted(names) == sorted(STUDENT_API[assignment])


@assignments
def test_each_solution_cell_defines_the_name_of_its_grade_id(assignment):
    for cell in solution_cells(source(assignment)):
        tree = ast.parse(cell.source)
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        defined |= {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
                    if isinstance(t, ast.Name)}
        assert nbgrader_meta(cell)["grade_id"] in defined


@assignments
def test_every_test_cell_is_named_test_of_an_api_item_and_probes_it(assignment):
    for cell in graded_test_cells(source(assignment)):
        grade_id = nbgrader_meta(cell)["grade_id"]
        assert grade_id.startswith("test_") and grade_id[5:] in STUDENT_API[assignment]
        assert probe_names(cell.source) == [grade_id[5:]]
        assert "### BEGIN HIDDEN TESTS" in cell.source


@assignments
def test_grade_ids_are_unique(assignment):
    ids = [nbgrader_meta(c)["grade_id"] for c in source(assignment).cells if "grade_id" in nbgrader_meta(c)]
    assert len(ids) == len(set(ids))


@assignments
def test_each_test_cell_opens_with_a_one_line_docstring(assignment):
    for cell in graded_test_cells(source(assignment)):
        first = cell.source.lstrip().splitlines()[0]
        assert first.startswith('"""') and first.endswith('"""') and len(first) > 6


@assignments
def test_points_under_each_part_heading_add_up_to_the_heading(assignment):
    stated, counted = None, {}
    for cell in source(assignment).cells:
        match = HEADING_POINTS.search(cell.source) if cell.cell_type == "markdown" else None
        if match:
            stated = cell.source.splitlines()[0]
            counted[stated] = [float(match.group(1)), 0.0]
        elif nbgrader_meta(cell).get("grade"):
            assert stated is not None, "a graded cell comes before the first part heading"
            counted[stated][1] += float(nbgrader_meta(cell)["points"])
    assert counted, "no '## Part N — ... (K points)' headings"
    for heading, (claimed, total) in counted.items():
        assert claimed == total, heading


@assignments
def test_every_probed_name_has_a_hidden_check(assignment):
    for name in STUDENT_API[assignment]:
        assert get_check(name).name == name


def test_no_check_exists_outside_the_student_api():
    assert set(all_checks()) == set().union(*STUDENT_API.values())


@assignments
def test_release_contains_no_model_answer_hidden_test_or_reference_import(assignment):
    text = json.dumps([c.source for c in release(assignment).cells])
    for forbidden in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "probe(", "grader.probe"):
        assert forbidden not in text
    assert not re.search(r"(from|import)\s+solutions\b", text)


@assignments
def test_release_reveals_no_expected_value_of_a_quiz_answer(assignment):
    text = json.dumps([c.source for c in release(assignment).cells])
    for name in STUDENT_API[assignment]:
        check = get_check(name)
        if check.kind != "value" or isinstance(check.expected_value(), str):
            continue
        for value in np.atleast_1d(np.asarray(check.expected_value(), dtype=float)):
            if value != round(value):  # integers such as 8 or 1024 appear in any text
                assert f"{value:.4g}" not in text.replace("\\u2248", ""), f"{name} = {value:.4g} is in the release"


def test_release_folder_holds_only_notebooks():
    others = [p for p in (REPO_ROOT / "release").rglob("*") if p.is_file() and p.suffix != ".ipynb"
              and p.name != ".gitkeep"]
    assert others == []


@assignments
def test_committed_release_equals_a_fresh_generation(assignment, course):
    assert release_differences(course, assignment, THE_COURSE) == []


@pytest.mark.slow
@assignments
def test_model_answer_gets_full_marks_and_blank_release_gets_zero_under_plain_nbgrader(assignment, course):
    name = ASSIGNMENTS[assignment]
    for student, notebook in (("model", course.source_notebook(assignment)),
                              ("blank", course.release_notebook(assignment))):
        target = course.submitted_notebook(student, assignment)
        target.parent.mkdir(parents=True)
        target.write_bytes(notebook.read_bytes())
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", assignment, "--create", "--force"],
                         cwd=course.root, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    with Gradebook(course.db_url) as gb:
        model = gb.find_submission_notebook(name, assignment, "model")
        blank = gb.find_submission_notebook(name, assignment, "blank")
        assert model.score == model.max_score > 0, [(g.name, g.score) for g in model.grades]
        assert blank.score == 0, [(g.name, g.score) for g in blank.grades]


@pytest.mark.slow
@assignments
def test_untouched_release_runs_and_its_visible_tests_fail_cleanly(assignment, tmp_path):
    from nbclient import NotebookClient

    notebook = release(assignment)
    NotebookClient(notebook, timeout=60, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell in graded_test_cells(notebook):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert [e.ename for e in errors] in (["NotImplementedError"], ["AssertionError"]), \
            (nbgrader_meta(cell)["grade_id"], [(e.ename, e.evalue) for e in errors])
