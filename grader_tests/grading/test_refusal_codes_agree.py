"""``grader autograde`` and ``grader watch`` refuse the same hand-ins with the same codes.

The same bad hand-ins (a truncated notebook, one over the notebook size limit, one with too many
cells, another assignment's notebook, a folder without the notebook, a file whose name is not
UTF-8, a hand-in whose student is not a student id) reach the service through nbgrader's exchange,
as real students' hand-ins, and ``grader autograde`` (the real command) as folders of
``submitted/`` in a copy of the course; each ends with the same refusal code in the service's
journal and in the ungradable record (``grader autograde`` prints the code of a folder whose name
is not a student id, since it records nothing under such a name).
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
            "wrong_assignment": "another-assignment", "missing": "notebook-missing",
            "not_utf8": "file-name-not-utf8", "not_an_id": "not-a-student-id"}
#: A file name that is not UTF-8 (the byte 0xff), as Python's file functions write it from a str (not a
#: notebook: nbgrader submit would log its name, which a test report cannot carry).
NOT_UTF8_NAME = "notes\udcff.txt"
#: The hand-in whose folder names, instead of its student's id, that id with a character no id has.
NOT_AN_ID = "not_an_id"


def _named(setup: ServiceCourse, name: str) -> str:
    """The student the hand-in ``name`` names (its folder's name in ``submitted/``)."""
    return setup.student_id(name) + ("!" if name == NOT_AN_ID else "")


def _rename_to_a_non_id(setup: ServiceCourse) -> None:
    """Rename the hand-in of NOT_AN_ID in the exchange's inbound/ so that its student part is not an id."""
    student = setup.student_id(NOT_AN_ID)
    inbound = setup.exchange.inbound_dir
    (folder,) = [p for p in inbound.iterdir() if p.name.startswith(f"{student}+")]
    folder.rename(inbound / folder.name.replace(f"{student}+", f"{_named(setup, NOT_AN_ID)}+", 1))


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
            "missing": {"my_softmax_copy.ipynb": model},
            "not_utf8": {NOTEBOOK: model, NOT_UTF8_NAME: model},
            "not_an_id": {NOTEBOOK: model}}


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
                folder = batch.root / "submitted" / _named(setup, name) / ASSIGNMENT
                folder.mkdir(parents=True)
                for file, text in files.items():
                    (folder / file).write_text(text, encoding="utf-8")
            _rename_to_a_non_id(setup)
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
    # a folder named after no student is nobody's hand-in: kept among the refused inbound entries
    codes[NOT_AN_ID] = [entry.code for entry in journal.refused_folders()
                        if entry.owner == setup.student_id(NOT_AN_ID)]
    assert codes == {name: [code] for name, code in EXPECTED.items()}


def test_grader_autograde_records_the_same_codes_as_the_service(both):
    setup, batch, run = both
    assert run.returncode == 0, run.stderr[-2000:]
    journal = Journal(setup.course.state_dir / "service.sqlite")
    for name in EXPECTED.keys() - {NOT_AN_ID}:
        student = setup.student_id(name)
        (row,) = journal.of(student, ASSIGNMENT)
        assert ungradable_code(batch, ASSIGNMENT, student) == row.code == EXPECTED[name], name


def test_grader_autograde_prints_each_refusal_code(both):
    setup, _, run = both
    for name, code in EXPECTED.items():
        assert f"{_named(setup, name)}: ungradable [{code}]" in run.stdout, run.stdout[-3000:]
