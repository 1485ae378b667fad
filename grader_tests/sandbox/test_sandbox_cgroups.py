"""The sandbox's control group: the limits it writes (v1 and v2) and that the kernel lives in it."""
from __future__ import annotations

import os

import pytest

from grader.sandbox.cgroups import CgroupLimits, CgroupSupport, SandboxCgroup, support

LIMITS = CgroupLimits(memory_bytes=2**30, processes=100, cpu_weight=50, cpu_quota=1.5)


def fake_hierarchy(tmp_path, version):
    """Parent folders standing in for /sys/fs/cgroup (files are created as they are written)."""
    if version == 1:
        parents = {c: str(tmp_path / c) for c in ("memory", "pids", "cpu")}
    else:
        parents = dict.fromkeys(("memory", "pids", "cpu"), str(tmp_path / "unified"))
    for folder in set(parents.values()):
        os.makedirs(folder)
    return CgroupSupport(version, parents)


def read(folder, name):
    with open(os.path.join(folder, name)) as handle:
        return handle.read()


def test_v1_limits_are_written_per_controller(tmp_path):
    group = SandboxCgroup.create("sal-a", LIMITS, fake_hierarchy(tmp_path, 1))
    assert read(group.paths["memory"], "memory.limit_in_bytes") == str(2**30)
    assert read(group.paths["pids"], "pids.max") == "100"
    assert read(group.paths["cpu"], "cpu.shares") == "512"
    assert (read(group.paths["cpu"], "cpu.cfs_quota_us"), read(group.paths["cpu"], "cpu.cfs_period_us")) == \
        ("150000", "100000")


def test_v2_limits_are_written_in_one_folder(tmp_path):
    group = SandboxCgroup.create("sal-b", LIMITS, fake_hierarchy(tmp_path, 2))
    folder = group.paths["memory"]
    assert set(group.paths.values()) == {folder}
    assert (read(folder, "memory.max"), read(folder, "pids.max"), read(folder, "cpu.weight"),
            read(folder, "cpu.max")) == (str(2**30), "100", "50", "150000 100000")


def test_a_record_names_the_same_group(tmp_path):
    group = SandboxCgroup.create("sal-c", LIMITS, fake_hierarchy(tmp_path, 1))
    assert SandboxCgroup.from_record(group.to_record()).paths == group.paths


@pytest.mark.skipif(not support().available, reason=f"no control groups here: {support().reason}")
def test_a_real_group_holds_an_attached_process_and_kills_it():
    import subprocess

    group = SandboxCgroup.create(f"sal-test-{os.getpid()}", CgroupLimits(memory_bytes=2**28, processes=16))
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        group.attach(sleeper.pid)
        assert group.pids() == [sleeper.pid]
        assert group.kill_all() == 0
        assert sleeper.wait(timeout=10) == -9
    finally:
        sleeper.kill()
        assert group.remove()
    assert not any(os.path.isdir(p) for p in group.paths.values())


def v2_hierarchy(tmp_path, delegated: bool):
    """A stand-in cgroup v2 mount whose grader cgroup ``/grader`` may (or may not) have children."""
    (tmp_path / "cgroup.controllers").write_text("cpu io memory pids")
    (tmp_path / "cgroup.subtree_control").write_text("cpu memory pids")
    (tmp_path / "grader").mkdir()
    if delegated:
        (tmp_path / "grader" / "cgroup.subtree_control").write_text("")
    shared = tmp_path / "scaled-attention-lab"
    shared.mkdir()
    (shared / "cgroup.subtree_control").write_text("")  # what the kernel creates with the folder
    return str(tmp_path)


def test_v2_sandboxes_go_below_a_delegated_grader_cgroup(tmp_path):
    from grader.sandbox.cgroups import _detect_v2

    found = _detect_v2(v2_hierarchy(tmp_path, delegated=True), "/grader")
    assert found.available and set(found.parents.values()) == {str(tmp_path / "grader")}
    assert set((tmp_path / "grader" / "cgroup.subtree_control").read_text().split()) == \
        {"+memory", "+pids", "+cpu"}


def test_v2_sandboxes_go_below_their_own_top_level_group_otherwise(tmp_path):
    from grader.sandbox.cgroups import _detect_v2

    found = _detect_v2(v2_hierarchy(tmp_path, delegated=False), "/grader")
    assert found.available and set(found.parents.values()) == {str(tmp_path / "scaled-attention-lab")}
