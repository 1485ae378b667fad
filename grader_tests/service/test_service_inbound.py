"""Reading one hand-in folder of ``inbound/`` (grader.service.inbound), as the folder's owner."""
from __future__ import annotations

import os

import pytest

from grader.grading.admission import HandinBudget, handin_budget
from grader.service.inbound import HandinRefused, InboundFolder, collect_folder, list_folder_exchange
from grader.service_policy import GradingService

SECRET = "ab" * 64


def handin(inbound, name="ann+02_softmax+2026-12-01 10:00:00.000000 UTC+abc", files=None):
    folder = inbound / name
    folder.mkdir(parents=True)
    for relative, content in {"submission_secret.txt": SECRET, "softmax.ipynb": "{}", **(files or {})}.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(content)
    return folder


def folder_of(path) -> InboundFolder:
    return InboundFolder(os.fsencode(path.name), os.geteuid(), "", "ann", "02_softmax",
                         "2026-12-01 10:00:00.000000 UTC")


def test_a_clean_hand_in_is_copied_with_the_counted_time_written(tmp_path):
    source = handin(tmp_path / "inbound", files={"data/extra.txt": "x"})
    collected = collect_folder(tmp_path / "inbound", folder_of(source), tmp_path / "out", HandinBudget())
    assert collected.notebooks == ("softmax.ipynb",) and collected.secret == SECRET
    assert (tmp_path / "out" / "data" / "extra.txt").read_text() == "x"
    assert collected.counted_at >= source.stat().st_ctime - 1
    assert "UTC" in (tmp_path / "out" / "timestamp.txt").read_text()


def test_a_link_anywhere_refuses_the_whole_hand_in_and_copies_nothing(tmp_path):
    (tmp_path / "private.txt").write_text("not yours")
    source = handin(tmp_path / "inbound", files={"deep/er/notes.txt": "x"})
    (source / "deep" / "er" / "link.txt").symlink_to(tmp_path / "private.txt")
    with pytest.raises(HandinRefused, match="deep/er/link.txt is a symbolic link") as refused:
        collect_folder(tmp_path / "inbound", folder_of(source), tmp_path / "out", HandinBudget())
    assert refused.value.code == "special-file"
    assert refused.value.secret == SECRET  # so its author can be told
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("budget, files, says, code", [
    (HandinBudget(max_bytes=1000), {"big.bin": "x" * 2000}, "more than 0.001 MB", "handin-too-large"),
    (HandinBudget(max_entries=3), {f"f{i}.txt": "x" for i in range(5)}, "more than 3 files", "too-many-files"),
    (HandinBudget(max_notebooks=2), {f"n{i}.ipynb": "{}" for i in range(3)}, "more than 2 notebooks",
     "too-many-notebooks"),
    (HandinBudget(max_depth=2), {"a/b/c/d.txt": "x"}, "nested more than 2 deep", "nested-too-deep"),
])
def test_a_hand_in_over_its_budget_is_refused_before_copying(tmp_path, budget, files, says, code):
    source = handin(tmp_path / "inbound", files=files)
    with pytest.raises(HandinRefused, match=says) as refused:
        collect_folder(tmp_path / "inbound", folder_of(source), tmp_path / "out", budget)
    assert refused.value.code == code
    assert not (tmp_path / "out").exists()


def test_the_course_s_hand_in_settings_make_its_hand_in_budget():
    from traitlets.config import Config

    policy = GradingService(config=Config({"GradingService": {
        "max_handin_megabytes": 1.5, "max_handin_files": 7, "max_handin_notebooks": 3, "max_handin_depth": 2}}))
    assert handin_budget(policy) == HandinBudget(max_bytes=1_500_000, max_entries=7, max_notebooks=3, max_depth=2)


def test_the_hand_in_budget_defaults_are_the_declared_settings_defaults():
    assert HandinBudget() == handin_budget(GradingService())


def test_a_hand_in_without_nbgraders_secret_is_refused_without_a_secret(tmp_path):
    source = handin(tmp_path / "inbound")
    (source / "submission_secret.txt").write_text("guess")
    with pytest.raises(HandinRefused, match="not one nbgrader submit wrote") as refused:
        collect_folder(tmp_path / "inbound", folder_of(source), tmp_path / "out", HandinBudget())
    assert refused.value.secret is None


def test_listing_describes_links_and_bad_names_and_skips_nothing(tmp_path):
    inbound = tmp_path / "inbound"
    good = handin(inbound)
    (inbound / "ann+02_softmax+2026-12-01 10:00:01 UTC+link").symlink_to(good)
    (inbound / "not-a-handin").mkdir()
    found = {f.name: f for f in list_folder_exchange(inbound, lambda student, uid: None)}
    assert found[os.fsencode(good.name)].problem is None and found[os.fsencode(good.name)].complete
    link = found[b"ann+02_softmax+2026-12-01 10:00:01 UTC+link"].problem
    assert (link.code, "symbolic link" in link.student_text) == ("not-a-folder", True)
    bad_name = found[b"not-a-handin"].problem
    assert (bad_name.code, "is not <student>+<assignment>" in bad_name.student_text) == ("not-a-handin-name", True)
