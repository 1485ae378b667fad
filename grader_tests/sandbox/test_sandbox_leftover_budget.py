"""What a notebook leaves in its working folder comes back bounded in bytes and files, holes as holes,
and reaches no feedback folder unless the course asks for it."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell
from test_sandbox_kernel_failures import KERNEL_METADATA, needs_sandbox

from grader.sandbox.leftover_budget import NOTEBOOK_NOTE_KEY, WORKING_FOLDER_NOTE, LeftoverBudget
from grader.sandbox.workdir_quota import copy_tree

MiB = 2**20
# The attack that filled a disk: fifteen files of 16 MiB that hold nothing but holes.
SPARSE_FILES = ("for n in range(15):\n"
                "    with open(f'sparse{n:02}.bin', 'wb') as f:\n"
                "        f.truncate(16 * 2**20)\n")


def bytes_on_disk(folder: Path) -> int:
    """Bytes the files under ``folder`` really take (allocated blocks, not apparent size)."""
    return sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def apparent_bytes(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file())


def _sparse_file(path: Path, size: int, data_at: int = 0) -> None:
    with open(path, "wb") as handle:
        handle.seek(data_at)
        handle.write(b"data")
        handle.truncate(size)


def test_a_sparse_file_is_copied_with_its_holes_and_its_data(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _sparse_file(tmp_path / "a" / "sparse.bin", 64 * MiB, data_at=40 * MiB)
    copy_tree(str(tmp_path / "a"), str(tmp_path / "b"), (), None)
    copy = tmp_path / "b" / "sparse.bin"
    assert copy.stat().st_size == 64 * MiB
    assert copy.stat().st_blocks * 512 <= 1 * MiB
    with open(copy, "rb") as handle:
        handle.seek(40 * MiB)
        assert handle.read(4) == b"data"
        handle.seek(40 * MiB - 4)
        assert handle.read(4) == bytes(4)


def test_files_past_the_leftover_budget_are_not_copied_and_are_counted(tmp_path):
    source, target = tmp_path / "work", tmp_path / "back"
    source.mkdir()
    target.mkdir()
    for n in range(6):
        _sparse_file(source / f"f{n}.bin", 10 * MiB)
    budget = LeftoverBudget(size_limit=35 * MiB, file_limit=100)
    copy_tree(str(source), str(target), (), None, budget)
    assert sorted(p.name for p in target.iterdir()) == ["f0.bin", "f1.bin", "f2.bin"]
    assert (budget.not_kept.entries, budget.not_kept.bytes) == (3, 30 * MiB)
    assert "3 files and folders (30.0 MiB) were not kept" in budget.note()


def test_the_file_count_of_the_leftover_budget_counts_folders_too(tmp_path):
    source, target = tmp_path / "work", tmp_path / "back"
    (source / "folder").mkdir(parents=True)
    target.mkdir()
    for n in range(5):
        (source / "folder" / f"{n}.txt").write_text("x")
    budget = LeftoverBudget(size_limit=MiB, file_limit=3)
    copy_tree(str(source), str(target), (), None, budget)
    assert len(list(target.rglob("*"))) == 3 and budget.not_kept.entries == 3


def test_within_the_budget_nothing_is_noted(tmp_path):
    budget = LeftoverBudget(size_limit=MiB, file_limit=10)
    assert budget.take("a.txt", 100) and budget.note() is None


# ---- a real sandboxed kernel ----------------------------------------------------------------------

def _run(cells, workdir, notebook_metadata=None, **options):
    from nbformat.v4 import new_notebook

    from grader.sandbox import SandboxedExecute

    notebook = new_notebook(cells=[new_code_cell(c) for c in cells],
                            metadata={**KERNEL_METADATA, **(notebook_metadata or {})})
    SandboxedExecute(**options).preprocess(notebook, {"metadata": {"path": str(workdir)}})
    return notebook


@pytest.mark.slow
@needs_sandbox
def test_sparse_files_a_kernel_writes_leave_few_bytes_on_disk_and_a_bounded_apparent_size(tmp_path):
    notebook = _run([SPARSE_FILES], tmp_path)
    assert bytes_on_disk(tmp_path) < MiB
    assert apparent_bytes(tmp_path) <= 64 * MiB  # leftover_size_limit's default
    assert len(list(tmp_path.glob("sparse*.bin"))) == 4


@pytest.mark.slow
@needs_sandbox
def test_files_past_the_budget_are_named_in_the_notebook_s_metadata_for_the_page(tmp_path):
    notebook = _run([SPARSE_FILES], tmp_path, leftover_size_limit=32 * MiB)
    note = notebook.metadata[NOTEBOOK_NOTE_KEY][WORKING_FOLDER_NOTE]
    assert "13 files and folders (208.0 MiB) were not kept" in note and "sparse02.bin" in note
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sparse00.bin", "sparse01.bin"]


@pytest.mark.slow
@needs_sandbox
def test_a_note_forged_in_the_submitted_notebook_s_metadata_is_removed(tmp_path):
    forged = {NOTEBOOK_NOTE_KEY: {WORKING_FOLDER_NOTE: "forged"}}
    notebook = _run(["x = 1"], tmp_path, notebook_metadata=forged)
    assert NOTEBOOK_NOTE_KEY not in notebook.metadata


# ---- the graded course -----------------------------------------------------------------------------

def _hand_in_with_sparse_files(course, student: str) -> None:
    from grader.demo.corpus import write_submission

    notebook = nbformat.read(course.release_notebook("02_softmax"), as_version=4)
    notebook.cells.append(new_code_cell(SPARSE_FILES))
    write_submission(course, student, "02_softmax", notebook)


def _grade_with_feedback(course, student: str) -> Path:
    from grader.grading import nbgrader_apps
    from grader.grading.grade_one import grade_one

    outcome = grade_one(str(course.root), "02_softmax", student)
    assert outcome.graded, outcome.reason
    assert nbgrader_apps.generate_feedback(course, "02_softmax", student)["success"]
    return course.root / "feedback" / student / "02_softmax"


@needs_sandbox
def test_feedback_holds_the_page_only_and_the_graded_folder_stays_small(course):
    _hand_in_with_sparse_files(course, "sparse")
    feedback = _grade_with_feedback(course, "sparse")
    assert sorted(p.name for p in feedback.rglob("*")) == ["softmax.html"]
    autograded = course.root / "autograded" / "sparse" / "02_softmax"
    assert bytes_on_disk(autograded) < 2 * MiB and apparent_bytes(autograded) <= 65 * MiB
    page = (feedback / "softmax.html").read_text(encoding="utf-8")
    assert "were not kept" in page and "sparse04.bin" in page


@needs_sandbox
def test_feedback_copies_the_working_files_holes_as_holes_when_the_course_asks(course):
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.GenerateFeedback.copy_working_files = True\n")
    _hand_in_with_sparse_files(course, "sparse")
    feedback = _grade_with_feedback(course, "sparse")
    assert len(list(feedback.glob("sparse*.bin"))) == 4
    assert bytes_on_disk(feedback) < 2 * MiB + os.path.getsize(feedback / "softmax.html")


def test_the_page_shows_the_note_on_files_not_kept_escaped():
    from nbformat.v4 import new_notebook

    from grader.grading.preprocessors.feedback_page import FeedbackPage

    note = "3 files were not kept, e.g. <script>x</script>.bin"
    nb = new_notebook(metadata={NOTEBOOK_NOTE_KEY: {WORKING_FOLDER_NOTE: note}})
    summary = FeedbackPage().preprocess(nb, {})[0].cells[0].source
    assert "3 files were not kept, e.g. &lt;script&gt;x&lt;/script&gt;.bin" in summary
    assert "<script>" not in summary
