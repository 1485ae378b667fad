"""The system calls a sandboxed kernel is refused (its seccomp profile), and the filter that refuses them.

A deny-list profile, ``sal-kernel``: every system call a notebook uses (files, memory, threads,
fork and exec, sockets, signals, time) is allowed; the families in :data:`DENIED_FAMILIES` fail with
``EPERM``, as they do for an unprivileged process under Docker's default profile, so a library that
tries one (numpy, matplotlib, ipykernel never do) gets an ordinary ``PermissionError`` and the kernel
goes on; nothing is killed. Two rules go further than a name:

- ``clone(2)`` with a namespace flag (:data:`NAMESPACE_CLONE_FLAGS`) fails with ``EPERM`` as
  ``unshare(2)`` does; ``clone(2)`` for a thread or a child process is allowed.
- ``clone3(2)`` passes its flags in memory a filter cannot read: it fails with ``ENOSYS``, so the C
  library falls back to ``clone(2)`` (glibc and musl do), where the flags are checked.

A call made through another system call table than the native one (32-bit ``int 0x80``, x32 on
x86-64) fails with ``EPERM`` too: the profile is written for the native table only.

The filter is compiled here, in the grading process, by libseccomp (through ``pyseccomp``, which
binds ``libseccomp.so.2`` with ctypes) into a classic BPF program (:func:`filter_program`); the
launcher, which may import nothing but the standard library, installs that program in the kernel's
process after every other step of its setup (``launcher.install_syscall_filter``). The filter is
inherited by every thread and child of the kernel and cannot be removed.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import os
import tempfile

from .layer_names import SYSCALL_FILTER

PROFILE_NAME = "sal-kernel"
DENIED_ERRNO = errno.EPERM
CLONE3_ERRNO = errno.ENOSYS  # so that the C library falls back to clone(2)

# clone(2) flags that create a namespace (CLONE_NEWTIME exists for clone3 and unshare only).
NAMESPACE_CLONE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}


@dataclasses.dataclass(frozen=True)
class DeniedFamily:
    """``syscalls`` (names as in ``man 2 syscalls``; a name this architecture lacks is skipped)
    refused for the reason ``why``; ``name`` is how the security page and the tests call it."""

    name: str
    syscalls: tuple[str, ...]
    why: str


DENIED_FAMILIES = (
    DeniedFamily("kernel modules",
                 ("init_module", "finit_module", "delete_module", "create_module", "query_module",
                  "get_kernel_syms"),
                 "loading code into, or unloading it from, the running Linux kernel"),
    DeniedFamily("keyrings", ("add_key", "keyctl", "request_key"),
                 "the kernel's key store is not covered by namespaces: a key a kernel adds could be "
                 "read by the host and by the next kernel of the same uid"),
    DeniedFamily("bpf", ("bpf",), "loading BPF programs into the kernel"),
    DeniedFamily("tracing processes",
                 ("ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
                  "pidfd_getfd"),
                 "reading or changing another process's memory, registers or descriptors"),
    DeniedFamily("mounts",
                 ("mount", "umount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig",
                  "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr"),
                 "changing the private filesystem the sandbox built"),
    DeniedFamily("namespaces", ("unshare", "setns"),
                 "new or other namespaces from inside the sandbox (a user namespace gives its "
                 "creator every capability in it); clone(2) with a namespace flag too"),
    DeniedFamily("performance counters", ("perf_event_open",),
                 "hardware and kernel performance counters, a frequent source of kernel bugs"),
    DeniedFamily("userfaultfd", ("userfaultfd",),
                 "handling page faults in user space, used to widen races in kernel exploits"),
    DeniedFamily("io_uring", ("io_uring_setup", "io_uring_enter", "io_uring_register"),
                 "an asynchronous second route into the kernel's I/O paths, outside the checks above"),
    DeniedFamily("kernel replacement and power", ("kexec_load", "kexec_file_load", "reboot"),
                 "loading a new kernel, rebooting or powering off the machine"),
    DeniedFamily("swap", ("swapon", "swapoff"), "turning swap space on or off"),
    DeniedFamily("file handles", ("open_by_handle_at", "name_to_handle_at"),
                 "opening a file by its handle bypasses the paths the sandbox hides"),
    DeniedFamily("clock and host name",
                 ("settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
                  "setdomainname"),
                 "setting the machine's clock or names"),
    DeniedFamily("kernel log, accounting and quotas",
                 ("syslog", "acct", "quotactl", "quotactl_fd", "lookup_dcookie", "vhangup"),
                 "the kernel's log and process accounting, disk quotas, the terminal"),
    DeniedFamily("hardware ports", ("iopl", "ioperm"), "direct access to I/O ports"),
    DeniedFamily("obsolete calls",
                 ("uselib", "ustat", "sysfs", "_sysctl", "nfsservctl", "vm86", "vm86old"),
                 "calls no current program needs, kept by Linux for old binaries"),
)


class FilterUnavailable(RuntimeError):
    """The filter cannot be built or installed here; the message says why and what to do."""


def denied_syscalls() -> tuple[str, ...]:
    """Every system call name the profile refuses, in the order of :data:`DENIED_FAMILIES`."""
    return tuple(name for family in DENIED_FAMILIES for name in family.syscalls)


def clone_flags_argument(machine: str | None = None) -> int:
    """Which argument of clone(2) holds its flags: the first, but the second on s390."""
    return 1 if (machine or os.uname().machine).startswith("s390") else 0


def _library():
    try:
        import pyseccomp
    except ImportError as exc:
        raise FilterUnavailable("the pyseccomp package is not installed (pip install pyseccomp)") from exc
    except (OSError, RuntimeError) as exc:  # pyseccomp raises RuntimeError when libseccomp is missing
        raise FilterUnavailable(f"libseccomp cannot be loaded ({exc}); install it "
                                "(Debian: apt-get install libseccomp2)") from exc
    return pyseccomp


def _kernel_reason() -> str | None:
    """Why this Linux cannot filter system calls (seccomp mode 2), or None when it can."""
    try:
        with open("/proc/self/status") as status:
            if not any(line.startswith("Seccomp:") for line in status):
                return "this Linux was built without seccomp (CONFIG_SECCOMP_FILTER)"
    except OSError as exc:
        return f"cannot read /proc/self/status ({exc.strerror})"
    return None


@functools.lru_cache(maxsize=1)
def filter_program() -> bytes:
    """The profile as a classic BPF program for this machine's architecture: the raw array of
    ``struct sock_filter`` (8 bytes per instruction, native byte order) that
    ``prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ...)`` loads. Raises :class:`FilterUnavailable`."""
    reason = _kernel_reason()
    if reason is not None:
        raise FilterUnavailable(reason)
    seccomp = _library()
    denied = seccomp.ERRNO(DENIED_ERRNO)
    syscall_filter = seccomp.SyscallFilter(seccomp.ALLOW)
    syscall_filter.set_attr(seccomp.Attr.ACT_BADARCH, denied)
    try:  # a binary tree of system call numbers, not a list: every allowed call pays for fewer checks
        syscall_filter.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    except OSError:
        pass  # libseccomp before 2.5 builds the list only
    for number in syscall_numbers().values():
        syscall_filter.add_rule(denied, number)
    flags_argument = clone_flags_argument()
    for flag in NAMESPACE_CLONE_FLAGS.values():
        syscall_filter.add_rule(denied, "clone", seccomp.Arg(flags_argument, seccomp.MASKED_EQ, flag, flag))
    if seccomp.resolve_syscall(seccomp.Arch.NATIVE, "clone3") >= 0:
        syscall_filter.add_rule(seccomp.ERRNO(CLONE3_ERRNO), "clone3")
    with tempfile.TemporaryFile() as exported:
        syscall_filter.export_bpf(exported)
        exported.seek(0)
        return exported.read()


def syscall_numbers() -> dict[str, int]:
    """Each refused system call that exists on this architecture -> its number here (empty
    without libseccomp), for probes that try them (``doctor_checks.filter_verdict``)."""
    try:
        seccomp = _library()
    except FilterUnavailable:
        return {}
    numbers = {name: seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) for name in denied_syscalls()}
    return {name: number for name, number in numbers.items() if number >= 0}  # negative: not here


def unavailable_reason() -> str | None:
    """Why the kernels here cannot get the filter, or None when :func:`filter_program` works."""
    try:
        filter_program()
    except FilterUnavailable as exc:
        return str(exc)
    except OSError as exc:
        return f"libseccomp could not compile the profile ({exc})"
    return None


def missing_layer() -> dict[str, str]:
    """``{SYSCALL_FILTER: why}`` when the kernels here cannot get the filter, else empty."""
    reason = unavailable_reason()
    return {} if reason is None else {SYSCALL_FILTER: reason}
