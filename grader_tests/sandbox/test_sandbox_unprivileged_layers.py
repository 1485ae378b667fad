"""Which layers an ordinary user's sandbox has, which are weaker, and what is still refused."""
from __future__ import annotations

import dataclasses
import shutil

import pytest

from grader.sandbox import SandboxError, SandboxLimits, unprivileged
from grader.sandbox import layers as L
from grader.sandbox import run as sandbox_run
from grader.sandbox.run import SandboxRun

UNSHARE = shutil.which("unshare") or "/usr/bin/unshare"


@pytest.fixture(autouse=True)
def no_control_groups(monkeypatch):
    """As an ordinary user without a delegated cgroup (the tests run as root)."""
    from grader.sandbox import cgroups

    unavailable = cgroups.CgroupSupport(None, {}, "needs root (the grader runs as uid 1000)")
    monkeypatch.setattr(cgroups, "support", lambda: unavailable)
    monkeypatch.setattr(sandbox_run, "cgroup_support", lambda: unavailable)


@pytest.fixture
def namespaces_allowed(monkeypatch):
    monkeypatch.setattr(unprivileged, "probe_unprivileged", lambda unshare: None)
    monkeypatch.setattr(unprivileged, "kernel_release", lambda: (6, 1))


@pytest.fixture
def namespaces_refused(monkeypatch):
    monkeypatch.setattr(unprivileged, "probe_unprivileged", lambda unshare: "unshare failed: Operation not permitted")


def test_with_user_namespaces_no_layer_is_missing(namespaces_allowed):
    support = L.unprivileged_support(UNSHARE)
    assert support.mode == unprivileged.MODE and support.missing == {}


def test_with_user_namespaces_the_private_user_and_working_folder_quota_are_weaker(namespaces_allowed):
    weaker = L.unprivileged_support(UNSHARE).weaker
    assert L.PRIVATE_USER in weaker and L.WORKDIR_QUOTA in weaker


def test_without_a_delegated_control_group_the_control_group_is_weaker_not_missing(namespaces_allowed):
    support = L.unprivileged_support(UNSHARE)
    assert L.CGROUPS in support.weaker and support.available(L.CGROUPS)


def test_the_process_limit_is_weaker_on_a_linux_that_counts_it_per_uid(namespaces_allowed, monkeypatch):
    monkeypatch.setattr(unprivileged, "kernel_release", lambda: (5, 10))
    assert L.PROCESS_LIMIT in L.unprivileged_support(UNSHARE).weaker


def test_the_process_limit_is_kept_on_a_linux_that_counts_it_per_namespace(namespaces_allowed):
    assert L.PROCESS_LIMIT not in L.unprivileged_support(UNSHARE).weaker


def test_the_unshare_command_maps_the_grader_to_root_of_a_new_user_namespace_first(namespaces_allowed):
    command = L.unprivileged_support(UNSHARE).unshare_command()
    assert command[1:3] == ["--user", "--map-root-user"] and "--mount" in command and "--net" in command


def test_where_user_namespaces_are_refused_every_namespace_layer_is_missing_with_the_reason(namespaces_refused):
    missing = L.unprivileged_support(UNSHARE).missing
    for layer in (L.FILESYSTEM, L.NETWORK, L.PROCESS_CLEANUP, L.PRIVATE_USER, L.WORKDIR_QUOTA):
        assert "Operation not permitted" in missing[layer]


def test_without_unshare_every_namespace_layer_is_missing_naming_it():
    assert "unshare command" in L.unprivileged_support(None).missing[L.FILESYSTEM]


def test_a_required_sandbox_with_a_missing_layer_is_refused_naming_it(namespaces_refused, monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox_run.L, "detect_layers", lambda: L.unprivileged_support(UNSHARE))
    run = SandboxRun(SandboxLimits(require_sandbox=True), str(tmp_path))
    with pytest.raises(SandboxError, match="filesystem isolation"):
        run.prepare()


def test_a_required_sandbox_with_only_weaker_layers_is_prepared(namespaces_allowed, monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox_run.L, "detect_layers", lambda: L.unprivileged_support(UNSHARE))
    run = SandboxRun(SandboxLimits(require_sandbox=True), str(tmp_path))
    try:
        run.prepare()
        assert run.uid is None and run.missing_layers == {}
    finally:
        run.cleanup()


def test_in_a_user_namespace_the_kernel_gets_its_own_namespace_a_tmpfs_folder_and_a_memory_watch(
        namespaces_allowed, monkeypatch, tmp_path):
    import json

    monkeypatch.setattr(sandbox_run.L, "detect_layers", lambda: L.unprivileged_support(UNSHARE))
    policy = SandboxLimits(workdir_size_limit=2**20, workdir_file_limit=10, tree_memory_limit=2**30)
    run = SandboxRun(policy, str(tmp_path))
    try:
        run.prepare()
        run.wrap(["/bin/true"])
        with open(f"{run.run_dir}/spec.json") as handle:
            spec = json.load(handle)
    finally:
        run.cleanup()
    assert spec["own_user_namespace"] is True
    assert spec["workdir_tmpfs"] == {"size": 2**20, "files": 10}
    assert spec["watched_memory"] == 2**30


def test_in_a_user_namespace_without_a_control_group_the_process_limit_is_the_smaller_of_the_two(
        namespaces_allowed, monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox_run.L, "detect_layers", lambda: L.unprivileged_support(UNSHARE))
    run = SandboxRun(SandboxLimits(max_processes=64, tree_process_limit=32), str(tmp_path))
    try:
        run.prepare()
        assert run._limits()["processes"] == 32
    finally:
        run.cleanup()


def test_the_demo_names_each_weaker_layer_before_it_starts(namespaces_allowed, monkeypatch):
    from grader.demo import run as demo

    monkeypatch.setattr("grader.sandbox.layers.detect_layers", lambda: L.unprivileged_support(UNSHARE))
    note = demo.weaker_layers_note()
    assert note.startswith("Grading without root")
    assert all(layer in note for layer in L.unprivileged_support(UNSHARE).weaker)
    assert "As with root: filesystem isolation, network isolation" in note


def test_as_root_the_demo_has_no_weaker_layers_to_name(monkeypatch):
    from grader.demo import run as demo

    monkeypatch.setattr("grader.sandbox.layers.detect_layers", lambda: L.LayerSupport(UNSHARE, {}))
    assert demo.weaker_layers_note() is None


def test_the_doctor_marks_an_active_layer_of_the_sandbox_without_root_weaker_and_says_how(namespaces_allowed):
    from grader.doctor import ProtectionRow, weaker_row

    support = L.unprivileged_support(UNSHARE)
    run = dataclasses.make_dataclass("Run", ["support"])(support)
    row = weaker_row(run, ProtectionRow(L.WORKDIR_QUOTA, True, "writing past 16 MiB failed"), L.WORKDIR_QUOTA)
    assert row.weaker and row.active and "not copied back" in row.detail


def test_the_doctor_leaves_a_layer_kept_without_root_unmarked(namespaces_allowed):
    from grader.doctor import ProtectionRow, weaker_row

    run = dataclasses.make_dataclass("Run", ["support"])(L.unprivileged_support(UNSHARE))
    assert not weaker_row(run, ProtectionRow(L.NETWORK, True, "unreachable"), L.NETWORK).weaker


def test_kernel_release_reads_major_and_minor():
    assert unprivileged.kernel_release("6.1.0-18-amd64") == (6, 1)


def test_on_a_linux_that_counts_per_uid_the_process_limit_comes_on_top_of_the_graders_processes(
        namespaces_allowed, monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox_run.L, "detect_layers", lambda: L.unprivileged_support(UNSHARE))
    monkeypatch.setattr(unprivileged, "kernel_release", lambda: (5, 10))
    monkeypatch.setattr(unprivileged, "processes_of_this_uid", lambda: 100)
    run = SandboxRun(SandboxLimits(max_processes=64, tree_process_limit=32), str(tmp_path))
    try:
        run.prepare()
        assert run._limits()["processes"] == 132
    finally:
        run.cleanup()


def test_a_kernel_killed_for_the_trees_memory_without_a_control_group_is_said_to_be(monkeypatch):
    from grader.sandbox.kernel_manager import SandboxedKernelManager
    from grader.sandbox.launcher import MEMORY_HELD

    manager = SandboxedKernelManager(limits=SandboxLimits(tree_memory_limit=512 * 2**20))
    manager.sandbox = SandboxRun(manager.limits, None)
    monkeypatch.setattr(manager.sandbox, "log_tail", lambda: f"sandbox: {MEMORY_HELD} of 512 MiB; killed")
    manager.exit_code = -9
    assert "passed the sandbox's memory limit of 512 MiB" in manager.exit_description()
