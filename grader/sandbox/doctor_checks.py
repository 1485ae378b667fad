"""Attacks run *inside* the sandbox by ``grader doctor``; prints one JSON object of findings.

Standard library only, run as ``python -I -c <this file's text> <JSON arguments>`` (the
grading packages are invisible in the sandbox, so it cannot be imported there). Argument
keys: ``secret_files`` and ``secret_dirs`` (must not be readable), ``forbidden_dirs``
(must not be writable), ``canary_env`` (names that must not be set), ``port`` (a listener
on 127.0.0.1 outside), ``memory_limit``, ``file_size_limit``, ``max_processes`` (ints or
null), ``daemon_marker`` (argv tag of a daemon the doctor looks for afterwards),
``grader_uid_in_own_namespace`` (without root: the kernel may keep the grader's uid),
``syscall_filter_probes`` (system call name -> number on this machine: each must be refused).
Each finding is ``[blocked: bool, detail: str]``.
"""

import errno
import json
import os
import resource
import socket
import subprocess
import sys
import time


def try_read(path):
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as handle:
                handle.read(1)
    except OSError as exc:
        return True, "%s: %s" % (path, errno.errorcode.get(exc.errno, exc.errno))
    return False, "%s is readable" % path


WRITE_MARKER = ".sandbox-doctor-write-test"


def try_write(folder, keep=False):
    """Write a marker file into ``folder``; ``keep`` leaves it for the doctor to look for outside
    (a folder the sandbox made on its own private filesystem is writable, the real one is not)."""
    target = os.path.join(folder, WRITE_MARKER)
    try:
        with open(target, "w") as handle:
            handle.write("x")
    except OSError as exc:
        return True, "%s: %s" % (folder, errno.errorcode.get(exc.errno, exc.errno))
    if not keep:
        os.remove(target)
    return False, "%s is writable" % folder


def try_connect(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(3)
    try:
        sock.connect(("127.0.0.1", port))
    except OSError as exc:
        return True, "connect to 127.0.0.1:%d failed (%s)" % (port, exc.strerror or exc)
    finally:
        sock.close()
    return False, "connected to 127.0.0.1:%d" % port


def try_fork_beyond(limit):
    if limit is None:
        return False, "no process limit configured"
    children = []
    stopped = None
    try:
        for _ in range(limit + 16):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError as exc:
        stopped = exc
    for pid in children:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    if stopped is None:
        return False, "forked %d processes, more than the limit of %d" % (len(children), limit)
    return True, "fork refused after %d children (%s)" % (
        len(children), errno.errorcode.get(stopped.errno, stopped.errno))


def try_allocate(limit):
    if limit is None:
        return False, "no memory limit configured"
    try:
        block = bytearray(limit)
    except MemoryError:
        return True, "allocating %.1f GiB raised MemoryError" % (limit / 2 ** 30)
    del block
    return False, "allocated %.1f GiB, the whole limit" % (limit / 2 ** 30)


def try_write_beyond(limit):
    if limit is None:
        return False, "no file size limit configured"
    path = "sandbox-doctor-big-file"
    try:
        with open(path, "wb") as handle:
            handle.write(b"\0" * (limit + 1))
    except OSError as exc:
        return True, "writing %d MiB failed (%s)" % (
            (limit + 1) // 2 ** 20, errno.errorcode.get(exc.errno, exc.errno))
    finally:
        if os.path.exists(path):
            os.remove(path)
    return False, "wrote a file larger than %d bytes" % limit


def start_daemon(marker):
    code = ("import os, time\n"
            "if os.fork():\n    os._exit(0)\n"
            "os.setsid()\n"
            "if os.fork():\n    os._exit(0)\n"
            "time.sleep(120)\n")
    subprocess.Popen([sys.executable, "-c", code, marker], start_new_session=True).wait()
    return True, "double-forked daemon started"


def _busy(seconds):
    end = time.time() + seconds
    while time.time() < end:
        pass


def try_fork_tree(limit):
    """Fork children that each start a new session, until the control group refuses."""
    children, refused = [], None
    try:
        for _ in range(limit + 16):
            pid = os.fork()
            if pid == 0:
                os.setsid()
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError as exc:
        refused = exc
    for pid in children:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    if refused is None:
        return False, "forked %d processes in new sessions, more than the limit of %d" % (
            len(children), limit)
    return True, "fork refused after %d children in new sessions (%s)" % (
        len(children), errno.errorcode.get(refused.errno, refused.errno))


def try_allocate_across(limit, children=4):
    """``children`` processes each touch limit/3 bytes; the control group must stop them."""
    share = limit // 3
    pids = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            try:
                block = bytearray(share)
                for i in range(0, share, 4096):
                    block[i] = 1
                time.sleep(5)
            finally:
                os._exit(0)
        pids.append(pid)
    killed = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        killed += os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9
    if killed:
        return True, "%d of %d processes touching %d MiB each were killed at the %d MiB limit" % (
            killed, children, share >> 20, limit >> 20)
    return False, "%d processes held %d MiB together" % (children, (share * children) >> 20)


def try_cpu_across(quota, children=3, seconds=2.0):
    """Busy children for ``seconds``: their CPU time shows whether the quota holds."""
    started = time.time()
    pids = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            _busy(seconds)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    wall = time.time() - started
    used = os.times().children_user + os.times().children_system
    return [used, wall]


def try_fill_folder(size_limit, file_limit):
    """Write past the working folder's byte quota, then past its file quota."""
    results = []
    chunk, written = b"x" * 2 ** 20, 0
    os.mkdir("doctor-fill")
    try:  # files of 4 MiB, each below the file size limit, until the folder is full
        for number in range(size_limit // (4 * 2 ** 20) + 3):
            with open(os.path.join("doctor-fill", str(number)), "wb") as handle:
                for _ in range(4):
                    handle.write(chunk)
                    written += 1
        results.append((False, "wrote %d MiB" % written))
    except OSError as exc:
        results.append((True, "writing past %d MiB failed after %d MiB (%s)" % (
            size_limit >> 20, written, errno.errorcode.get(exc.errno, exc.errno))))
    finally:
        for name in os.listdir("doctor-fill"):
            os.remove(os.path.join("doctor-fill", name))
        os.rmdir("doctor-fill")
    made = 0
    try:
        os.mkdir("doctor-files")
        for made in range(file_limit + 16):
            open(os.path.join("doctor-files", str(made)), "w").close()
        results.append((False, "created %d files" % (file_limit + 16)))
    except OSError as exc:
        results.append((True, "file %d of %d refused (%s)" % (
            made, file_limit, errno.errorcode.get(exc.errno, exc.errno))))
    return [all(r[0] for r in results), "; ".join(r[1] for r in results)]


def filter_verdict(number, args=()):
    """The errno system call ``number`` gets from this process's seccomp filter (0: allowed), tried
    for real but never carried out.

    A forked child stacks a filter of its own that answers the call with SECCOMP_RET_TRACE (with no
    tracer attached Linux fails it with ENOSYS, without running it), then makes the call with
    ``args``. Where several filters answer, Linux takes the strongest action and ERRNO outranks
    TRACE: the child sees the installed filter's errno (EPERM) if that filter refuses the call, and
    ENOSYS if it lets it through, whatever the process's privileges would have made of the call.
    Self-contained (the tests run its source in a kernel): standard library only.
    """
    import ctypes
    import struct

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.syscall.restype = ctypes.c_long
    load_number, jump_if_equal, return_value = 0x20, 0x15, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_RET|K
    trace, allow = 0x7FF00000, 0x7FFF0000
    program = b"".join(struct.pack("=HBBI", *instruction) for instruction in (
        (load_number, 0, 0, 0), (jump_if_equal, 0, 1, number),
        (return_value, 0, 0, trace), (return_value, 0, 0, allow)))
    buffer = ctypes.create_string_buffer(program, len(program))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(program) // 8, ctypes.addressof(buffer))
    arguments = [ctypes.c_long(value) for value in args]
    pid = os.fork()
    if pid == 0:
        code = 255
        try:
            libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, needed to add a filter
            if libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) == 0:  # PR_SET_SECCOMP, FILTER
                code = 0 if libc.syscall(number, *arguments) >= 0 else ctypes.get_errno()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def try_syscall_filter(numbers):
    """Whether a seccomp filter is on this process and refuses every call of ``numbers``
    (name -> number) with EPERM."""
    fields = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    mode = fields.get("Seccomp", "none").strip()
    if mode != "2":
        return False, "no system call filter on the kernel (Seccomp: %s)" % mode
    if not numbers:
        return False, "a filter is installed, but no system call was named to probe it"
    let_through = [name for name, number in sorted(numbers.items())
                   if filter_verdict(number) != errno.EPERM]
    if let_through:
        return False, "the filter lets through %s" % ", ".join(let_through)
    return True, "%d system calls refused with EPERM, each tried" % len(numbers)


def tree_main(args):
    """The second probe run: whole-tree limits of the control group and the folder quota."""
    findings = {"tree_processes": try_fork_tree(args["tree_process_limit"]),
                "tree_memory": try_allocate_across(args["tree_memory_limit"]),
                "cpu": try_cpu_across(args["cpu_quota"]),
                "workdir": try_fill_folder(args["workdir_size_limit"], args["workdir_file_limit"])}
    print(json.dumps(findings))


def main():
    args = json.loads(sys.argv[1])
    if args.get("mode") == "tree":
        return tree_main(args)
    findings = {}
    findings["read"] = [try_read(p) for p in args["secret_files"] + args["secret_dirs"]]
    findings["write"] = [try_write(p, keep=True) for p in args["forbidden_dirs"]]
    findings["write_own_folder"] = [not try_write(os.getcwd())[0], os.getcwd()]
    findings["network"] = try_connect(args["port"])
    leaked = [name for name in args["canary_env"] if name in os.environ]
    findings["environment"] = [not leaked, "leaked: %s" % ", ".join(leaked) if leaked else
                               "only %s" % ", ".join(sorted(os.environ))]
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    uid = os.getuid()
    no_new_privs = status.get("NoNewPrivs", "0").strip() == "1"
    capabilities = int(status.get("CapEff", "0").strip() or "0", 16)
    # without root the kernel keeps the grader's uid, in a user namespace of its own
    own_uid = uid != args["grader_uid"] or args.get("grader_uid_in_own_namespace", False)
    findings["user"] = [uid != 0 and own_uid and no_new_privs and not capabilities,
                        "uid %d, capabilities %s, no_new_privs %s" % (
                            uid, "%x" % capabilities if capabilities else "none",
                            "on" if no_new_privs else "off")]
    findings["processes"] = try_fork_beyond(args["max_processes"])
    findings["memory"] = try_allocate(args["memory_limit"])
    findings["file_size"] = try_write_beyond(args["file_size_limit"])
    cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    findings["cpu"] = [cpu == args["cpu_time_limit"], "RLIMIT_CPU %s s" % cpu]
    findings["open_files"] = [files == args["open_files_limit"], "RLIMIT_NOFILE %s" % files]
    findings["syscall_filter"] = try_syscall_filter(args.get("syscall_filter_probes") or {})
    findings["daemon"] = start_daemon(args["daemon_marker"])
    print(json.dumps(findings))


if __name__ == "__main__":
    main()
