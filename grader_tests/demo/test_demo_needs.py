"""A demo that cannot grade here stops at once, naming what is missing and the ways on."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from grader.demo.run import run_demo
from grader.sandbox.privileges import demo_refusal
from grader_tests.checkout import REPO_ROOT

NOBODY = 65534


def test_where_user_namespaces_are_refused_the_demo_names_the_settings_that_allow_them():
    message = demo_refusal(euid=1000, platform="linux", user_namespaces="unshare failed: Operation not permitted")
    assert "uid 1000" in message and "Operation not permitted" in message
    assert "kernel.unprivileged_userns_clone=1" in message and "apparmor_restrict_unprivileged_userns=0" in message
    assert "sudo make demo" in message and "grader doctor" in message


def test_an_ordinary_user_with_user_namespaces_is_not_refused():
    assert demo_refusal(euid=1000, platform="linux", user_namespaces=None) is None


def test_as_root_on_linux_the_demo_is_not_refused():
    assert demo_refusal(euid=0, platform="linux") is None


def test_on_another_system_the_demo_says_it_needs_linux():
    assert "this is darwin" in demo_refusal(euid=501, platform="darwin")


def test_a_refused_demo_stops_before_its_first_step_and_makes_no_folder(tmp_path, monkeypatch):
    monkeypatch.setattr("grader.demo.run.demo_refusal", lambda: demo_refusal(euid=1000, user_namespaces="refused"))
    console = Console(record=True, width=100, file=io.StringIO())
    assert run_demo(tmp_path / "demo-course", workers=1, console=console) == 1
    text = console.export_text()
    assert "grader demo stops here" in text and "claims" not in text
    assert not (tmp_path / "demo-course").exists()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None or not Path("/usr/bin/python3.11").exists(),
                    reason="needs root, setpriv and /usr/bin/python3.11 to run make as another user")
def test_make_demo_as_an_ordinary_user_without_unshare_stops_before_installing_anything():
    # A checkout the other user can reach: a pytest tmp_path sits under a folder only root enters.
    checkout = Path(tempfile.mkdtemp(prefix="demo-needs-"))
    try:
        shutil.copytree(REPO_ROOT / "grader", checkout / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("Makefile", "pyproject.toml"):
            shutil.copy(REPO_ROOT / name, checkout / name)
        for path in [checkout, *checkout.rglob("*")]:
            os.chmod(path, 0o777 if path.is_dir() else 0o644)
        # a PATH with make, a shell and Python but no unshare: no sandbox can be built
        tools = checkout / "tools"
        tools.mkdir(mode=0o755)
        for tool in ("make", "sh", "python3.11"):
            (tools / tool).symlink_to(shutil.which(tool, path="/usr/bin:/bin"))
        run = subprocess.run([shutil.which("setpriv"), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                              "make", "demo", "PYTHON=python3.11"], cwd=checkout,
                             capture_output=True, text=True, timeout=120, env={"PATH": str(tools)})
        assert run.returncode != 0
        assert f"this process runs as uid {NOBODY}" in run.stderr
        assert "the unshare command is missing (sudo apt install util-linux)" in run.stderr
        assert not (checkout / ".venv").exists()
    finally:
        shutil.rmtree(checkout, ignore_errors=True)
