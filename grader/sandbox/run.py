"""One sandboxed process from preparation to teardown (used by the kernel manager and the doctor).

Life cycle::

    run = SandboxRun(limits, workdir, course_root=...)
    run.prepare()                       # private run folder, socket folder, uid, ownership
    argv = run.wrap(command)            # unshare ... python launcher.py spec.json
    process = Popen(argv, env=run.env, pass_fds=run.pass_fds, cwd=workdir, ...)
    run.wait_until_ready(process.poll)  # the launcher's report; SandboxError if it failed
    ...
    run.cleanup()                       # kill leftovers, restore ownership, free the uid

The run folder (``<tempdir>/sal-XXXXXX``; others may pass through it but not list it)
holds the launcher's spec and report (readable by root only) and the kernel's log; only
its ``ipc`` subfolder (the kernel's sockets and connection file, owned by the sandbox
user) is visible inside the sandbox.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import stat
import sys
import tempfile
import time

from grader import formats
from grader.course_folders import AUTOGRADED, FEEDBACK, SOURCE, SUBMITTED
from grader.state_folders import STATE_DIR_NAME

from . import layers as L
from . import leftovers, seccomp_profile, unprivileged, workdir_quota
from .cgroups import CgroupLimits, CgroupUnavailable, SandboxCgroup
from .cgroups import support as cgroup_support
from .launcher import kill_processes_of_uid
from .leftover_budget import LeftoverBudget
from .leftovers import make_mode_safe
from .limits import HIDDEN_PACKAGES, SYSTEM_PATHS, SandboxError, SandboxLimits, package_dirs, python_prefixes
from .limits import STUDENT_PACKAGES
from .uid_slots import UidSlot, reserve_uid

LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launcher.py")
SANDBOX_HOME = "/home/student"
SANDBOX_TMP = "/tmp"
# Entries of a course directory that a kernel working inside it must never contain.
COURSE_SECRETS = (SOURCE, SUBMITTED, AUTOGRADED, FEEDBACK, "gradebook.db",
                  "nbgrader_config.py", "solutions", "grader", STATE_DIR_NAME)
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")

log = logging.getLogger(__name__)


def student_package_folders() -> list[str]:
    """The folders holding the course's packages that notebooks import (``STUDENT_PACKAGES``), as
    this process finds them (the course folder, ``grader.course_imports``): the kernel's import
    path for them. The kernel sees only the packages themselves (``readonly_paths``)."""
    return sorted({os.path.dirname(path) for path in package_dirs(STUDENT_PACKAGES)})


_warned_layers: set[str] = set()


def warn_missing_layers(missing: dict[str, str], logger: logging.Logger | None = None) -> None:
    """Log one plain warning per unavailable layer, once per grading process."""
    for layer, reason in missing.items():
        if layer not in _warned_layers:
            _warned_layers.add(layer)
            (logger or log).warning("Sandbox layer '%s' is unavailable (%s); grading continues "
                                    "without it.", layer, reason)


def warn_weaker_layers(weaker: dict[str, str], logger: logging.Logger | None = None) -> None:
    """Log once per grading process each layer that this sandbox provides in a weaker form."""
    for layer, how in weaker.items():
        if f"weaker {layer}" not in _warned_layers:
            _warned_layers.add(f"weaker {layer}")
            (logger or log).warning("Sandbox layer '%s' is weaker without root: %s.", layer, how)


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _first_unreachable(files: list[str], folders: list[str]) -> str | None:
    """The first of ``folders`` (need search) or ``files`` (need read and execute) that a
    user with no relation to their owners cannot reach, or None if all are reachable."""
    def others_may(path: str, bits: int) -> bool:
        return os.stat(path).st_mode & bits == bits

    for path, final_bits in [(d, stat.S_IXOTH) for d in folders] + [
            (f, stat.S_IROTH | stat.S_IXOTH) for f in files]:
        folder = os.path.dirname(path)
        while folder not in ("/", ""):
            if not others_may(folder, stat.S_IXOTH):
                return folder
            folder = os.path.dirname(folder)
        if not others_may(path, final_bits):
            return path
    return None


class SandboxRun:
    """Preparation, launch command and teardown of one sandboxed process.

    ``workdir`` is the only folder the process may write (besides a private /tmp);
    ``course_root`` is hidden even where it lies inside a readable directory;
    ``workdir_hidden`` names files in ``workdir`` to hide (the notebook being graded,
    which holds the hidden test cells after nbgrader's sanitizing step).
    """

    def __init__(self, limits: SandboxLimits, workdir: str | None,
                 course_root: str | None = None, logger: logging.Logger | None = None,
                 workdir_hidden: tuple[str, ...] = ()):
        if workdir is not None and not os.path.isdir(workdir):
            raise SandboxError(f"working folder {workdir!r} does not exist; the sandbox can "
                               "only run a notebook inside an existing folder")
        self.limits = limits
        # None: an empty private folder is created by prepare()
        self.workdir = os.path.realpath(workdir) if workdir is not None else None
        self.course_root = os.path.realpath(course_root) if course_root else None
        for name in workdir_hidden:
            if os.path.basename(name) != name or name in ("", ".", ".."):
                raise ValueError(f"workdir_hidden entries are plain file names, got {name!r}")
        self.workdir_hidden = tuple(workdir_hidden)
        self.log = logger or log
        self.support = L.detect_layers()
        self.run_dir: str | None = None
        self.ipc_dir: str | None = None
        self.uid_slot: UidSlot | None = None
        self.report: dict | None = None
        self.env: dict[str, str] = {}
        self._pipe_write: int | None = None
        self._pipe_read: int | None = None
        self._owners: dict[str, tuple[int, int]] = {}
        self._log_fd: int | None = None
        self._lock_fd: int | None = None
        self.disabled: dict[str, str] = {}  # layers this run had to do without, and why
        self.cgroup: SandboxCgroup | None = None
        self.quota_dir: str | None = None  # the working folder's own filesystem, when there is one
        self._quota_mounted = False
        self._kernel_wrapped = False
        # what the page says about files the notebook left that were not kept, after cleanup()
        self.leftover_note: str | None = None

    # ------------------------------------------------------------------ preparation
    @property
    def uid(self) -> int | None:
        return self.uid_slot.uid if self.uid_slot else None

    @property
    def missing_layers(self) -> dict[str, str]:
        """Layers that are not protecting this run, with the reason (after the report)."""
        missing = {**self.support.missing, **self.disabled}
        if self.report and self.cgroup is not None and not self.report.get("layers", {}).get("cgroup"):
            missing.setdefault(L.CGROUPS, "the launcher could not enter its control group")
        if self.report and not self.report.get("layers", {}).get("filesystem", False):
            missing.setdefault(L.FILESYSTEM, "; ".join(self.report.get("warnings", []))
                               or "the launcher could not build the private filesystem")
        return missing

    def protected_paths(self) -> list[str]:
        """Paths the kernel must never read: grading packages, course secrets, extras."""
        paths = list(self.limits.hidden_paths) + package_dirs(HIDDEN_PACKAGES)
        if self.course_root:
            paths += [os.path.join(self.course_root, name) for name in COURSE_SECRETS
                      if os.path.lexists(os.path.join(self.course_root, name))]
        return [os.path.realpath(p) for p in paths]

    def hidden_paths(self) -> list[str]:
        """Paths masked inside readable directories: the protected ones and the course root."""
        paths = self.protected_paths()
        if self.course_root:
            paths.append(self.course_root)
        return paths

    def _check_workdir(self) -> None:
        if self.workdir == "/":
            raise SandboxError("refusing to run a sandboxed kernel with the filesystem root "
                               "as its working folder")
        for hidden in self.protected_paths():
            if _is_within(hidden, self.workdir):
                raise SandboxError(
                    f"refusing to run a sandboxed kernel in {self.workdir!r}: that folder "
                    f"contains {hidden!r}, which students must not read; grade a copy of "
                    "the notebook in its own folder (nbgrader uses autograded/<student>/<id>)")

    def prepare(self) -> None:
        """Create the run folder, reserve a uid and hand the working folder to it."""
        if self.limits.require_sandbox and self.support.missing:
            details = "; ".join(f"{k}: {v}" for k, v in self.support.missing.items())
            raise SandboxError(f"the sandbox is required but these layers are unavailable: "
                               f"{details}. Run the grader as root on Linux with util-linux, "
                               "or set SandboxedExecute.require_sandbox = False to grade "
                               "with the layers that work.")
        warn_missing_layers(self.support.missing, self.log)
        warn_weaker_layers(self.support.weaker, self.log)
        if self.workdir is not None:
            self._check_workdir()
        leftovers.sweep_once(self.log)  # what a killed grader left behind
        self.run_dir = os.path.realpath(tempfile.mkdtemp(prefix=leftovers.RUN_PREFIX))
        os.chmod(self.run_dir, 0o711)  # traversable, so fallback folders work without mounts
        self._lock_fd = leftovers.hold_lock(self.run_dir)
        self.ipc_dir = os.path.join(self.run_dir, "ipc")
        os.mkdir(self.ipc_dir, 0o700)
        for name in ("root", "home", "tmp"):
            os.mkdir(os.path.join(self.run_dir, name), 0o700)
        if self.workdir is None:
            self.workdir = os.path.join(self.run_dir, "work")
            os.mkdir(self.workdir, 0o700)
        if self.support.as_root and self.support.available(L.PRIVATE_USER):
            self.uid_slot = reserve_uid(self.limits.uid_base, self.limits.uid_count)
            for name in ("ipc", "home", "tmp"):
                os.chown(os.path.join(self.run_dir, name), self.uid, self.uid)
        name = os.path.basename(self.run_dir)
        planned_cgroup = ({"name": name, "version": cgroup_support().version,
                           "paths": SandboxCgroup.planned_paths(name)}
                          if self.support.available(L.CGROUPS) and cgroup_support().available else None)
        if self.uid is not None and self.support.available(L.WORKDIR_QUOTA):
            self.quota_dir = os.path.join(self.run_dir, "work-quota")
            os.mkdir(self.quota_dir, 0o700)
        # written before the control group and the mount exist: a killed grader's next run
        # finds them through it (grader.sandbox.leftovers)
        leftovers.write_record(self.run_dir, {"uid": self.uid, "workdir": self.workdir,
                                              "cgroup": planned_cgroup,
                                              "workdir_mount": self.quota_dir})
        if planned_cgroup is not None:
            self._create_cgroup(name)
        if self.quota_dir is not None:
            workdir_quota.mount_quota(self.quota_dir, self.limits.workdir_size_limit,
                                      self.limits.workdir_file_limit, self.uid)
            self._quota_mounted = True
            workdir_quota.fill(self.quota_dir, self.workdir, self.workdir_hidden, self.uid)
        elif self.uid is not None:
            self._hand_over_workdir()
        self._pipe_read, self._pipe_write = os.pipe()

    def _create_cgroup(self, name: str) -> None:
        p = self.limits
        limits = CgroupLimits(memory_bytes=p.tree_memory_limit, processes=p.tree_process_limit,
                              cpu_weight=p.cpu_weight, cpu_quota=p.cpu_quota)
        try:
            self.cgroup = SandboxCgroup.create(name, limits)
        except CgroupUnavailable as exc:
            if p.require_sandbox:
                raise SandboxError(f"the sandbox is required but its control group failed: {exc}")
            self.disabled[L.CGROUPS] = str(exc)
            warn_missing_layers({L.CGROUPS: str(exc)}, self.log)

    def attach(self, pid: int) -> None:
        """Put process ``pid`` (a kernel started some other way, e.g. forked by a zygote) into
        this sandbox's control group, before it runs student code. The launcher attaches itself."""
        if self.cgroup is not None:
            self.cgroup.attach(pid)

    def grant(self, path: str) -> None:
        """Let the sandbox user read a file the grader wrote (the connection file)."""
        if self.uid is not None:
            os.chown(path, self.uid, self.uid)

    def _hand_over_workdir(self) -> None:
        for path in self._tree(self.workdir):
            info = os.lstat(path)
            self._owners[path] = (info.st_uid, info.st_gid)
            os.chown(path, self.uid, self.uid, follow_symlinks=False)

    @staticmethod
    def _tree(top: str):
        yield top
        for folder, dirs, files in os.walk(top, followlinks=False):
            for name in dirs + files:
                yield os.path.join(folder, name)

    # ---------------------------------------------------------------------- launch
    def _environment(self, executable: str) -> dict[str, str]:
        env = {
            "PATH": os.pathsep.join([os.path.dirname(executable), "/usr/local/bin",
                                     "/usr/bin", "/bin"]),
            "HOME": SANDBOX_HOME,
            "TMPDIR": SANDBOX_TMP,
            "LANG": "C.UTF-8",
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "PYTHONNOUSERSITE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.update({name: "1" for name in THREAD_VARIABLES})
        student_folders = student_package_folders()
        if student_folders:  # the course's packages notebooks import (course_numbers), where this process finds them
            env["PYTHONPATH"] = os.pathsep.join(student_folders)
        env.update(dict(self.limits.sandbox_env))
        return env

    def _limits(self) -> dict[str, int | None]:
        p = self.limits
        return {
            "address_space": p.memory_limit,
            "processes": self._process_limit(),
            "cpu_seconds": p.cpu_time_limit,
            "file_size": p.file_size_limit,
            "open_files": p.open_files_limit,
            "core_size": 0,
        }

    def _process_limit(self) -> int | None:
        """RLIMIT_NPROC of the kernel: as root, of its private uid; in a user namespace, of the
        sandbox's own namespace, where it also stands in for the control group's task limit."""
        p = self.limits
        if self.uid is not None:
            return p.max_processes
        if self.support.as_root or not self.support.available(L.PRIVATE_USER) or p.max_processes is None:
            return None
        limit = p.max_processes
        if self.cgroup is None and p.tree_process_limit is not None:
            limit = min(limit, p.tree_process_limit)
        if not unprivileged.counts_processes_per_namespace():
            limit += unprivileged.processes_of_this_uid()
        return limit

    def _in_user_namespace(self, layer: str) -> bool:
        """Whether ``layer`` is built inside the sandbox's user namespace (no root)."""
        return not self.support.as_root and self.support.available(layer)

    def wrap(self, command: list[str]) -> list[str]:
        """Write the launcher's spec for ``command`` and return the argv that runs it sandboxed.

        ``command[0]`` must be an absolute path or a name on the grader's PATH.
        """
        if self.run_dir is None:
            raise RuntimeError("SandboxRun.prepare() must run before wrap()")
        executable = command[0] if os.path.isabs(command[0]) else shutil.which(command[0])
        if executable is None:
            raise SandboxError(f"kernel executable {command[0]!r} not found on PATH")
        if self.uid is not None and not self.support.available(L.FILESYSTEM):
            self._check_reachable(executable)
        self.env = self._environment(executable)
        spec = {
            "command": [executable, *command[1:]],
            "env": self.env,
            "workdir": self.workdir,
            "ipc_dir": self.ipc_dir,
            "run_dir": self.run_dir,
            "new_root": os.path.join(self.run_dir, "root"),
            "mount_namespace": self.support.available(L.FILESYSTEM),
            "pid_namespace": self.support.available(L.PROCESS_CLEANUP),
            "system_paths": list(SYSTEM_PATHS),
            "readonly_paths": (python_prefixes(executable) + package_dirs(STUDENT_PACKAGES)
                               + list(self.limits.readonly_paths)),
            "hidden_paths": self.hidden_paths(),
            "workdir_hidden": list(self.workdir_hidden),
            "sandbox_home": SANDBOX_HOME,
            "fallback_home": os.path.join(self.run_dir, "home"),
            "fallback_tmp": os.path.join(self.run_dir, "tmp"),
            "tmp_size": self.limits.tmp_size_limit,
            "max_files": self.limits.workdir_file_limit,
            "workdir_source": self.quota_dir,
            "cgroup_procs": self.cgroup.procs_files if self.cgroup is not None else [],
            "uid": self.uid,
            "gid": self.uid,
            "limits": self._limits(),
            "required": self.limits.require_sandbox,
            "grader_fd": self._pipe_read,
            "own_user_namespace": self._in_user_namespace(L.PRIVATE_USER),
            "workdir_tmpfs": ({"size": self.limits.workdir_size_limit,
                               "files": self.limits.workdir_file_limit}
                              if self._in_user_namespace(L.WORKDIR_QUOTA) else None),
            "watched_memory": (self.limits.tree_memory_limit if self.cgroup is None
                               and self._in_user_namespace(L.PROCESS_CLEANUP) else None),
            "syscall_filter": (base64.b64encode(seccomp_profile.filter_program()).decode()
                               if self.support.available(L.SYSCALL_FILTER) else None),
        }
        # Its readers (the launcher, the zygote's sandbox process) run before site-packages exist.
        formats.check(formats.LAUNCHER_SPEC, spec)
        self._kernel_wrapped = True
        spec_path = os.path.join(self.run_dir, "spec.json")
        with open(os.open(spec_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600),
                  "w") as spec_file:
            json.dump(spec, spec_file)
        launcher = [sys.executable, "-I", "-S", LAUNCHER, spec_path]
        unshare = self.support.unshare_command()
        return [*unshare, "--", *launcher] if unshare else launcher

    def _check_reachable(self, executable: str) -> None:
        """Without a private filesystem the sandbox user sees the real one: give up the
        private user (with a warning) when it could not even reach the kernel or its folder.
        """
        blocked = _first_unreachable([executable, os.path.realpath(executable)],
                                     [os.path.dirname(self.workdir)])
        if blocked is None:
            return
        if self.limits.require_sandbox:
            raise SandboxError(f"the sandbox is required but the sandbox user cannot reach "
                               f"{blocked!r} without filesystem isolation")
        reason = (f"without filesystem isolation the sandbox user cannot reach {blocked!r} "
                  "(a folder on the way is not searchable by others)")
        self.disabled = {L.PRIVATE_USER: reason, L.PROCESS_LIMIT: reason}
        warn_missing_layers(self.disabled, self.log)
        self._restore_workdir_owners()
        self.uid_slot.release()
        self.uid_slot = None

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self._pipe_read,) if self._pipe_read is not None else ()

    def log_file(self) -> int:
        """A descriptor for the process's stdout and stderr (a file in the run folder)."""
        if self._log_fd is None:
            self._log_fd = os.open(os.path.join(self.run_dir, "kernel.log"),
                                   os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return self._log_fd

    def log_tail(self, limit: int = 2000) -> str:
        """The end of what the sandboxed process and the launcher wrote to stdout/stderr."""
        if self.run_dir is None:
            return ""
        try:
            with open(os.path.join(self.run_dir, "kernel.log"), "rb") as log_file:
                log_file.seek(0, os.SEEK_END)
                log_file.seek(max(0, log_file.tell() - limit))
                return log_file.read().decode(errors="replace")
        except OSError:
            return ""

    def after_launch(self) -> None:
        """Close the grader's copies of descriptors that only the launcher needs."""
        for attr in ("_pipe_read", "_log_fd"):
            fd = getattr(self, attr)
            if fd is not None:
                os.close(fd)
                setattr(self, attr, None)

    def check_report(self, poll) -> dict | None:
        """The launcher's report once written, else None; ``poll()`` gives the exit code.

        Raises SandboxError when the launcher failed or exited without reporting.
        """
        path = os.path.join(self.run_dir, "report.json")
        if not os.path.exists(path):
            code = poll()
            if code is None or os.path.exists(path):
                return None
            raise SandboxError(f"the sandbox launcher exited with status {code} before "
                               f"starting the kernel: {self.log_tail().strip()}")
        with open(path) as report_file:
            report = json.load(report_file)
        try:
            formats.check(formats.LAUNCHER_REPORT, report)
        except formats.FormatError as exc:
            raise SandboxError(f"the sandbox launcher's report is unreadable: {exc}") from exc
        self.report = report
        if report["status"] != "ready":
            raise SandboxError(f"the sandbox could not start the kernel: {report['error']}")
        missing = self.missing_layers
        warn_missing_layers(missing, self.log)
        if self.limits.require_sandbox and missing:
            raise SandboxError("the sandbox is required but these layers failed: " + "; ".join(
                f"{k}: {v}" for k, v in missing.items()))
        return self.report

    def wait_until_ready(self, poll, timeout: float = 30.0) -> dict:
        """Block until :meth:`check_report` has a report (SandboxError after ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        while (report := self.check_report(poll)) is None:
            if time.monotonic() > deadline:
                raise SandboxError(f"the sandbox launcher did not report within {timeout} s")
            time.sleep(0.002)
        return report

    # -------------------------------------------------------------------- teardown
    def cleanup(self) -> None:
        """Kill what is left of the sandbox, bring its files back, free the uid and the group.

        Safe to call more than once and after a failed preparation.
        """
        self.after_launch()
        if self._pipe_write is not None:
            os.close(self._pipe_write)  # the launcher sees end of file and exits
            self._pipe_write = None
        if self.cgroup is not None:
            self.cgroup.kill_all()
        survivors = 0
        if self.uid_slot is not None:
            survivors = kill_processes_of_uid(self.uid)
            if survivors:
                self.log.error("%d sandbox processes of uid %d survived SIGKILL", survivors,
                               self.uid)
        if self._quota_mounted:
            if self._kernel_wrapped:
                self._drain_quota()
            else:  # nothing ran: the working folder is as it was
                workdir_quota.unmount(self.quota_dir)
                self._quota_mounted = False
        elif self._kernel_wrapped and not self._in_user_namespace(L.WORKDIR_QUOTA):
            self._trim_workdir()
        self._kernel_wrapped = False  # what the kernel left is dealt with, once
        if self.uid_slot is not None:
            self._remove_irregular_entries()
            self._restore_workdir_owners()
            if not survivors:
                self.uid_slot.release()
            self.uid_slot = None
        if self.cgroup is not None:
            if not self.cgroup.remove():
                self.log.error("control group %s could not be removed", self.cgroup.name)
            self.cgroup = None
        if self.run_dir is not None:
            self._remove_irregular_entries()
            shutil.rmtree(self.run_dir, ignore_errors=True)
            self.run_dir = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _leftover_budget(self) -> LeftoverBudget:
        return LeftoverBudget(self.limits.leftover_size_limit, self.limits.leftover_file_limit)

    def _drain_quota(self) -> None:
        """Copy what the kernel left in its own filesystem back into the working folder, within
        the leftover budget."""
        budget = self._leftover_budget()
        try:
            left_out = workdir_quota.drain(self.quota_dir, self.workdir, self.workdir_hidden, budget)
            if left_out:
                self.log.warning("Left out %d symbolic links or special files the kernel made: %s",
                                 len(left_out), ", ".join(left_out[:20]))
        finally:
            workdir_quota.unmount(self.quota_dir)
            self._quota_mounted = False
            self._record_leftover_note(budget)

    def _trim_workdir(self) -> None:
        """Without its own filesystem the kernel wrote into the working folder itself: remove
        what is past the leftover budget."""
        budget = self._leftover_budget()
        workdir_quota.trim(self.workdir, self.workdir_hidden, budget)
        self._record_leftover_note(budget)

    def _record_leftover_note(self, budget: LeftoverBudget) -> None:
        self.leftover_note = budget.note()
        if self.leftover_note:
            self.log.warning("Did not keep %d files and folders (%d bytes) the kernel left in %s: "
                             "past SandboxedExecute.leftover_size_limit / leftover_file_limit",
                             budget.not_kept.entries, budget.not_kept.bytes, self.workdir)

    def _remove_irregular_entries(self) -> None:
        """Delete symlinks, FIFOs, sockets and devices the kernel left in its folder.

        The grader and nbgrader work on that folder as root afterwards (nbgrader chmods
        every file in it, following symlinks); only regular files and folders may stay.
        """
        irregular = []
        for path in self._tree(self.workdir):
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                continue
            if path != self.workdir and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                irregular.append(path)
        for path in irregular:
            os.unlink(path)
        if irregular:
            self.log.warning("Removed %d symbolic links or special files the kernel left in %s: "
                             "%s", len(irregular), self.workdir,
                             ", ".join(os.path.relpath(p, self.workdir) for p in irregular))

    def _restore_workdir_owners(self) -> None:
        """Give everything in the working folder back to its owner, with safe modes.

        What the kernel created goes to the folder's owner; no file or folder keeps a set-uid,
        set-gid or sticky bit or stays writable by others (a kernel can chmod 0777 or 2777).
        """
        default = self._owners.get(self.workdir)
        if default is None:
            return
        for path in self._tree(self.workdir):
            try:
                owner = self._owners.get(path, default)
                os.chown(path, *owner, follow_symlinks=False)
                make_mode_safe(path)
            except FileNotFoundError:
                pass
        self._owners.clear()

