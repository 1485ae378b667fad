"""Degraded sandboxes: a layer that is unavailable is named once, the others still protect.

A layer is switched off by replacing what ``detect_layers`` found; each test runs a small
Python process (not a kernel) in the sandbox, so these tests are quick.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid

import pytest

from grader.sandbox import SandboxLimits, layers
from grader.sandbox import run as run_module
from grader.sandbox.launcher import processes_with_marker
from grader.sandbox.run import SandboxRun

FULL_SUPPORT = layers.detect_layers()
pytestmark = pytest.mark.skipif(bool(FULL_SUPPORT.missing), reason=f"sandbox layers "
                                f"unavailable here: {FULL_SUPPORT.missing}")


needs_root_sandbox = pytest.mark.skipif(
    not FULL_SUPPORT.as_root, reason="a sandbox with its filesystem and PID namespaces switched off "
    "is a form of the root sandbox only (without root the sandbox has all its namespaces or none)")


def without(*names):
    """The layers of this machine with ``names`` switched off."""
    return dataclasses.replace(FULL_SUPPORT, missing={name: "switched off for this test"
                                                      for name in names})


@pytest.fixture
def support(monkeypatch):
    """Call with a LayerSupport to make the sandbox believe that is what this machine has."""
    monkeypatch.setattr(run_module, "_warned_layers", set())

    def use(layer_support):
        monkeypatch.setattr(layers, "detect_layers", lambda: layer_support)
    return use


def run_sandboxed(code, workdir, course_root=None):
    """Run ``python -c code`` sandboxed with ``workdir`` as its folder; returns its stdout."""
    run = SandboxRun(SandboxLimits(), str(workdir), course_root=course_root)
    run.prepare()
    try:
        argv = run.wrap([sys.executable, "-I", "-c", code])
        process = subprocess.Popen(argv, env=run.env, pass_fds=run.pass_fds, cwd=run.workdir,
                                   stdout=subprocess.PIPE, stderr=run.log_file())
        run.after_launch()
        run.wait_until_ready(process.poll)
        output, _ = process.communicate(timeout=60)
    finally:
        run.cleanup()
    return output.decode()



@pytest.fixture
def course(tmp_path):
    (tmp_path / "gradebook.db").write_text("GRADEBOOK-SECRET")
    workdir = tmp_path / "autograded" / "student" / "ps1"
    workdir.mkdir(parents=True)
    return tmp_path, workdir


def test_missing_layer_is_warned_once_by_name(support, course, caplog):
    support(without(layers.NETWORK))
    root, workdir = course
    with caplog.at_level(logging.WARNING, logger=run_module.__name__):
        run_sandboxed("pass", workdir, str(root))
        run_sandboxed("pass", workdir, str(root))
    warnings = [r.getMessage() for r in caplog.records if "network isolation" in r.getMessage()]
    assert len(warnings) == 1
    assert "unavailable" in warnings[0]


def test_filesystem_isolation_holds_without_network_isolation(support, course):
    support(without(layers.NETWORK))
    root, workdir = course
    code = (f"import os\n"
            f"print(os.path.exists({str(root / 'gradebook.db')!r}))")
    assert run_sandboxed(code, workdir, str(root)).strip() == "False"


def test_switching_off_network_isolation_really_opens_the_network(support, course):
    support(without(layers.NETWORK))
    root, workdir = course
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = (f"import socket\n"
                f"socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
                f"print('connected')")
        assert run_sandboxed(code, workdir, str(root)).strip() == "connected"


@pytest.fixture
def searchable_tmp():
    """A temporary folder every user may enter (pytest's own are private to root)."""
    folder = tempfile.mkdtemp(prefix="sandbox-test-")
    os.chmod(folder, 0o755)
    yield pathlib.Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


@needs_root_sandbox
def test_unreachable_folder_without_filesystem_isolation_turns_off_the_private_user(
        support, searchable_tmp, caplog):
    support(without(layers.FILESYSTEM, layers.NETWORK, layers.PROCESS_CLEANUP))
    locked = searchable_tmp / "locked"
    workdir = locked / "ps1"
    workdir.mkdir(parents=True)
    locked.chmod(0o700)  # the sandbox user could not even enter its working folder
    with caplog.at_level(logging.WARNING, logger=run_module.__name__):
        output = run_sandboxed("print('ran')", workdir)
    assert output.strip() == "ran"
    assert any("unprivileged user" in r.getMessage() and str(locked) in r.getMessage()
               for r in caplog.records)


@needs_root_sandbox
def test_daemon_is_killed_without_a_pid_namespace(support, course):
    support(without(layers.FILESYSTEM, layers.NETWORK, layers.PROCESS_CLEANUP))
    root, workdir = course
    marker = f"sandbox-test-daemon-{uuid.uuid4().hex}"
    daemon = ("import os, time\n"
              "if os.fork(): os._exit(0)\n"
              "os.setsid()\n"
              "if os.fork(): os._exit(0)\n"
              "open('daemon-started', 'w').close()\n"
              "time.sleep(300)\n")
    code = (f"import subprocess, sys, os, time\n"
            f"subprocess.run([sys.executable, '-c', {daemon!r}, {marker!r}])\n"
            f"while not os.path.exists('daemon-started'): time.sleep(0.01)\n")
    run_sandboxed(code, workdir, str(root))
    leftovers = processes_with_marker(marker)
    for pid in leftovers:
        os.kill(pid, 9)
    assert (workdir / "daemon-started").exists()
    assert leftovers == []


@pytest.mark.skipif(shutil.which("unshare") is None, reason="util-linux unshare not found")
def test_unshare_command_leaves_out_a_switched_off_namespace():
    command = without(layers.NETWORK).unshare_command()
    assert "--net" not in command
    assert "--mount" in command
