"""Building submission notebooks from a release notebook and reading the corpus (grader.demo.corpus)."""
from __future__ import annotations

import nbformat
import pytest
from corpus_expected import ExpectedRow, expected_outcome, load_expected
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.demo.corpus import CorpusError, Submission, build_notebook, hand_in, parse_submission
from grader.notebook_cells import model_answer


def _cell(source: str, grade_id: str, *, solution: bool = False, points: float | None = None):
    meta = {"grade_id": grade_id, "solution": solution, "grade": points is not None, "locked": not solution}
    if points is not None:
        meta["points"] = points
    return new_code_cell(source, metadata={"nbgrader": meta})


def _notebooks():
    """A two-part source notebook and the release nbgrader would make of it."""
    source = new_notebook(cells=[
        new_markdown_cell("# Toy"),
        _cell("import numpy as np", "setup"),
        _cell('def double(x):\n    """Twice x."""\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION',
              "double", solution=True),
        _cell('assert double(1) == 2\n### BEGIN HIDDEN TESTS\nprobe("double")\n### END HIDDEN TESTS',
              "test_double", points=2),
        _cell("### BEGIN SOLUTION\nanswer_half = 0.5\n### END SOLUTION", "answer_half", solution=True),
        _cell('### BEGIN HIDDEN TESTS\nprobe("answer_half")\n### END HIDDEN TESTS', "test_answer_half", points=1),
    ])
    release = new_notebook(cells=[
        new_markdown_cell("# Toy"),
        _cell("import numpy as np", "setup"),
        _cell('def double(x):\n    """Twice x."""\n    # YOUR CODE HERE\n    raise NotImplementedError()',
              "double", solution=True),
        _cell("assert double(1) == 2", "test_double", points=2),
        _cell("# YOUR CODE HERE\nraise NotImplementedError()", "answer_half", solution=True),
        _cell("", "test_answer_half", points=1),
    ])
    return source, release


def _sources_by_id(notebook) -> dict[str, str]:
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in notebook.cells if "nbgrader" in c.metadata}


def _write(tmp_path, text: str, name: str = "sub.py"):
    path = tmp_path / "01_variance" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_model_answer_removes_the_solution_markers_and_keeps_the_code():
    code = model_answer('def f():\n    """Doc."""\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION')
    assert code == 'def f():\n    """Doc."""\n    return 1'


def test_model_base_fills_every_solution_cell_with_the_model_answer():
    source, release = _notebooks()
    built = build_notebook(Submission("01_variance", "m", "model", "correct", ""), release, source)
    cells = _sources_by_id(built)
    assert cells["double"] == 'def double(x):\n    """Twice x."""\n    return 2 * x'
    assert cells["answer_half"] == "answer_half = 0.5"


def test_blank_base_keeps_the_release_stubs():
    source, release = _notebooks()
    built = build_notebook(Submission("01_variance", "b", "blank", "blank", ""), release, source)
    assert _sources_by_id(built) == _sources_by_id(release)


def test_a_section_replaces_only_its_own_solution_cell():
    source, release = _notebooks()
    submission = Submission("01_variance", "s", "model", "misconception", "", {"double": "def double(x):\n    return x\n"})
    cells = _sources_by_id(build_notebook(submission, release, source))
    assert cells["double"] == "def double(x):\n    return x"
    assert cells["answer_half"] == "answer_half = 0.5"


def test_building_leaves_every_cell_other_than_solutions_as_released():
    source, release = _notebooks()
    submission = Submission("01_variance", "s", "model", "correct", "", {"answer_half": "answer_half = 1 / 2\n"})
    built = build_notebook(submission, release, source)
    for before, after in zip(release.cells, built.cells):
        if not before.metadata.get("nbgrader", {}).get("solution"):
            assert (after.source, after.metadata) == (before.source, before.metadata)


def test_building_does_not_modify_the_release_notebook():
    source, release = _notebooks()
    before = nbformat.writes(release)
    build_notebook(Submission("01_variance", "m", "model", "correct", "", {"double": "x = 1\n"}), release, source)
    assert nbformat.writes(release) == before


def test_a_section_for_a_cell_that_is_not_a_solution_cell_is_rejected():
    source, release = _notebooks()
    submission = Submission("01_variance", "s", "model", "fault", "", {"test_double": "pass\n"})
    with pytest.raises(ValueError, match="test_double"):
        build_notebook(submission, release, source)


def test_parse_reads_header_summary_and_sections_in_order(tmp_path):
    path = _write(tmp_path, "# Doubles nothing.\n# base: model\n# kind: misconception\n"
                            "# %% double\ndef double(x):\n    return x\n# %% answer_half\nanswer_half = 2\n")
    submission = parse_submission(path)
    assert (submission.assignment, submission.name, submission.base, submission.kind) == \
        ("01_variance", "sub", "model", "misconception")
    assert submission.summary == "Doubles nothing."
    assert submission.cells == {"double": "def double(x):\n    return x\n", "answer_half": "answer_half = 2\n"}


@pytest.mark.parametrize("text, problem", [
    ("# kind: correct\n# %% double\npass\n", "base"),
    ("# base: model\n# %% double\npass\n", "kind"),
    ("# base: model\n# kind: correct\nx = 1\n# %% double\npass\n", "code before"),
    ("# base: model\n# kind: correct\n# %% double\npass\n# %% double\npass\n", "twice"),
    ("# base: model\n# kind: correct\n# %%\npass\n", "grade_id"),
])
def test_parse_rejects_a_malformed_corpus_file(tmp_path, text, problem):
    with pytest.raises(CorpusError, match=problem):
        parse_submission(_write(tmp_path, text))


def test_an_ipynb_corpus_file_is_handed_in_byte_for_byte(tmp_path, course):
    raw = b'{"cells": [ truncated'
    submission = parse_submission(_write(tmp_path, raw.decode(), name="broken.ipynb"))
    assert submission.unreadable and submission.kind == "unreadable"
    assert hand_in(course, "someone", submission).read_bytes() == raw


def test_hand_in_writes_a_notebook_that_nbgrader_can_read(course):
    submission = Submission("02_softmax", "m", "model", "correct", "")
    path = hand_in(course, "ada", submission)
    assert path == course.submitted_notebook("ada", "02_softmax")
    nbformat.validate(nbformat.read(path, as_version=4))


def _row(grade_id, score, diagnosis=""):
    return ExpectedRow("01_variance", "s", grade_id, score, diagnosis)


def test_expected_outcome_applies_the_star_row_to_unlisted_cells():
    points = {"test_double": 2.0, "test_answer_half": 1.0}
    outcome = expected_outcome([_row("*", "max"), _row("test_double", "0.5", "inaccurate")], "01_variance", "s", points)
    assert (outcome["test_double"].score, outcome["test_double"].diagnosis) == (0.5, "inaccurate")
    assert (outcome["test_answer_half"].score, outcome["test_answer_half"].diagnosis) == (1.0, "")


def test_expected_outcome_requires_a_star_row():
    with pytest.raises(CorpusError, match="no"):
        expected_outcome([_row("test_double", "0")], "01_variance", "s", {"test_double": 2.0})


def test_expected_outcome_rejects_a_cell_the_notebook_does_not_have():
    with pytest.raises(CorpusError, match="test_triple"):
        expected_outcome([_row("*", "0"), _row("test_triple", "0")], "01_variance", "s", {"test_double": 2.0})


def test_load_expected_rejects_a_row_listed_twice(tmp_path):
    table = tmp_path / "expected.csv"
    table.write_text("assignment,submission,grade_id,score,diagnosis\n"
                     "01_variance,s,*,max,\n01_variance,s,*,0,\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="twice"):
        load_expected(table)


def test_load_expected_rejects_a_score_that_is_not_a_number(tmp_path):
    table = tmp_path / "expected.csv"
    table.write_text("assignment,submission,grade_id,score,diagnosis\n01_variance,s,*,full,\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="score"):
        load_expected(table)
