"""`grader doctor`: attacks the sandbox for real and reports each protection."""
from __future__ import annotations

import dataclasses
import os

import pytest

from grader import doctor
from grader.sandbox import layers
from grader.sandbox import run as run_module

FULL_SUPPORT = layers.detect_layers()
needs_sandbox = pytest.mark.skipif(bool(FULL_SUPPORT.missing), reason=f"sandbox layers "
                                   f"unavailable here: {FULL_SUPPORT.missing}")
PROTECTIONS = (layers.FILESYSTEM, layers.NETWORK, layers.PROCESS_CLEANUP,
               layers.PRIVATE_USER, layers.PROCESS_LIMIT, "memory limit", "file size limit",
               "CPU time limit", "open files limit", layers.ENVIRONMENT, layers.SYSCALL_FILTER,
               # whole-tree layers (control group, working-folder quota) and leftover clean-up
               "process tree limit", "memory of the process tree", "CPU share and quota",
               layers.WORKDIR_QUOTA, "output limits", "leftover clean-up")
# what the sandbox without root has no layer for (docs/security.md, "The sandbox without root")
ABSENT_WITHOUT_ROOT = () if FULL_SUPPORT.as_root else ("CPU share and quota",)


@pytest.fixture
def course_config(tmp_path, monkeypatch):
    """Write an nbgrader_config.py with the given SandboxedExecute settings; returns its path."""
    monkeypatch.setenv("COLUMNS", "250")  # one table row per line

    def write(**settings):
        lines = ["c = get_config()"] + [f"c.SandboxedExecute.{name} = {value!r}"
                                        for name, value in settings.items()]
        path = tmp_path / "nbgrader_config.py"
        path.write_text("\n".join(lines) + "\n")
        return str(path)
    return write


def row(output: str, protection: str) -> str:
    [line] = [line for line in output.splitlines() if f" {protection} " in line]
    return line


@needs_sandbox
def test_doctor_passes_when_every_protection_holds(course_config, capsys):
    assert doctor.main(["--config", course_config()]) == 0
    output = capsys.readouterr().out
    for protection in PROTECTIONS:
        if protection not in ABSENT_WITHOUT_ROOT:
            assert "active" in row(output, protection)


@needs_sandbox
@pytest.mark.skipif(os.geteuid() == 0, reason="the sandbox without root is probed by an ordinary user")
def test_doctor_without_root_names_the_cpu_quota_it_lacks_and_still_passes(course_config, capsys):
    assert doctor.main(["--config", course_config()]) == 0
    cpu = row(capsys.readouterr().out, "CPU share and quota")
    assert cpu.split("│")[2].strip() == "none without root"


@needs_sandbox
def test_doctor_fails_and_names_a_layer_that_is_missing(course_config, capsys, monkeypatch):
    support = dataclasses.replace(FULL_SUPPORT, missing={layers.NETWORK: "switched off for this test"})
    monkeypatch.setattr(layers, "detect_layers", lambda: support)
    monkeypatch.setattr(run_module, "_warned_layers", set())
    assert doctor.main(["--config", course_config()]) == 1
    network = row(capsys.readouterr().out, layers.NETWORK)
    assert "unavailable" in network
    assert "switched off for this test" in network


@needs_sandbox
def test_doctor_says_why_the_system_call_filter_is_missing(course_config, capsys, monkeypatch):
    reason = "libseccomp cannot be loaded (switched off for this test)"
    support = layers.LayerSupport(FULL_SUPPORT.unshare, {layers.SYSCALL_FILTER: reason},
                                  FULL_SUPPORT.extra_flags)
    monkeypatch.setattr(layers, "detect_layers", lambda: support)
    monkeypatch.setattr(run_module, "_warned_layers", set())
    assert doctor.main(["--config", course_config()]) == 1
    syscall_filter = row(capsys.readouterr().out, layers.SYSCALL_FILTER)
    assert "unavailable" in syscall_filter and reason in syscall_filter and "Seccomp: 0" in syscall_filter


@needs_sandbox
def test_doctor_probes_the_limits_of_the_course_config(course_config, capsys):
    doctor.main(["--config", course_config(open_files_limit=128, max_processes=20)])
    output = capsys.readouterr().out
    assert "RLIMIT_NOFILE 128" in row(output, "open files limit")
    forks = int(row(output, layers.PROCESS_LIMIT).split("after ")[1].split()[0])
    assert forks < 20


@needs_sandbox
def test_doctor_cuts_output_past_its_probe_limits_and_names_the_configured_ones(course_config, capsys):
    doctor.main(["--config", course_config(max_notebook_output_bytes=4 * 2**20)])
    output_limits = row(capsys.readouterr().out, "output limits")
    assert "active" in output_limits and "2 kept, 2 cut with a note" in output_limits
    assert "configured 8 MiB per cell, 4 MiB per notebook" in output_limits


def test_doctor_refuses_a_mistyped_sandbox_setting_naming_it(course_config):
    with pytest.raises(SystemExit, match="memory_limit"):
        doctor.main(["--config", course_config(memory_limit="2 GiB")])


def test_doctor_rejects_a_config_file_that_does_not_exist(tmp_path):
    with pytest.raises(SystemExit, match="not found"):
        doctor.main(["--config", str(tmp_path / "nbgrader_config.py")])
