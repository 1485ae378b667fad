"""The sandbox without root: the same layers, built in a user namespace of the grader's own.

Where the kernel lets an ordinary user create user namespaces, ``unshare --user
--map-root-user`` (or the zygote's ``unshare(2)``, ``grader.sandbox.zygote``) makes the launcher
root of a new user namespace, whose uid 0 is the grader's own uid outside. As that root it builds
the same mount, network, PID, IPC and UTS namespaces and the same private filesystem as the root
sandbox (``launcher.build_root``); the kernel then enters a user namespace of its own below it,
as the grader's uid with no capabilities and ``no_new_privs`` (``launcher.enter_own_user_namespace``).

What is kept and what is weaker than as root, layer by layer (:data:`WEAKER`, shown by
``grader doctor`` and the demo): filesystem, network, process isolation, resource limits and the
scrubbed environment are the same; the process limit is counted per sandbox (Linux counts
RLIMIT_NPROC per user namespace since 5.14); the rest is in :data:`WEAKER`.
"""

from __future__ import annotations

import os

from . import layer_names as L
from . import seccomp_profile

MODE = "user namespace"
USER_FLAGS = ("--user", "--map-root-user")
# Linux counts RLIMIT_NPROC per user namespace and uid from this release on (ucounts).
PER_NAMESPACE_NPROC = (5, 14)

WEAKER = {
    L.PRIVATE_USER: (
        "the kernel is the grader's own uid in a user namespace of its own, with no capabilities "
        "and no_new_privs (as root it is an unused uid): inside the sandbox the effect is the same, "
        "but a kernel bug that let it out of its private filesystem would leave it the grader's rights"),
    L.CGROUPS: (
        "no control group without root or a delegated cgroup v2 subtree: the launcher sums the "
        "resident memory of the sandbox's processes every 0.05 s and kills the largest past "
        "tree_memory_limit (an allocation faster than that can overshoot; each process stays "
        "within memory_limit), processes and threads are bounded by the process limit, CPU time "
        "per process by RLIMIT_CPU; there is no CPU share or quota"),
    L.WORKDIR_QUOTA: (
        "the working folder is a tmpfs with the same size and file limits, mounted inside the "
        "sandbox and filled with a copy of the notebook's folder; what the notebook writes there "
        "is not copied back into autograded/"),
}
NPROC_WEAKER = ("this Linux counts RLIMIT_NPROC over all of the grader's processes, not per "
                "sandbox (per user namespace from Linux 5.14 on): each kernel may have max_processes "
                "more than the grader's uid had when it started, a budget shared with the "
                "sandboxes graded at the same time")


def counts_processes_per_namespace() -> bool:
    """Whether this Linux counts RLIMIT_NPROC per user namespace (5.14 and later)."""
    return kernel_release() >= PER_NAMESPACE_NPROC


def processes_of_this_uid() -> int:
    """How many processes (and threads) the running uid has now, machine-wide."""
    uid, count = os.getuid(), 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                pass
    return count

# What to do when the kernel refuses user namespaces to ordinary users.
ENABLE_HINTS = (
    "sudo sysctl -w kernel.unprivileged_userns_clone=1      (Debian before 11, some hardened kernels)",
    "sudo sysctl -w user.max_user_namespaces=15000          (where it is 0)",
    "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0   (Ubuntu 23.10 and later)",
    "or run the grader as root: sudo make demo",
)


def kernel_release(release: str | None = None) -> tuple[int, int]:
    """(major, minor) of the running Linux, e.g. (6, 1) for ``6.1.0-18-amd64``."""
    numbers = (release or os.uname().release).split("-")[0].split(".")
    try:
        return int(numbers[0]), int(numbers[1])
    except (IndexError, ValueError):
        return 0, 0


NAMESPACE_FLAGS = tuple(f for layer in (L.FILESYSTEM, L.NETWORK, L.PROCESS_CLEANUP)
                        for f in L.NAMESPACE_FLAGS[layer]) + L.EXTRA_NAMESPACE_FLAGS


def probe_unprivileged(unshare: str, flags: tuple[str, ...] = NAMESPACE_FLAGS) -> str | None:
    """None when an ordinary process may build these namespaces here, else the reason: runs a
    no-op that mounts a private /proc and a tmpfs, as the launcher will."""
    script = ("import ctypes, os, sys\n"
              "libc = ctypes.CDLL(None, use_errno=True)\n"
              "for fs in (b'proc', b'tmpfs'):\n"
              "    if libc.mount(fs, b'/proc' if fs == b'proc' else b'/tmp', fs, 0, None):\n"
              "        sys.exit('mounting %s in the new namespaces: %s'\n"
              "                 % (fs.decode(), os.strerror(ctypes.get_errno())))\n")
    return L.try_unshare(unshare, (*USER_FLAGS, *flags), script)


def detect(unshare: str | None) -> dict:
    """The layers an ordinary user gets here, as the fields of a ``layers.LayerSupport``: all of
    them (some weaker, :data:`WEAKER`) when user namespaces work, else every namespace layer
    missing with the reason."""
    from .cgroups import support as cgroup_support
    missing: dict[str, str] = seccomp_profile.missing_layer()
    weaker = dict(WEAKER)
    if not counts_processes_per_namespace():
        weaker[L.PROCESS_LIMIT] = NPROC_WEAKER
    cgroups = cgroup_support()
    if cgroups.available:
        weaker.pop(L.CGROUPS)
    namespace_layers = (L.FILESYSTEM, L.NETWORK, L.PROCESS_CLEANUP, L.PRIVATE_USER,
                        L.PROCESS_LIMIT, L.WORKDIR_QUOTA)
    if unshare is None:
        reason = "the unshare command (util-linux) is not installed"
    else:
        failed = probe_unprivileged(unshare)
        if failed is None:
            return {"unshare": unshare, "missing": missing, "extra_flags": L.EXTRA_NAMESPACE_FLAGS,
                    "mode": MODE, "user_flags": USER_FLAGS, "weaker": weaker}
        reason = (f"needs root, or user namespaces for ordinary users, which this kernel refuses "
                  f"to uid {os.geteuid()} ({failed})")
    for layer in namespace_layers:
        missing[layer] = reason
    if not cgroups.available:
        missing[L.CGROUPS] = cgroups.reason
    return {"unshare": None, "missing": missing, "mode": MODE}
