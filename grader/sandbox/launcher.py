"""Init process of one sandboxed kernel; runs inside the new namespaces, before the kernel.

Run as ``python -I -S launcher.py SPEC_JSON`` (standard library only: it must work before
any site-packages are set up and must not import the grading packages it hides). The
``SPEC_JSON`` file is written by :mod:`grader.sandbox.run`; its keys are documented in
:func:`main`. Started by ``unshare --mount --net --pid --fork --kill-child`` as root (or, for an
ordinary user, with ``--user --map-root-user`` first: root of a user namespace of the grader's
own, ``grader.sandbox.unprivileged``), this process is PID 1 of a fresh PID namespace and:

1. builds a new root filesystem from an allow-list (system directories and the Python
   prefixes read-only, a private ``/tmp``, home, ``/dev`` and ``/proc``, the working folder and
   the kernel's socket folder read-write), hides configured paths inside it, and pivots
   into it, so nothing else on the machine is visible;
2. forks the kernel, which drops to a private unprivileged user id (without root: enters a user
   namespace of its own as the grader's uid and drops every capability), sets ``no_new_privs``,
   applies the resource limits, joins a session keyring of its own, installs the system call
   filter (``grader.sandbox.seccomp_profile``: compiled by the grading process, passed in the
   spec), closes inherited descriptors and execs with the scrubbed environment;
3. reaps every orphan (without a control group, also holds the memory of the whole tree:
   :func:`hold_memory`), and exits as soon as the kernel exits, the grading process goes
   away (its pipe reaches end of file) or SIGTERM arrives. As PID 1 its exit makes the
   kernel kill every remaining process of the namespace; without a PID namespace it kills
   the remaining descendants itself.

Any step that fails is recorded in the report file; if the spec says ``required`` the
kernel is not started at all.
"""

import base64
import ctypes
import errno
import json
import os
import resource
import select
import signal
import sys
import time

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_RELATIME = 1 << 21
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER = 0x10000000
CAPABILITY_VERSION_3 = 0x20080522
CAPSET_SYSCALL = {"x86_64": 126, "aarch64": 91, "riscv64": 91, "ppc64le": 184, "s390x": 185,
                  "i686": 185, "armv7l": 185}

# pivot_root(2) has no libc wrapper; its number depends on the architecture.
PIVOT_ROOT_SYSCALL = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203,
                      "s390x": 217, "i686": 217, "armv7l": 218}
# keyctl(2) has no libc wrapper either (libkeyutils has one).
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "ppc64le": 271,
                  "s390x": 280, "i686": 288, "armv7l": 311}
KEYCTL_JOIN_SESSION_KEYRING = 1
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
# Files of the sandbox's /proc masked like hidden paths: the key store lists keys and, per uid
# of the whole machine, how many keys it holds.
PROC_HIDDEN = ("keys", "key-users")

RLIMITS = {
    "address_space": "RLIMIT_AS",
    "processes": "RLIMIT_NPROC",
    "cpu_seconds": "RLIMIT_CPU",
    "file_size": "RLIMIT_FSIZE",
    "open_files": "RLIMIT_NOFILE",
    "core_size": "RLIMIT_CORE",
}

EXIT_SETUP_FAILED = 70
MEMORY_WATCH_SECONDS = 0.05  # how often the memory of a sandbox without a control group is summed
MEMORY_HELD = "its processes together passed the memory limit"  # logged when hold_memory kills

# How the prepared child becomes the kernel: ``execve``; a kernel forked from an already imported
# zygote (``zygote.py``) replaces this with running that kernel in-process.
exec_kernel = os.execve

# How this script appears in process listings (its path ends with this).
LAUNCHER_NAME = os.path.join("sandbox", "launcher.py")

_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.c_ulong, ctypes.c_char_p]
        _libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
        _libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                                ctypes.c_ulong, ctypes.c_ulong]
    return _libc


def _bytes(value):
    return None if value is None else os.fsencode(value)


def _check(result, what):
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, "%s: %s" % (what, os.strerror(code)))


def mount(source, target, fstype, flags, data=None):
    _check(libc().mount(_bytes(source), _bytes(target), _bytes(fstype), flags, _bytes(data)),
           "mount %s on %s" % (source or fstype, target))


def prctl(option, arg):
    _check(libc().prctl(option, arg, 0, 0, 0), "prctl(%d)" % option)


def pivot_root(new_root, put_old):
    number = PIVOT_ROOT_SYSCALL.get(os.uname().machine)
    if number is None:
        raise OSError(errno.ENOSYS, "pivot_root: unknown system call number on %s"
                      % os.uname().machine)
    _check(libc().syscall(number, _bytes(new_root), _bytes(put_old)), "pivot_root")


def map_ids(inside_uid, outside_uid, inside_gid, outside_gid):
    """Map one uid and one gid of a user namespace this process has just created (unshare(2)
    with CLONE_NEWUSER) onto its ids in the parent namespace; an unprivileged process may map
    exactly its own ids, once, and only after giving up setgroups(2)."""
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (inside_uid, outside_uid)),
                       ("gid_map", "%d %d 1" % (inside_gid, outside_gid))):
        with open("/proc/self/" + name, "w") as handle:
            handle.write(text)


def enter_own_user_namespace():
    """Become the grader's own uid and gid in a user namespace of its own, below the launcher's.

    Used without root: the launcher is root of the sandbox's user namespace (uid 0 there is the
    grader's uid outside) and holds every capability over the sandbox's mounts; the kernel gets
    a namespace of its own where it is an ordinary user, so it has no capability over anything
    the launcher built, cannot reach the launcher or any process outside (ptrace and /proc/PID
    checks demand capabilities in their user namespace) and counts its processes apart from
    every other sandbox (RLIMIT_NPROC is counted per user namespace and uid).
    """
    uid, gid = _outside_ids()
    _check(libc().unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    map_ids(uid, 0, gid, 0)


def _outside_ids():
    """The grader's uid and gid outside, as this namespace's root sees them in /proc/self."""
    with open("/proc/self/uid_map") as uid_map, open("/proc/self/gid_map") as gid_map:
        uid = int(uid_map.read().split()[1])
        gid = int(gid_map.read().split()[1])
    return uid, gid


def join_own_session_keyring():
    """Replace the inherited session keyring (the grader's) with a new empty one of this process's
    uid, so nothing the grader's keyrings hold is possessed by the kernel. A Linux without keys
    (ENOSYS) has nothing to hide."""
    number = KEYCTL_SYSCALL.get(os.uname().machine)
    if number is None:
        raise OSError(errno.ENOSYS, "keyctl: unknown system call number on %s" % os.uname().machine)
    if libc().syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        code = ctypes.get_errno()
        if code != errno.ENOSYS:
            raise OSError(code, "joining a session keyring of its own: %s" % os.strerror(code))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_syscall_filter(program):
    """Load the classic BPF ``program`` (bytes: ``struct sock_filter`` entries of 8 bytes) as this
    process's seccomp filter; it needs ``no_new_privs`` (or CAP_SYS_ADMIN) and binds this process
    and everything it starts from now on."""
    if not program or len(program) % 8:
        raise ValueError("a seccomp filter is a non-empty array of 8-byte instructions, got %d bytes"
                         % len(program))
    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(instructions))
    _check(libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0),
           "installing the system call filter")


def drop_capabilities():
    """Clear this process's effective, permitted and inheritable capabilities (capset(2))."""
    number = CAPSET_SYSCALL.get(os.uname().machine)
    if number is None:
        raise OSError(errno.ENOSYS, "capset: unknown system call number on %s" % os.uname().machine)
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(libc().syscall(number, header, data), "capset")


# ----------------------------------------------------------------------------- processes

def _proc_status_fields(pid):
    """Parent pid and real uid of a process from /proc, or None if it has gone."""
    try:
        with open("/proc/%d/status" % pid, "rb") as status:
            text = status.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.split()
    try:
        return int(fields["PPid"][0]), int(fields["Uid"][0])
    except (KeyError, IndexError, ValueError):
        return None


def all_pids():
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def processes_with_marker(marker: str) -> list[int]:
    """The pids whose command line contains ``marker`` (a process that vanishes meanwhile is skipped)."""
    found = []
    for pid in all_pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def kill_until_gone(select_pids, deadline_seconds):
    """SIGSTOP then SIGKILL every pid that ``select_pids()`` returns until none is left.

    Stopping first keeps a process that is busy forking from outrunning the sweep.
    Returns the number of pids still present when the deadline passed (0 on success).
    """
    deadline = time.monotonic() + deadline_seconds
    me = os.getpid()
    while True:
        pids = [pid for pid in select_pids() if pid != me]
        if not pids:
            return 0
        if time.monotonic() > deadline:
            return len(pids)
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        time.sleep(0.005)


def kill_processes_of_uid(uid, deadline_seconds=5.0):
    """Kill every process whose real uid is ``uid``; returns how many survived (0 normally).

    Used with the private uid of one sandbox, so nothing else is touched. The caller must
    be allowed to signal those processes (root).
    """
    def select_pids():
        found = []
        for pid in all_pids():
            fields = _proc_status_fields(pid)
            if fields is not None and fields[1] == uid:
                found.append(pid)
        return found
    return kill_until_gone(select_pids, deadline_seconds)


def kill_descendants(root_pid, deadline_seconds=5.0):
    """Kill every live descendant of ``root_pid`` (found through /proc parent links)."""
    def select_pids():
        children = {}
        for pid in all_pids():
            fields = _proc_status_fields(pid)
            if fields is not None:
                children.setdefault(fields[0], []).append(pid)
        found, stack = [], [root_pid]
        while stack:
            for child in children.get(stack.pop(), []):
                found.append(child)
                stack.append(child)
        return found
    return kill_until_gone(select_pids, deadline_seconds)


# ---------------------------------------------------------------------------- filesystem

def _unescape_mountinfo(field):
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 3 < len(field) and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def _mount_points_under(target):
    points = []
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            point = _unescape_mountinfo(line.split()[4])
            if point == target or point.startswith(target.rstrip("/") + "/"):
                points.append(point)
    return points


def _kept_flags(path):
    """Mount flags of ``path`` that a read-only remount must keep (atime and noexec)."""
    flags = os.statvfs(path).f_flag
    kept = 0
    for st_flag, ms_flag in ((os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
                             (os.ST_NODIRATIME, MS_NODIRATIME),
                             (getattr(os, "ST_RELATIME", 4096), MS_RELATIME)):
        if flags & st_flag:
            kept |= ms_flag
    return kept


def bind_readonly(source, target):
    """Bind ``source`` (and the mounts below it) read-only, nosuid and nodev at ``target``."""
    mount(source, target, None, MS_BIND | MS_REC)
    for point in _mount_points_under(target):
        mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
              | _kept_flags(point))


def bind_writable(source, target):
    mount(source, target, None, MS_BIND)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | MS_NOEXEC
          | _kept_flags(target))


def copy_into(source, target, left_out):
    """Copy the regular files and folders of ``source`` into the folder ``target`` (links and
    special files are not copied; neither are the top-level names in ``left_out``)."""
    for entry in os.scandir(source):
        if entry.name in left_out:
            continue
        inside = os.path.join(target, entry.name)
        if entry.is_dir(follow_symlinks=False):
            os.mkdir(inside, 0o700)
            copy_into(entry.path, inside, ())
        elif entry.is_file(follow_symlinks=False):
            with open(entry.path, "rb") as src, open(inside, "xb") as dst:
                while True:
                    chunk = src.read(1 << 20)
                    if not chunk:
                        break
                    dst.write(chunk)


def make_dirs(path, mode=0o755):
    """mkdir -p with ``mode`` for every created level (umask ignored)."""
    missing = []
    while not os.path.lexists(path):
        missing.append(path)
        path = os.path.dirname(path)
    for level in reversed(missing):
        os.mkdir(level)
        os.chmod(level, mode)


def _inside(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _make_mount_target(inside, source):
    if os.path.isdir(source) and not os.path.islink(source):
        make_dirs(inside)
    else:
        make_dirs(os.path.dirname(inside))
        if not os.path.lexists(inside):
            with open(inside, "w"):
                pass


def build_root(spec):
    """Create the sandbox's root filesystem under ``spec['new_root']`` and pivot into it."""
    root = spec["new_root"]
    uid, gid = spec.get("uid"), spec.get("gid")
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")

    visible = []
    for path in spec["system_paths"]:
        inside = root + path
        if os.path.islink(path):
            make_dirs(os.path.dirname(inside))
            os.symlink(os.readlink(path), inside)
            visible.append(path)
        elif os.path.isdir(path):
            make_dirs(inside)
            bind_readonly(path, inside)
            visible.append(path)
    make_dirs(root + "/proc")
    if spec["pid_namespace"]:
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    else:
        mount("/proc", root + "/proc", None, MS_BIND | MS_REC)

    make_dirs(root + "/dev")
    mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for device in ("null", "zero", "full", "random", "urandom"):
        if os.path.exists("/dev/" + device):
            open(root + "/dev/" + device, "w").close()
            mount("/dev/" + device, root + "/dev/" + device, None, MS_BIND)
    for name, link in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                       ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(link, root + "/dev/" + name)
    files = ",nr_inodes=%d" % spec["max_files"] if spec.get("max_files") else ""
    scratch = "mode=1777,size=%d%s" % (spec["tmp_size"], files)
    make_dirs(root + "/dev/shm")
    mount("tmpfs", root + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, scratch)
    make_dirs(root + "/tmp")
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, scratch)

    # after /tmp, so that readable paths under /tmp are not covered by it
    for path in spec["readonly_paths"]:
        source = os.path.realpath(path)
        if _inside(path, visible) or not os.path.exists(source):
            continue
        _make_mount_target(root + path, source)
        bind_readonly(source, root + path)
        visible.append(path)

    hidden_file = root + "/.hidden"
    open(hidden_file, "w").close()
    os.chmod(hidden_file, 0)
    for name in PROC_HIDDEN:
        if os.path.exists(root + "/proc/" + name):
            mount(hidden_file, root + "/proc/" + name, None, MS_BIND)
    for path in spec["hidden_paths"]:
        inside = root + path
        if not _inside(path, visible) or not os.path.lexists(inside):
            continue
        if os.path.isdir(inside) and not os.path.islink(inside):
            mount("tmpfs", inside, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "mode=0000,size=4k")
        elif not os.path.islink(inside):
            mount(hidden_file, inside, None, MS_BIND)
            mount(None, inside, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(inside))

    home = root + spec["sandbox_home"]
    make_dirs(home)
    owner = ",uid=%d,gid=%d" % (uid, gid) if uid is not None else ""
    mount("tmpfs", home, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
          "mode=0700,size=%d%s%s" % (spec["tmp_size"], files, owner))

    # last, so that nothing mounted above can cover them
    # the working folder's own size-limited filesystem, when the grader made one
    sources = {spec["ipc_dir"]: spec["ipc_dir"],
               spec["workdir"]: spec.get("workdir_source") or spec["workdir"]}
    quota = spec.get("workdir_tmpfs")
    for path, source in sources.items():
        make_dirs(root + path)
        if path == spec["workdir"] and quota:
            # without root the grader cannot mount the working folder's own filesystem: the
            # launcher mounts it here and copies the folder in (nothing is copied back)
            mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "mode=0700,size=%d,nr_inodes=%d" % (quota["size"], quota["files"]))
            copy_into(source, root + path, set(spec.get("workdir_hidden", ())))
        else:
            bind_writable(source, root + path)
    for name in spec.get("workdir_hidden", ()):
        inside = os.path.join(root + spec["workdir"], name)
        if os.path.isfile(inside) and not os.path.islink(inside):
            mount(hidden_file, inside, None, MS_BIND)
            mount(None, inside, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(inside))

    old = root + "/.old-root"
    os.mkdir(old)
    pivot_root(root, old)
    os.chdir("/")
    _check(libc().umount2(b"/.old-root", MNT_DETACH), "umount old root")
    os.rmdir("/.old-root")
    mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755")


# ------------------------------------------------------------------------------- kernel

def _child_setup_and_exec(spec, env, error_pipe):
    """In the forked child: reset signals, drop privileges, apply limits, exec the kernel."""
    try:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE,
                    signal.SIGXFSZ, signal.SIGXCPU, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        uid, gid = spec.get("uid"), spec.get("gid")
        if uid is not None:
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
        if spec.get("own_user_namespace"):
            enter_own_user_namespace()
            drop_capabilities()
        if sys.platform.startswith("linux"):
            prctl(PR_SET_NO_NEW_PRIVS, 1)
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        for name, value in spec["limits"].items():
            if value is None:
                continue
            which = getattr(resource, RLIMITS[name])
            soft = hard = value
            if name == "cpu_seconds":
                hard = value + 5  # SIGXCPU first; SIGKILL if it is ignored
            resource.setrlimit(which, (soft, hard))
        os.chdir(spec["workdir"])
        if sys.platform.startswith("linux"):
            join_own_session_keyring()
        if spec.get("syscall_filter"):  # last: the filter refuses calls the steps above make
            install_syscall_filter(base64.b64decode(spec["syscall_filter"]))
        os.closerange(3, error_pipe)
        os.closerange(error_pipe + 1, 65536)
        exec_kernel(spec["command"][0], spec["command"], env)
    except BaseException as exc:  # report whatever stopped the exec, then die
        try:
            os.write(error_pipe, ("%s: %s" % (type(exc).__name__, exc)).encode()[:4000])
        finally:
            os._exit(EXIT_SETUP_FAILED)


def start_kernel(spec, env):
    """Fork and exec the kernel; returns its pid or raises OSError with the child's reason."""
    read_end, write_end = os.pipe()  # both close-on-exec
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child_setup_and_exec(spec, env, write_end)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    if chunks:
        os.waitpid(pid, 0)
        raise OSError(errno.ECHILD, "kernel could not start: "
                      + b"".join(chunks).decode(errors="replace"))
    return pid


def _exit_status(wait_status):
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


def resident_bytes():
    """pid -> proportional resident memory (PSS: pages shared with others, such as a forked
    parent's, count by their share) in bytes of every process this one sees in /proc (in a PID
    namespace of its own: the whole sandbox). Their sum is the memory the sandbox holds."""
    sizes = {}
    for pid in all_pids():
        try:
            with open("/proc/%d/smaps_rollup" % pid, "rb") as rollup:
                for line in rollup:
                    if line.startswith(b"Pss:"):
                        sizes[pid] = int(line.split()[1]) * 1024
                        break
        except (OSError, IndexError, ValueError):
            pass
    return sizes


def hold_memory(limit):
    """While the sandbox's processes together hold more than ``limit`` bytes, SIGKILL the largest
    (as the kernel's out-of-memory killer does in a control group); how many were killed."""
    killed = 0
    while True:
        sizes = resident_bytes()
        sizes.pop(os.getpid(), None)
        if not sizes or sum(sizes.values()) <= limit:
            return killed
        largest = max(sizes, key=sizes.get)
        try:
            os.kill(largest, signal.SIGKILL)
        except OSError:
            pass
        deadline = time.monotonic() + 2.0
        while resident_bytes().get(largest) and time.monotonic() < deadline:
            time.sleep(0.005)  # until its memory is freed (left a zombie for its parent to reap)
        killed += 1
        os.write(2, b"sandbox: %s of %d MiB; killed the largest (pid %d, %d MiB)\n"
                 % (MEMORY_HELD.encode(), limit >> 20, largest, sizes[largest] >> 20))


def supervise(kernel_pid, grader_fd, pid_namespace, watched_memory=None):
    """Reap children until the kernel exits, the grader goes away or SIGTERM arrives.

    ``watched_memory`` (bytes, or None): where no control group bounds the sandbox, the
    resident memory of all its processes is summed every ``MEMORY_WATCH_SECONDS`` and every
    process is killed once it passes this (an allocation faster than that can overshoot
    before it is seen; each process stays bounded by its own RLIMIT_AS).
    Returns the exit status to leave with (the kernel's, or 128 + signal).
    """
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(signal.SIGTERM))
    watched = [wake_read] + ([grader_fd] if grader_fd is not None else [])
    status = None
    while status is None and not stop:
        while True:
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid == 0:
                break
            if pid == kernel_pid:
                status = _exit_status(wait_status)
        if status is not None or stop:
            break
        ready, _, _ = select.select(watched, [], [], MEMORY_WATCH_SECONDS if watched_memory else 1.0)
        if watched_memory:
            hold_memory(watched_memory)
        if wake_read in ready:
            os.read(wake_read, 4096)
        if grader_fd is not None and grader_fd in ready and not os.read(grader_fd, 1):
            stop.append("grader exited")
    if status is None:
        status = 128 + signal.SIGKILL
    if not pid_namespace:
        kill_descendants(os.getpid())
    return status


# --------------------------------------------------------------------------------- main

def write_report(dir_fd, report):
    data = json.dumps(report).encode()
    fd = os.open("report.json.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600,
                 dir_fd=dir_fd)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.rename("report.json.tmp", "report.json", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def main(argv):
    """Build the sandbox described by the JSON file ``argv[1]`` and run its kernel.

    Spec keys: ``command`` (argv, absolute executable), ``env`` (complete environment),
    ``workdir``, ``ipc_dir``, ``run_dir`` (where ``report.json`` is written), ``new_root``,
    ``mount_namespace``, ``pid_namespace`` (bools), ``system_paths``, ``readonly_paths``,
    ``hidden_paths`` (absolute paths), ``workdir_hidden`` (file names in the working folder
    to hide, e.g. the notebook being graded), ``sandbox_home``, ``tmp_size`` (bytes), ``uid``,
    ``gid`` (ints or null), ``limits`` (name -> int or null, see ``RLIMITS``), ``required``
    (bool), ``grader_fd`` (int or null), ``fallback_home``, ``fallback_tmp``, ``max_files``
    (inodes of each private tmpfs), ``workdir_source`` (the folder bound at ``workdir``: its
    size-limited filesystem, or null), ``cgroup_procs`` (``cgroup.procs`` files this process
    enters first, so that everything it starts stays in the sandbox's control group),
    ``own_user_namespace`` (bool: the kernel enters a user namespace of its own, without root),
    ``workdir_tmpfs`` (``{"size": bytes, "files": inodes}``: mount the working folder as a tmpfs
    filled with a copy of ``workdir``, without root; or null), ``watched_memory`` (bytes the
    whole tree may hold, watched by :func:`hold_memory`, or null), ``syscall_filter`` (the
    kernel's seccomp filter, a BPF program in base64, :func:`install_syscall_filter`; or null).
    """
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)  # interrupts are meant for the kernel
    with open(argv[1]) as spec_file:
        spec = json.load(spec_file)
    run_fd = os.open(spec["run_dir"], os.O_RDONLY | os.O_DIRECTORY)
    grader_fd = spec.get("grader_fd")
    if grader_fd is not None:
        os.set_inheritable(grader_fd, False)
    warnings, layers = [], {"filesystem": False, "cgroup": False}
    env = dict(spec["env"])

    # First of all, before anything of the kernel exists: enter the sandbox's control group.
    try:
        for procs in spec.get("cgroup_procs") or ():
            with open(procs, "w") as handle:
                handle.write("0")
        layers["cgroup"] = bool(spec.get("cgroup_procs"))
    except OSError as exc:
        warnings.append("could not enter the control group (%s)" % exc)
        if spec["required"]:
            write_report(run_fd, {"status": "failed", "error": warnings[-1]})
            return EXIT_SETUP_FAILED

    if spec["mount_namespace"]:
        try:
            build_root(spec)
            layers["filesystem"] = True
        except OSError as exc:
            warnings.append("filesystem isolation could not be set up (%s)" % exc)
    if not layers["filesystem"]:
        spec["workdir"] = spec.get("workdir_source") or spec["workdir"]
        env["HOME"] = spec["fallback_home"]
        env["TMPDIR"] = spec["fallback_tmp"]
        if spec["required"]:
            write_report(run_fd, {"status": "failed", "error": warnings[-1] if warnings
                                  else "filesystem isolation is unavailable"})
            return EXIT_SETUP_FAILED
    if not spec["pid_namespace"] and sys.platform.startswith("linux"):
        try:
            prctl(PR_SET_CHILD_SUBREAPER, 1)
        except OSError as exc:
            warnings.append("cannot adopt orphaned processes (%s)" % exc)

    try:
        kernel_pid = start_kernel(spec, env)
    except OSError as exc:
        write_report(run_fd, {"status": "failed", "error": str(exc)})
        return EXIT_SETUP_FAILED
    write_report(run_fd, {"status": "ready", "layers": layers, "warnings": warnings})
    os.close(run_fd)
    return supervise(kernel_pid, grader_fd, spec["pid_namespace"], spec.get("watched_memory"))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
