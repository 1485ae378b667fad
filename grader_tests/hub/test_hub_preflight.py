"""``grader hub up`` refuses up front, naming what the machine lacks, and changes nothing then."""
from __future__ import annotations

import shutil

import pytest

from grader.cli import main
from grader.hub import preflight
from grader.hub.layout import HubLayout
from grader.hub.lifecycle import HubError, up
from grader_tests.checkout import THE_COURSE


@pytest.fixture
def not_root(monkeypatch):
    monkeypatch.setattr(preflight.os, "geteuid", lambda: 1000)


@pytest.fixture
def no_npm(monkeypatch):
    real = shutil.which
    monkeypatch.setattr(preflight.shutil, "which", lambda name, *a, **k: None if name in ("npm", "node") else real(name, *a, **k))


def test_a_machine_without_root_is_refused_naming_root(not_root):
    assert any(problem.startswith("root:") and "sudo" in problem for problem in preflight.missing())


def test_a_machine_without_npm_is_refused_naming_node_and_npm(no_npm):
    assert any("node and npm" in problem and "apt-get install nodejs npm" in problem
               for problem in preflight.missing())


def test_up_refuses_before_making_any_folder_or_account(not_root, no_npm, tmp_path):
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    with pytest.raises(HubError) as refused:
        up(layout, THE_COURSE, students=2, prefix="never")
    assert "root:" in str(refused.value) and "node and npm" in str(refused.value)
    assert not layout.root.exists() and not layout.cache.exists()


def test_the_command_says_what_is_missing_and_exits_with_status_2(not_root, tmp_path, capsys):
    status = main(["hub", "up", "--root", str(tmp_path / "hub"), "--cache", str(tmp_path / "cache")])
    assert status == 2
    assert "cannot start the course hub on this machine" in capsys.readouterr().out
    assert not (tmp_path / "hub").exists()
