"""One control group per sandbox: memory for the whole process tree, a process limit, a CPU share.

Resource limits (``launcher.py``) are per process: a kernel that forks fifty busy children, each
in its own session, or ten children of 0.8 GiB each, escapes them. A control group bounds the whole
tree whatever it forks, and the scheduler shares the CPU between control groups, so every sandbox
gets one fair share (``cpu_weight``, default: as much as one ordinary process) and, with
``cpu_quota``, never more than that many CPUs.

Where: under the grading process's own control group of each controller, so the sandboxes stay
inside whatever bounds the grader itself runs under. cgroup v2 is used where the unified hierarchy
holds the controllers: below the grader's cgroup when it may give controllers to children, else
below ``/sys/fs/cgroup/scaled-attention-lab``; otherwise cgroup v1 with its ``memory``, ``pids``
and ``cpu`` hierarchies. Without root, only below the grader's own cgroup v2 when that is
delegated to its uid. Without either (not Linux, not root, not delegated) :func:`support` says
why and the sandbox runs without this layer.

API (kept small; a kernel started any other way attaches through :meth:`SandboxCgroup.attach`)::

    group = SandboxCgroup.create("sal-1234", CgroupLimits(memory_bytes=2 * GiB, processes=128))
    group.attach(pid)           # or let the process write "0" into each of group.procs_files
    group.oom_kills(), group.memory_peak()
    group.kill_all(); group.remove()
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import os
import time

from .launcher import kill_until_gone

CGROUP_ROOT = "/sys/fs/cgroup"
V1_CONTROLLERS = ("memory", "pids", "cpu")
V1_DEFAULT_SHARES = 1024
CPU_PERIOD_US = 100_000


class CgroupUnavailable(RuntimeError):
    """This machine (or this process) cannot create the sandbox's control group; says why."""


@dataclasses.dataclass(frozen=True)
class CgroupLimits:
    """Limits for one sandbox's whole process tree.

    ``memory_bytes``: resident memory plus page cache and tmpfs pages the tree charges (None: no
    limit); ``processes``: tasks (processes and threads) at once; ``cpu_weight``: CPU share on the
    cgroup v2 scale (100 = one ordinary process; v1 ``cpu.shares`` = weight * 1024 / 100);
    ``cpu_quota``: CPUs the tree may use at most (None: no cap).
    """

    memory_bytes: int | None = None
    processes: int | None = None
    cpu_weight: int = 100
    cpu_quota: float | None = None


@dataclasses.dataclass(frozen=True)
class CgroupSupport:
    """Where sandbox control groups go: ``version`` 1 or 2 and the parent folder per controller."""

    version: int | None
    parents: dict[str, str]
    reason: str | None = None

    @property
    def available(self) -> bool:
        return self.reason is None


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def _write(path: str, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _own_cgroups(proc_cgroup: str = "/proc/self/cgroup") -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path, from ``/proc/self/cgroup``."""
    paths = {}
    for line in _read(proc_cgroup).splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _v1_mounts(mounts: str = "/proc/self/mounts") -> dict[str, str]:
    """v1 controller -> its mount point."""
    found = {}
    for line in _read(mounts).splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in V1_CONTROLLERS:
                    found[option] = fields[1]
    return found


def _v2_mount(mounts: str = "/proc/self/mounts") -> str | None:
    for line in _read(mounts).splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "cgroup2":
            return fields[1]
    return None


def _probe_writable(parent: str) -> str | None:
    """None if a child cgroup can be made (and removed) in ``parent``, else the reason."""
    probe = os.path.join(parent, f"sal-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
        os.rmdir(probe)
    except OSError as exc:
        return f"cannot create a control group in {parent} ({exc.strerror})"
    return None


V2_GROUP = "scaled-attention-lab"  # the sandboxes' own parent when the grader's cgroup cannot be one


def _enable_controllers(folder: str) -> None:
    """Let the children of ``folder`` use memory, pids and cpu (cgroup v2 ``subtree_control``)."""
    enabled = set(_read(os.path.join(folder, "cgroup.subtree_control")).split())
    missing = [c for c in V1_CONTROLLERS if c not in enabled]
    if missing:
        _write(os.path.join(folder, "cgroup.subtree_control"), " ".join(f"+{c}" for c in missing))


def _detect_v2(mount: str, own: str) -> CgroupSupport | None:
    """Where sandbox groups go on cgroup v2: below the grader's own cgroup when it may have
    children with controllers (a delegated cgroup), else below ``<mount>/scaled-attention-lab``
    (v2 lets no cgroup but the root hold processes and also give controllers to children)."""
    try:
        available = set(_read(os.path.join(mount, "cgroup.controllers")).split())
    except OSError:
        return None
    if not set(V1_CONTROLLERS) <= available:
        return None  # a hybrid host: the controllers live in v1 hierarchies
    reasons = []
    own_parent = os.path.normpath(mount + own)
    shared_parent = os.path.join(mount, V2_GROUP)
    for parent in (own_parent, shared_parent):
        try:
            if parent == shared_parent:
                _enable_controllers(mount)
                os.makedirs(parent, exist_ok=True)
            _enable_controllers(parent)
        except OSError as exc:
            reasons.append(f"cannot enable memory, pids and cpu for children of {parent} ({exc.strerror})")
            continue
        reason = _probe_writable(parent)
        if reason is None:
            return CgroupSupport(2, {c: parent for c in V1_CONTROLLERS})
        reasons.append(reason)
    return CgroupSupport(2, {}, "cgroup v2: " + "; ".join(reasons) + "; run the grader as root "
                         "on the host, or in a delegated cgroup of its own")


def _delegated_v2() -> CgroupSupport:
    """Without root: sandbox groups below the grader's own cgroup v2 when it is delegated to the
    grader's uid (systemd: ``systemd-run --user --scope -p Delegate=yes grader ...``)."""
    reason = f"needs root or a cgroup v2 subtree delegated to uid {os.geteuid()}"
    mount = _v2_mount()
    own = _own_cgroups().get("")
    if mount is None or own is None:
        return CgroupSupport(None, {}, reason + " (no cgroup v2 here)")
    folder = os.path.normpath(mount + own)
    try:
        delegated = os.stat(folder).st_uid == os.geteuid() and os.access(folder, os.W_OK)
    except OSError:
        delegated = False
    if not delegated:
        return CgroupSupport(None, {}, f"{reason} ({folder} is not the grader's)")
    try:
        _enable_controllers(folder)
    except OSError as exc:
        return CgroupSupport(2, {}, f"{reason}: cannot enable memory, pids and cpu for children of "
                                    f"{folder} ({exc.strerror}; a delegated cgroup that holds the "
                                    "grader itself cannot give controllers to children)")
    failed = _probe_writable(folder)
    if failed:
        return CgroupSupport(2, {}, f"{reason}: {failed}")
    return CgroupSupport(2, {c: folder for c in V1_CONTROLLERS})


@functools.lru_cache(maxsize=1)
def support() -> CgroupSupport:
    """Probe once per process whether and where sandbox control groups can be made."""
    if not os.path.isdir(CGROUP_ROOT) or not os.path.exists("/proc/self/cgroup"):
        return CgroupSupport(None, {}, "no control groups on this system (not Linux?)")
    if os.geteuid() != 0:
        return _delegated_v2()
    own = _own_cgroups()
    v1 = _v1_mounts()
    if all(c in v1 for c in V1_CONTROLLERS):
        parents = {c: os.path.normpath(v1[c] + own.get(c, "/")) for c in V1_CONTROLLERS}
        for parent in parents.values():
            reason = _probe_writable(parent)
            if reason:
                return CgroupSupport(1, {}, f"cgroup v1: {reason}")
        return CgroupSupport(1, parents)
    mount = _v2_mount()
    if mount is not None and "" in own:
        detected = _detect_v2(mount, own[""])
        if detected is not None:
            return detected
    return CgroupSupport(None, {}, "the memory, pids and cpu controllers are not all mounted "
                                   "(neither cgroup v1 nor v2)")


class SandboxCgroup:
    """The control group(s) of one sandbox: one folder per v1 controller, or one v2 folder."""

    def __init__(self, name: str, version: int, paths: dict[str, str]):
        self.name = name
        self.version = version
        self.paths = paths  # controller -> folder (the same folder for every controller on v2)

    def to_record(self) -> dict:
        """JSON-safe description, enough for :meth:`from_record` to remove the group later."""
        return {"name": self.name, "version": self.version, "paths": dict(self.paths)}

    @classmethod
    def from_record(cls, record: dict) -> "SandboxCgroup":
        return cls(record["name"], record["version"], dict(record["paths"]))

    @classmethod
    def planned_paths(cls, name: str, where: CgroupSupport | None = None) -> dict[str, str]:
        """The folders :meth:`create` would make (record them before creating, for clean-up)."""
        where = where or support()
        if not where.available:
            raise CgroupUnavailable(where.reason)
        return {c: os.path.join(parent, name) for c, parent in where.parents.items()}

    @classmethod
    def create(cls, name: str, limits: CgroupLimits, where: CgroupSupport | None = None) -> "SandboxCgroup":
        """Make the control group ``name`` with ``limits``; CgroupUnavailable saying why not."""
        where = where or support()
        paths = cls.planned_paths(name, where)
        group = cls(name, where.version, paths)
        try:
            for folder in dict.fromkeys(paths.values()):
                os.mkdir(folder)
            group._apply(limits)
        except OSError as exc:
            group.remove()
            raise CgroupUnavailable(f"cannot set up control group {name}: {exc}") from exc
        return group

    def _apply(self, limits: CgroupLimits) -> None:
        memory, pids, cpu = (self.paths[c] for c in V1_CONTROLLERS)
        if self.version == 1:
            if limits.memory_bytes is not None:
                _write(os.path.join(memory, "memory.limit_in_bytes"), str(limits.memory_bytes))
                swap = os.path.join(memory, "memory.memsw.limit_in_bytes")
                if os.path.exists(swap):  # no swapping past the limit either
                    _write(swap, str(limits.memory_bytes))
            if limits.processes is not None:
                _write(os.path.join(pids, "pids.max"), str(limits.processes))
            _write(os.path.join(cpu, "cpu.shares"),
                   str(max(2, round(limits.cpu_weight * V1_DEFAULT_SHARES / 100))))
            if limits.cpu_quota is not None:
                _write(os.path.join(cpu, "cpu.cfs_period_us"), str(CPU_PERIOD_US))
                _write(os.path.join(cpu, "cpu.cfs_quota_us"),
                       str(max(1000, round(limits.cpu_quota * CPU_PERIOD_US))))
        else:
            if limits.memory_bytes is not None:
                _write(os.path.join(memory, "memory.max"), str(limits.memory_bytes))
                swap = os.path.join(memory, "memory.swap.max")
                if os.path.exists(swap):
                    _write(swap, "0")
            if limits.processes is not None:
                _write(os.path.join(pids, "pids.max"), str(limits.processes))
            _write(os.path.join(cpu, "cpu.weight"), str(max(1, min(10000, limits.cpu_weight))))
            if limits.cpu_quota is not None:
                _write(os.path.join(cpu, "cpu.max"),
                       f"{max(1000, round(limits.cpu_quota * CPU_PERIOD_US))} {CPU_PERIOD_US}")

    # ------------------------------------------------------------------ processes
    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes ``0`` into to enter this group itself."""
        return [os.path.join(folder, "cgroup.procs") for folder in dict.fromkeys(self.paths.values())]

    def attach(self, pid: int) -> None:
        """Move process ``pid`` (and what it forks from now on) into this group."""
        for procs in self.procs_files:
            _write(procs, str(pid))

    def pids(self) -> list[int]:
        """Processes in the group now (an empty list once it is gone)."""
        found: set[int] = set()
        for procs in self.procs_files:
            try:
                found.update(int(line) for line in _read(procs).split())
            except OSError:
                pass
        return sorted(found)

    def kill_all(self, deadline_seconds: float = 5.0) -> int:
        """SIGKILL every process of the group until none is left; returns how many survived."""
        kill_file = os.path.join(self.paths["pids"], "cgroup.kill")
        if self.version == 2 and os.path.exists(kill_file):
            try:
                _write(kill_file, "1")
            except OSError:
                pass
        return kill_until_gone(self.pids, deadline_seconds)

    # ---------------------------------------------------------------- accounting
    def oom_kills(self) -> int:
        """How many processes the kernel killed for passing the group's memory limit."""
        memory = self.paths["memory"]
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in _read(os.path.join(memory, name)).splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        if self.version == 1:  # kernels without the oom_kill counter: count refused charges
            try:
                return int(_read(os.path.join(memory, "memory.failcnt")) or 0) and 1
            except (OSError, ValueError):
                pass
        return 0

    def memory_peak(self) -> int | None:
        """The most memory the group held at once, in bytes (None where unknown)."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int(_read(os.path.join(self.paths["memory"], name)))
        except (OSError, ValueError):
            return None

    # ------------------------------------------------------------------- teardown
    def remove(self, deadline_seconds: float = 5.0) -> bool:
        """Delete the group's folders (killing what is left first); True when all are gone."""
        self.kill_all()
        deadline = time.monotonic() + deadline_seconds
        left = list(dict.fromkeys(self.paths.values()))
        while left:
            for folder in list(left):
                try:
                    os.rmdir(folder)
                    left.remove(folder)
                except FileNotFoundError:
                    left.remove(folder)
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        return False
            if left:
                time.sleep(0.01)
        return True
