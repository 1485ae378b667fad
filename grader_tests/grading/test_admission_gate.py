"""The admission gate: one package decides every refusal, each with a code from one table, the
same in every scheduler; the docs table lists exactly those codes and the function deciding each."""
from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

from grader.grading.admission import CODES, SERVICE, Limits, Refusal, admit, limits_of
from grader.grading.grade_one import grade_one
from grader.grading.ungradable_record import ungradable_code

REFUSALS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "instructor" / "refusals.md"
ASSIGNMENT = "02_softmax"
NOTEBOOK = "softmax.ipynb"
GENEROUS = Limits(max_bytes=10_000_000, max_cells=5_000)


def _docs_rows() -> dict[str, tuple[str, ...]]:
    """code -> (decided in, meaning, what its author reads) as the docs table says them."""
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| ([a-z ]+) \| (.+?) \| (.+?) \|$",
                      REFUSALS_PAGE.read_text(encoding="utf-8"), re.M)
    return {code: rest for code, *rest in map(tuple, rows)}


def test_the_docs_table_lists_every_refusal_code_with_where_it_is_decided():
    assert {code: row[0] for code, row in _docs_rows().items()} == \
        {code.code: code.applies_in for code in CODES.values()}


def test_the_docs_table_says_what_the_author_of_each_refused_hand_in_reads():
    assert {code: tuple(row[1:]) for code, row in _docs_rows().items()} == \
        {code.code: (code.meaning, code.student_summary) for code in CODES.values()}


def _decided_by() -> dict[str, str]:
    """code -> the "decided by" cell of the docs' table of where each code is decided."""
    text = REFUSALS_PAGE.read_text(encoding="utf-8").split("## Where each code is decided", 1)[1]
    return dict(re.findall(r"^\| `([a-z0-9-]+)` \| (.+?) \| .+? \|$", text, re.M))


def _functions_named(cell: str) -> list[str]:
    return re.findall(r"`(\w+)\(\)`", cell)


def test_the_docs_say_where_each_refusal_code_is_decided():
    assert sorted(_decided_by()) == sorted(CODES)


def test_every_function_the_docs_name_as_deciding_a_code_is_one_of_the_admission_package():
    from grader.grading import admission

    named = {name for cell in _decided_by().values() for name in _functions_named(cell)}
    assert named and sorted(name for name in named if not callable(getattr(admission, name, None))) == []


def test_the_docs_name_an_admission_function_for_every_code_of_the_service_path():
    decided_by = _decided_by()
    assert [c.code for c in CODES.values()
            if c.applies_in == SERVICE and not _functions_named(decided_by[c.code])] == []


def test_a_refusal_with_a_code_not_in_the_table_cannot_be_made():
    with pytest.raises(ValueError, match="unknown refusal code 'made-up'"):
        Refusal("made-up", "nope")


def test_a_refusal_record_keeps_its_code_and_its_words():
    from grader.grading.admission import read_record

    refusal = Refusal("too-many-cells", "softmax.ipynb has 9 cells, more than the 2")
    assert read_record(refusal.as_record()) == ("too-many-cells", "softmax.ipynb has 9 cells, more than the 2")


def _submission(course, student: str, notebook_text: str | bytes | None, name: str = NOTEBOOK) -> Path:
    folder = course.root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    if notebook_text is not None:
        data = notebook_text if isinstance(notebook_text, bytes) else notebook_text.encode("utf-8")
        (folder / name).write_bytes(data)
    return folder


def _released(course, assignment: str = ASSIGNMENT) -> str:
    return course.release_notebook(assignment).read_text(encoding="utf-8")


def _with_cells(text: str, extra: int) -> str:
    notebook = nbformat.reads(text, as_version=4)
    notebook.cells.extend(nbformat.v4.new_code_cell("") for _ in range(extra))
    return nbformat.writes(notebook)


@pytest.mark.slow
def test_a_released_notebook_is_admitted(course):
    assert admit(course, ASSIGNMENT, "ada", _submission(course, "ada", _released(course)), GENEROUS) is None


@pytest.mark.slow
@pytest.mark.parametrize("case, code", [
    ("missing", "notebook-missing"),
    ("truncated", "notebook-unreadable"),
    ("not a notebook", "notebook-unreadable"),
    ("too large", "notebook-too-large"),
    ("too many cells", "too-many-cells"),
    ("another assignment", "another-assignment"),
    ("name not utf-8", "file-name-not-utf8"),
])
def test_each_bad_submission_is_refused_with_its_code(course, case, code):
    released = _released(course)
    text = {"missing": None, "truncated": released[: len(released) // 2], "not a notebook": "[1, 2]",
            "too large": released + " " * 200_000, "too many cells": _with_cells(released, 60),
            "another assignment": _released(course, "01_variance"), "name not utf-8": released}[case]
    folder = _submission(course, "bo", text)
    if case == "missing":
        (folder / "my_copy.ipynb").write_text(released, encoding="utf-8")
    if case == "name not utf-8":
        with open(os.path.join(os.fsencode(folder), b"notes\xff.txt"), "wb") as handle:
            handle.write(b"x")
    limits = Limits(max_bytes=len(released.encode()) + 50_000, max_cells=len(nbformat.reads(released, 4).cells) + 10)
    refusal = admit(course, ASSIGNMENT, "bo", folder, limits)
    assert refusal is not None and refusal.code == code, refusal


@pytest.mark.slow
def test_a_folder_name_that_is_no_student_id_is_refused_before_anything_is_recorded(course):
    outcome = grade_one(str(course.root), ASSIGNMENT, "<b>x</b>")
    assert (outcome.graded, outcome.code) == (False, "not-a-student-id")
    assert not (course.state_dir / "ungradable" / ASSIGNMENT).exists()


@pytest.mark.slow
def test_grade_one_applies_the_course_limits_and_records_the_code(course):
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.GradingService.max_cells = 5\n")
    assert limits_of(course).max_cells == 5
    _submission(course, "cy", _released(course))
    outcome = grade_one(str(course.root), ASSIGNMENT, "cy")
    assert (outcome.graded, outcome.code) == (False, "too-many-cells")
    assert ungradable_code(course, ASSIGNMENT, "cy") == "too-many-cells"


@pytest.mark.slow
def test_a_refused_submission_gets_its_page_from_grade_one_unless_the_caller_writes_it(course):
    _submission(course, "di", "[1, 2]")
    _submission(course, "ed", "[1, 2]")
    grade_one(str(course.root), ASSIGNMENT, "di")
    grade_one(str(course.root), ASSIGNMENT, "ed", writes_refusal_page=False)
    assert all(page.is_file() for page in course.feedback_pages("di", ASSIGNMENT))
    assert not any(page.exists() for page in course.feedback_pages("ed", ASSIGNMENT))
    assert ungradable_code(course, ASSIGNMENT, "ed") == "notebook-unreadable"
