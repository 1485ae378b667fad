"""``grader autograde`` and ``grader watch`` refuse the same hand-ins with the same codes.

The same bad hand-ins (a truncated notebook, one over the notebook size limit, one with too many
cells, another assignment's notebook, a folder without the notebook) reach the service through
nbgrader's exchange, as real students' hand-ins, and ``grader autograde`` (the real command) as
folders of ``submitted/`` in a copy of the course; each ends with the same refusal code in the
service's journal and in the ungradable record.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from grader.course import Course
from grader.grading.ungradable_record import ungradable_code
from grader.service.journal import Journal
from grader.service.watch import GradingLoop
from grader_tests.service_setup import ServiceCourse, accounts_skip_reason

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(accounts_skip_reason() is not None, reason=str(accounts_skip_reason()))]

ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
EXPECTED = {"truncated": "notebook-unreadable", "large": "notebook-too-large", "many_cells": "too-many-cells",
            "wrong_assignment": "another-assignment", "missing": "notebook-missing"}


def _hand_ins(setup: ServiceCourse) -> dict[str, dict[str, str]]:
    model = setup.notebook_text(ASSIGNMENT, "model_answer")
    large = nbformat.reads(model, as_version=4)
    large.cells.append(nbformat.v4.new_markdown_cell("x" * 6_000_000))
    many = nbformat.reads(model, as_version=4)
    many.cells.extend(nbformat.v4.new_code_cell("") for _ in range(2_100))
    return {"truncated": {NOTEBOOK: model[: len(model) // 2]},
            "large": {NOTEBOOK: nbformat.writes(large)},
            "many_cells": {NOTEBOOK: nbformat.writes(many)},
            "wrong_assignment": {NOTEBOOK: setup.course.release_notebook("01_variance").read_text()},
            "missing": {"my_softmax_copy.ipynb": model}}


@pytest.fixture(scope="module")
def both(released_course_template):
    top = Path(tempfile.mkdtemp(prefix="sal-codes-agree-"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
        setup = ServiceCourse(released_course_template, top, (ASSIGNMENT,))
        batch = Course(top / "batch")
        shutil.copytree(released_course_template.root, batch.root)
        try:
            for name, files in _hand_ins(setup).items():
                setup.hand_in(name, ASSIGNMENT, files)
                folder = batch.root / "submitted" / setup.student_id(name) / ASSIGNMENT
                folder.mkdir(parents=True)
                for file, text in files.items():
                    (folder / file).write_text(text, encoding="utf-8")
            service = GradingLoop(setup.course, workers=2)
            service.run(once=True)
            service.journal.close()
            run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "grader"), "autograde", ASSIGNMENT,
                                  "--course", str(batch.root), "--workers", "2"],
                                 capture_output=True, text=True, timeout=900)
            yield setup, batch, run
        finally:
            setup.remove_accounts()
    shutil.rmtree(top, ignore_errors=True)


def test_the_service_records_each_bad_hand_in_with_its_code(both):
    setup, _, _ = both
    journal = Journal(setup.course.state_dir / "service.sqlite")
    codes = {name: [row.code for row in journal.of(setup.student_id(name), ASSIGNMENT)] for name in EXPECTED}
    assert codes == {name: [code] for name, code in EXPECTED.items()}


def test_grader_autograde_records_the_same_codes_as_the_service(both):
    setup, batch, run = both
    assert run.returncode == 0, run.stderr[-2000:]
    journal = Journal(setup.course.state_dir / "service.sqlite")
    for name in EXPECTED:
        student = setup.student_id(name)
        (row,) = journal.of(student, ASSIGNMENT)
        assert ungradable_code(batch, ASSIGNMENT, student) == row.code == EXPECTED[name], name


def test_grader_autograde_prints_each_refusal_code(both):
    setup, _, run = both
    for name, code in EXPECTED.items():
        assert f"{setup.student_id(name)}: ungradable [{code}]" in run.stdout, run.stdout[-3000:]
