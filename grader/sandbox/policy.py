"""What a sandboxed kernel may see and use: one immutable, validated policy object."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys

GiB = 1024 ** 3
MiB = 1024 ** 2

# Directories every sandbox sees read-only (symbolic links among them are recreated).
SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

# Packages the student's kernel must never read: the reference numerics and the grader.
HIDDEN_PACKAGES = ("solutions", "grader")


class SandboxError(RuntimeError):
    """The sandbox could not be set up as the policy demands; the notebook is not graded."""


@dataclasses.dataclass(frozen=True)
class SandboxPolicy:
    """Limits and visibility rules for one sandboxed kernel.

    Sizes are in bytes, times in seconds; ``None`` leaves a limit as inherited.
    ``memory_limit`` is the address-space limit of each process (RLIMIT_AS), which is
    what Python turns into ``MemoryError``; ``max_processes`` counts processes and
    threads of the sandbox's private user id (RLIMIT_NPROC); ``cpu_time_limit`` is the
    CPU time of each process over the whole notebook (RLIMIT_CPU).
    The sandbox's control group (``grader.sandbox.cgroups``) bounds the whole process tree:
    ``tree_memory_limit`` bytes of memory, ``tree_process_limit`` tasks, a CPU share of
    ``cpu_weight`` (100 = one ordinary process) and at most ``cpu_quota`` CPUs (None: no cap).
    The working folder is a filesystem of its own holding at most ``workdir_size_limit`` bytes
    and ``workdir_file_limit`` files and folders (so are /tmp, /dev/shm and home, in files).
    ``readonly_paths`` are extra files or directories the kernel may read;
    ``hidden_paths`` are paths that must stay invisible even when they lie inside a
    directory the kernel may read (the course root, the grading packages).
    """

    memory_limit: int | None = 2 * GiB
    max_processes: int | None = 64
    cpu_time_limit: int | None = 600
    file_size_limit: int | None = 16 * MiB
    open_files_limit: int | None = 256
    tmp_size_limit: int = 64 * MiB
    tree_memory_limit: int | None = 2 * GiB
    tree_process_limit: int | None = 128
    cpu_weight: int = 100
    cpu_quota: float | None = 1.0
    workdir_size_limit: int = 256 * MiB
    workdir_file_limit: int = 4096
    readonly_paths: tuple[str, ...] = ()
    hidden_paths: tuple[str, ...] = ()
    extra_env: tuple[tuple[str, str], ...] = ()
    require_sandbox: bool = False
    uid_base: int = 1_900_000_000
    uid_count: int = 4096

    def __post_init__(self):
        for name in ("memory_limit", "max_processes", "cpu_time_limit", "file_size_limit",
                     "open_files_limit", "tree_memory_limit", "tree_process_limit"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"sandbox {name} must be a positive integer or None, got "
                                 f"{value!r}; fix SandboxedExecute.{name} in the config")
        if self.open_files_limit is not None and self.open_files_limit < 64:
            raise ValueError(f"sandbox open_files_limit={self.open_files_limit} is too small "
                             "for a Jupyter kernel; use at least 64")
        if not isinstance(self.cpu_weight, int) or not 1 <= self.cpu_weight <= 10000:
            raise ValueError(f"sandbox cpu_weight must be an integer from 1 to 10000, got "
                             f"{self.cpu_weight!r}")
        if self.cpu_quota is not None and not self.cpu_quota > 0:
            raise ValueError(f"sandbox cpu_quota must be a positive number of CPUs or None, got "
                             f"{self.cpu_quota!r}")
        for name in ("workdir_size_limit", "workdir_file_limit"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) <= 0:
                raise ValueError(f"sandbox {name} must be a positive integer, got "
                                 f"{getattr(self, name)!r}")
        if self.tmp_size_limit <= 0:
            raise ValueError(f"sandbox tmp_size_limit must be positive, got "
                             f"{self.tmp_size_limit!r}")
        if self.uid_count <= 0 or not 0 < self.uid_base <= 2 ** 32 - 2 - self.uid_count:
            raise ValueError(f"sandbox uid range {self.uid_base}+{self.uid_count} is invalid; "
                             "pick unused numeric uids below 2**32 - 2")
        for name in ("readonly_paths", "hidden_paths"):
            for path in getattr(self, name):
                if not os.path.isabs(path):
                    raise ValueError(f"sandbox {name} entries must be absolute paths, got "
                                     f"{path!r}")


# Config names (``c.SandboxedExecute.<name>``) that make up a policy, and their fields.
SETTING_FIELDS = {
    "memory_limit": "memory_limit",
    "max_processes": "max_processes",
    "cpu_time_limit": "cpu_time_limit",
    "file_size_limit": "file_size_limit",
    "open_files_limit": "open_files_limit",
    "tmp_size_limit": "tmp_size_limit",
    "tree_memory_limit": "tree_memory_limit",
    "tree_process_limit": "tree_process_limit",
    "cpu_weight": "cpu_weight",
    "cpu_quota": "cpu_quota",
    "workdir_size_limit": "workdir_size_limit",
    "workdir_file_limit": "workdir_file_limit",
    "readonly_paths": "readonly_paths",
    "hidden_paths": "hidden_paths",
    "sandbox_env": "extra_env",
    "require_sandbox": "require_sandbox",
    "uid_base": "uid_base",
    "uid_count": "uid_count",
}


def policy_from_settings(settings) -> SandboxPolicy:
    """A policy from a mapping of SandboxedExecute setting names (missing ones default).

    Other keys (the executor's timeouts, ...) are ignored.
    """
    fields = {}
    for name, field in SETTING_FIELDS.items():
        if name not in settings:
            continue
        value = settings[name]
        if field == "extra_env":
            value = tuple(sorted(dict(value).items()))
        elif field in ("readonly_paths", "hidden_paths"):
            value = tuple(value)
        fields[field] = value
    return SandboxPolicy(**fields)


def package_dirs(names=HIDDEN_PACKAGES) -> list[str]:
    """Directories (or module files) of the named top-level packages, without importing them.

    Works for editable installs (the repository folder) and regular installs
    (site-packages) alike; packages that are not installed are skipped.
    """
    found = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            found.extend(os.path.realpath(p) for p in spec.submodule_search_locations)
        elif spec.origin and os.path.isabs(spec.origin):
            found.append(os.path.realpath(spec.origin))
    return found


def python_prefixes(executable: str) -> list[str]:
    """Install prefixes a Python interpreter needs to run: its venv and its base install.

    ``executable`` is an absolute path (possibly a symlink into another installation).
    Returns absolute directories, never ``/``.
    """
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    for path in (os.path.abspath(executable), os.path.realpath(executable)):
        candidates.append(os.path.dirname(os.path.dirname(path)))
    prefixes = []
    for prefix in candidates:
        for form in (os.path.abspath(prefix), os.path.realpath(prefix)):
            if form != "/" and form not in prefixes:
                prefixes.append(form)
    return prefixes
