"""The names of the sandbox's protection layers and the ``unshare`` flags of its namespaces."""
from __future__ import annotations

import os
import subprocess
import sys

# Names of the protection layers, as they appear in warnings, errors and `grader doctor`.
FILESYSTEM = "filesystem isolation"      # private root: no course files; writes to its folder only
NETWORK = "network isolation"            # empty network namespace
PROCESS_CLEANUP = "process isolation"    # PID namespace: every process dies with the kernel
PRIVATE_USER = "unprivileged user"       # private uid, no_new_privs
PROCESS_LIMIT = "process limit"          # RLIMIT_NPROC of that private uid
RESOURCE_LIMITS = "resource limits"      # address space, CPU, file size, open files
ENVIRONMENT = "scrubbed environment"     # minimal environment, nothing inherited
CGROUPS = "control group"                # memory, tasks and CPU share of the whole process tree
WORKDIR_QUOTA = "working folder quota"   # the working folder is a size- and file-limited tmpfs
SYSCALL_FILTER = "system call filter"    # seccomp: the calls of grader.sandbox.seccomp_profile fail

ALL_LAYERS = (FILESYSTEM, NETWORK, PROCESS_CLEANUP, PRIVATE_USER, PROCESS_LIMIT, RESOURCE_LIMITS,
              ENVIRONMENT, CGROUPS, WORKDIR_QUOTA, SYSCALL_FILTER)

NAMESPACE_FLAGS = {
    FILESYSTEM: ("--mount",),
    NETWORK: ("--net",),
    PROCESS_CLEANUP: ("--pid", "--fork", "--kill-child"),
}
EXTRA_NAMESPACE_FLAGS = ("--ipc", "--uts")


def try_unshare(unshare: str, flags: tuple[str, ...], script: str = "") -> str | None:
    """Run ``script`` (Python; a no-op by default) in new namespaces; None if that worked, else the reason."""
    probe = [unshare, *flags, "--", sys.executable, "-I", "-S", "-c", script]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=30,
                                env={"PATH": os.defpath})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run unshare: {exc}"
    if result.returncode != 0:
        return (result.stderr.strip().splitlines() or ["unshare failed"])[-1]
    return None
