"""What a real grading writes matches the declared formats: one model answer of 01_variance graded by
``grade_one`` (real nbgrader, a real sandboxed kernel), every document checked on the way recorded."""
from __future__ import annotations

import copy
import shutil

import nbformat
import pytest

from grader import formats
from grader.course import Course
from grader.demo.corpus import Submission, build_notebook
from grader.grading import run_record
from grader.grading.grade_one import grade_one
from grader.grading.probe_cells import METADATA_KEY, probe_names

pytestmark = pytest.mark.slow
ASSIGNMENT = "01_variance"
STUDENT = "model_answer"


@pytest.fixture(scope="module")
def graded(released_course_template, tmp_path_factory):
    """(the course, the outcome, [(format, document, FormatError or None)] of every check made while grading)."""
    course = Course(tmp_path_factory.mktemp("formats") / "course")
    shutil.copytree(released_course_template.root, course.root)
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    submission = Submission(ASSIGNMENT, STUDENT, base="model", kind="model", summary="the model answer")
    path = course.submitted_notebook(STUDENT, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(build_notebook(submission, release, source), path)

    checked = []
    original = formats.check

    def recording(name, document):
        try:
            original(name, document)
        except formats.FormatError as error:
            checked.append((name, copy.deepcopy(document), error))
            raise
        checked.append((name, copy.deepcopy(document), None))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formats, "check", recording)
        outcome = grade_one(str(course.root), ASSIGNMENT, STUDENT)
    return course, outcome, checked


def of_format(checked, name):
    return [(document, error) for format_name, document, error in checked if format_name == name]


def test_the_model_answer_is_graded(graded):
    _, outcome, _ = graded
    assert outcome.graded, outcome.reason


def test_every_kernel_report_of_the_model_answer_matches_its_format(graded):
    course, _, checked = graded
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    probes = sum(len(probe_names(cell.source)) for cell in source.cells if cell.cell_type == "code")
    reports = of_format(checked, formats.KERNEL_REPORT)
    assert len(reports) >= probes > 0
    assert [error for _, error in reports if error is not None] == []
    assert {"results", "value"} <= {key for report, _ in reports for key in report}  # functions and answers


def test_every_verdict_record_written_matches_its_format(graded):
    course, _, _ = graded
    notebook = nbformat.read(course.root / "autograded" / STUDENT / ASSIGNMENT / "variance.ipynb", as_version=4)
    records = [output["metadata"][METADATA_KEY] for cell in notebook.cells for output in cell.get("outputs", [])
               if METADATA_KEY in output.get("metadata", {})]
    assert records
    for record in records:
        formats.check(formats.VERDICT_RECORD, record)
    assert all(record["fraction"] == 1.0 for record in records)


def test_the_run_record_written_matches_its_format(graded):
    course, _, checked = graded
    written = of_format(checked, formats.RUN_RECORD)
    assert len(written) == 1 and written[0][1] is None
    assert run_record.read_record(course, ASSIGNMENT, STUDENT) == written[0][0]


def test_the_launcher_spec_written_and_the_launcher_report_read_match_their_formats(graded):
    _, _, checked = graded
    for name in (formats.LAUNCHER_SPEC, formats.LAUNCHER_REPORT):
        documents = of_format(checked, name)
        assert documents and [error for _, error in documents if error is not None] == []
    assert all(report["status"] == "ready" for report, _ in of_format(checked, formats.LAUNCHER_REPORT))
