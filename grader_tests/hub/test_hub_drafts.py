"""The hub's instructor edits drafts in their home; ``grader hub release`` takes them into root's course as data.

A real instructor account owns the drafts. Root takes only a notebook, read by that account (a link
it plants to a file only root reads is refused), bounded and validated, then generates and releases
the student version (real nbgrader), with the course still root's.
"""
from __future__ import annotations

import json
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from grader.hub import lifecycle
from grader.hub.accounts import Account, Accounts
from grader.hub.course_access import give_course_to_root
from grader.hub.drafts import MAX_DRAFT_BYTES, DraftError, draft_notebook, seed_drafts, take_draft
from grader.hub.environment import kernel_metadata
from grader.hub.layout import HubLayout
from grader.hub.lifecycle import lay_out_hub_course, name_instructor_group, release_drafts
from grader.root_trust import course_load_problems
from grader.settings import DB_URL
from grader_tests.checkout import THE_COURSE
from grader_tests.other_account import other_account

ASSIGNMENT = "01_variance"
EDIT = "A sentence the instructor added to the draft."


@pytest.fixture
def instructor():
    with other_account("saldraft") as account:
        yield account


@pytest.fixture
def hub(instructor, monkeypatch):
    """A hub's folders, course and instructor (no JupyterHub): (layout, course, the instructor's home).
    The suite's own environment stands in for the students' (whose kernel a release describes)."""
    monkeypatch.setattr(lifecycle, "kernel_metadata", lambda _bin: kernel_metadata(Path(sys.executable).parent))
    top = Path(tempfile.mkdtemp(prefix="sal-drafts-"))
    top.chmod(0o755)
    layout = HubLayout(top / "hub", top / "cache")
    try:
        layout.root.mkdir(mode=0o755)
        layout.exchange.mkdir(mode=0o1777)
        layout.exchange.chmod(0o1777)
        layout.state.mkdir(mode=0o700)
        home = layout.home(instructor.name)
        home.mkdir(parents=True, mode=0o700)
        instructor.owns(home)
        Accounts(Account(instructor.name, "unused", str(home)), ()).save(layout.accounts_file)
        course = lay_out_hub_course(THE_COURSE, layout.course)
        name_instructor_group(course, instructor.name)
        layout.gradebook_folder.mkdir()
        monkeypatch.setenv(DB_URL.name, layout.gradebook_url)
        give_course_to_root(course.root, layout.gradebook_folder, instructor.name)
        seed_drafts(course, [ASSIGNMENT], home, instructor.name)
        yield layout, course, home
    finally:
        shutil.rmtree(top, ignore_errors=True)


def write_as(account, path: Path, text: str) -> None:
    run = account.run("sh", "-c", 'cat > "$1"', "sh", str(path), input=text)
    assert run.returncode == 0, run.stderr


def test_hub_up_gives_the_instructor_a_draft_of_each_source_as_their_own_file(hub, instructor):
    _layout, course, home = hub
    draft = draft_notebook(course, home, ASSIGNMENT)

    assert draft.read_bytes() == course.source_notebook(ASSIGNMENT).read_bytes()
    assert (draft.stat().st_uid, draft.parent.stat().st_uid) == (instructor.uid, instructor.uid)


@pytest.mark.slow
def test_a_draft_the_instructor_edited_is_released_and_the_course_stays_roots(hub, instructor):
    layout, course, home = hub
    draft = draft_notebook(course, home, ASSIGNMENT)
    notebook = json.loads(draft.read_text())
    notebook["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": EDIT, "id": "instructor-edit"})
    write_as(instructor, draft, json.dumps(notebook))

    release_drafts(layout, [ASSIGNMENT], say=lambda *_: None)

    released = next((layout.exchange / "scaled-attention-lab" / "outbound" / ASSIGNMENT).glob("*.ipynb"))
    assert EDIT in released.read_text()
    source = course.source_notebook(ASSIGNMENT)
    assert EDIT in source.read_text() and source.stat().st_uid == 0
    assert course_load_problems(course.root)[0] == []


@pytest.mark.slow
def test_a_released_notebook_carries_the_kernel_metadata_jupyterlab_would_write(hub):
    layout, _course, _home = hub
    release_drafts(layout, [ASSIGNMENT], say=lambda *_: None)

    released = next((layout.exchange / "scaled-attention-lab" / "outbound" / ASSIGNMENT).glob("*.ipynb"))
    metadata = nbformat.read(released, as_version=4).metadata
    expected = kernel_metadata(Path(sys.executable).parent)
    assert metadata.kernelspec == expected["kernelspec"] and metadata.language_info == expected["language_info"]
    assert metadata.language_info["version"] == ".".join(map(str, sys.version_info[:3]))


def test_a_draft_linked_to_a_file_only_root_reads_is_refused_and_the_source_kept(hub, instructor):
    _layout, course, home = hub
    secret = home.parent / "root-only.ipynb"
    shutil.copyfile(course.source_notebook(ASSIGNMENT), secret)
    secret.chmod(0o600)
    draft = draft_notebook(course, home, ASSIGNMENT)
    draft.unlink()
    draft.symlink_to(secret)
    instructor.owns(draft)
    before = course.source_notebook(ASSIGNMENT).read_bytes()

    with pytest.raises(DraftError, match=f"{instructor.name} cannot read the draft {draft}"):
        take_draft(course, ASSIGNMENT, home, instructor.name)

    assert course.source_notebook(ASSIGNMENT).read_bytes() == before


def test_a_draft_that_is_not_a_notebook_is_refused_naming_it(hub, instructor):
    _layout, course, home = hub
    draft = draft_notebook(course, home, ASSIGNMENT)
    write_as(instructor, draft, "c = get_config()\n")

    with pytest.raises(DraftError, match=f"the draft {draft} is not a valid notebook"):
        take_draft(course, ASSIGNMENT, home, instructor.name)


def test_a_draft_larger_than_the_bound_is_refused(hub, instructor):
    _layout, course, home = hub
    draft = draft_notebook(course, home, ASSIGNMENT)
    assert instructor.run("truncate", "-s", str(MAX_DRAFT_BYTES + 1), str(draft)).returncode == 0

    with pytest.raises(DraftError, match="is larger than 20 MB"):
        take_draft(course, ASSIGNMENT, home, instructor.name)


def test_a_taken_draft_is_a_valid_notebook_only_root_can_change(hub, instructor):
    _layout, course, home = hub

    source = take_draft(course, ASSIGNMENT, home, instructor.name)

    nbformat.validate(nbformat.read(source, as_version=4))
    assert source.stat().st_uid == 0 and not source.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
