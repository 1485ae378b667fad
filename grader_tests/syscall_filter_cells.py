"""Notebook cells that try the system calls the kernels' filter refuses, each printing one JSON report.

Used as root by ``test_sandbox_syscall_filter.py`` and as an ordinary account by
``test_sandbox_without_root.py``. :data:`PRELUDE` comes first in a kernel (its helpers; it prints
``{}``). :data:`PROBE_CELL` asks the filter about every refused call through
``doctor_checks.filter_verdict`` (nothing is carried out); :func:`attack_cell` makes the calls for
real, with arguments that, without the filter, would succeed or fail with another errno than EPERM.
"""
from __future__ import annotations

import inspect

from grader.sandbox import doctor_checks, seccomp_profile

CLONE_NEWUSER = seccomp_profile.NAMESPACE_CLONE_FLAGS["CLONE_NEWUSER"]
# The calls attack_cell makes for real; each must fail with EPERM.
DIRECT_ATTACKS = ("add_key", "keyctl", "request_key", "unshare", "setns", "mount", "chroot", "ptrace",
                  "userfaultfd", "perf_event_open")


def syscall_numbers() -> dict[str, int]:
    """Name -> number here of every refused call, and of clone and clone3."""
    import pyseccomp

    extra = {name: pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) for name in ("clone", "clone3")}
    return {**seccomp_profile.syscall_numbers(), **extra}


PRELUDE = f"""
import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
numbers = {syscall_numbers()!r}

def attempt(name, *args):
    result = libc.syscall(numbers[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return ("ok", result) if result >= 0 else (errno.errorcode[ctypes.get_errno()], None)

def in_child(function):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write_end, json.dumps(function()).encode())
        os._exit(0)
    os.close(write_end)
    output = os.read(read_end, 4096)
    os.close(read_end)
    os.waitpid(pid, 0)
    return json.loads(output)

def readable(path):
    try:
        open(path).read()
        return "readable"
    except OSError as exc:
        return type(exc).__name__

print("{{}}")
"""

FAMILIES = {family.name: family.syscalls for family in seccomp_profile.DENIED_FAMILIES}
PROBE_CELL = inspect.getsource(doctor_checks.filter_verdict) + f"""
print(json.dumps({{name: {{call: filter_verdict(numbers[call]) for call in calls if call in numbers}}
                  for name, calls in {FAMILIES!r}.items()}}))
"""


def attack_cell(key_description: str) -> str:
    """Each call of :data:`DIRECT_ATTACKS` for real (a user key named ``key_description``, made
    world-readable if it was added), clone3, the seccomp status and the key lists of /proc."""
    return f"""
import time

def ptrace_own_child():
    pid = os.fork()
    if pid == 0:
        libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: a kernel forked from the zygote is not
        time.sleep(30)
        os._exit(0)
    time.sleep(0.2)
    outcome = attempt("ptrace", 16, pid, 0, 0)[0]  # PTRACE_ATTACH
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return outcome

key = attempt("add_key", b"user", {key_description.encode()!r}, b"s3cret", 6, -4)  # the user keyring
shared = attempt("keyctl", 5, key[1], 0x3f3f3f3f)[0] if key[1] else None  # KEYCTL_SETPERM: world
print(json.dumps({{
    "status": [line.strip() for line in open("/proc/self/status") if line.startswith("Seccomp")],
    "add_key": key[0], "shared": shared,
    "keyctl": attempt("keyctl", 0, -3, 0)[0],  # KEYCTL_GET_KEYRING_ID of the session keyring
    "request_key": attempt("request_key", b"user", {key_description.encode()!r}, 0, 0)[0],
    "/proc/keys": readable("/proc/keys"), "/proc/key-users": readable("/proc/key-users"),
    # unshare(2) refuses a process with threads (the kernel has some): try it in a child
    "unshare": in_child(lambda: attempt("unshare", {CLONE_NEWUSER})[0]),
    "setns": attempt("setns", -1, 0)[0],
    "mount": attempt("mount", 0, b"/no-such-folder", b"tmpfs", 0, 0)[0],
    "chroot": attempt("chroot", b"/no-such-folder")[0],
    "ptrace": ptrace_own_child(),
    "userfaultfd": attempt("userfaultfd", 1)[0],  # UFFD_USER_MODE_ONLY
    "perf_event_open": attempt("perf_event_open", 0, 0, -1, -1, 0)[0],
    "clone3": attempt("clone3", 0, 0)[0],
}}))
"""


WORKS_CELL = """
import subprocess, sys, threading
import numpy as np
import matplotlib.pyplot as plt
figure, axes = plt.subplots()
axes.plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50) ** 2)
figure.canvas.draw()
plt.close(figure)
thread = threading.Thread(target=lambda: None)
thread.start()
thread.join()
child = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True)
print(json.dumps({"numpy": float(np.ones((64, 64)).dot(np.ones(64)).sum()), "child": child.stdout.strip()}))
"""


def next_kernel_cell(key_description: str) -> str:
    """What a later kernel finds of the key ``key_description``."""
    return f"""
print(json.dumps({{"request_key": attempt("request_key", b"user", {key_description.encode()!r}, 0, 0)[0],
                  "/proc/keys": readable("/proc/keys")}}))
"""
