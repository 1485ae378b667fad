"""What a sandboxed kernel may see and use: one immutable, validated limits object."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
from collections.abc import Mapping

from grader.settings import GiB, MiB, Setting, sandbox_limit_settings  # noqa: F401 (GiB, MiB: units)

# Directories every sandbox sees read-only (symbolic links among them are recreated).
SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

# Packages the student's kernel must never read: the reference numerics and the grader.
HIDDEN_PACKAGES = ("solutions", "grader")
# Packages of the course the student's kernel imports, read-only: the per-student numbers.
STUDENT_PACKAGES = ("course_numbers",)


class SandboxError(RuntimeError):
    """The sandbox could not be set up as its limits demand; the notebook is not graded."""


def _check(limits) -> None:
    """Reject limits no kernel can run under, naming the setting to fix."""
    for name in ("memory_limit", "max_processes", "cpu_time_limit", "file_size_limit",
                 "open_files_limit", "tree_memory_limit", "tree_process_limit"):
        value = getattr(limits, name)
        if value is not None and (not isinstance(value, int) or value <= 0):
            raise ValueError(f"sandbox {name} must be a positive integer or None, got "
                             f"{value!r}; fix SandboxedExecute.{name} in the config")
    if limits.open_files_limit is not None and limits.open_files_limit < 64:
        raise ValueError(f"sandbox open_files_limit={limits.open_files_limit} is too small "
                         "for a Jupyter kernel; use at least 64")
    if not isinstance(limits.cpu_weight, int) or not 1 <= limits.cpu_weight <= 10000:
        raise ValueError(f"sandbox cpu_weight must be an integer from 1 to 10000, got "
                         f"{limits.cpu_weight!r}")
    if limits.cpu_quota is not None and not limits.cpu_quota > 0:
        raise ValueError(f"sandbox cpu_quota must be a positive number of CPUs or None, got "
                         f"{limits.cpu_quota!r}")
    for name in ("workdir_size_limit", "workdir_file_limit", "leftover_size_limit", "leftover_file_limit"):
        if not isinstance(getattr(limits, name), int) or getattr(limits, name) <= 0:
            raise ValueError(f"sandbox {name} must be a positive integer, got "
                             f"{getattr(limits, name)!r}")
    if limits.tmp_size_limit <= 0:
        raise ValueError(f"sandbox tmp_size_limit must be positive, got "
                         f"{limits.tmp_size_limit!r}")
    if limits.uid_count <= 0 or not 0 < limits.uid_base <= 2 ** 32 - 2 - limits.uid_count:
        raise ValueError(f"sandbox uid range {limits.uid_base}+{limits.uid_count} is invalid; "
                         "pick unused numeric uids below 2**32 - 2")
    for name in ("readonly_paths", "hidden_paths"):
        for path in getattr(limits, name):
            if not os.path.isabs(path):
                raise ValueError(f"sandbox {name} entries must be absolute paths, got "
                                 f"{path!r}")


def _frozen(setting: Setting, value):
    """A setting's value as the (hashable) limits object holds it: lists as tuples, a mapping as
    its sorted ``(name, value)`` pairs."""
    if value is None:
        return None
    if setting.type == "name → text":
        return tuple(sorted(dict(value).items()))
    if setting.type == "list of paths":
        return tuple(value)
    return value


_FIELDS = sandbox_limit_settings()

#: Limits and visibility rules for one sandboxed kernel: one field per ``c.SandboxedExecute``
#: setting declared with ``sandbox_limit=True`` in :mod:`grader.settings` (same name, same default,
#: units as declared there: sizes in bytes, times in seconds; ``None`` leaves a limit as inherited).
#: ``memory_limit`` is the address-space limit of each process (RLIMIT_AS); ``max_processes`` counts
#: processes and threads of the sandbox's private user id (RLIMIT_NPROC); the ``tree_*`` limits and
#: ``cpu_weight``/``cpu_quota`` bound the whole process tree through its control group
#: (``grader.sandbox.cgroups``); the working folder is a filesystem of its own of at most
#: ``workdir_size_limit`` bytes and ``workdir_file_limit`` entries. ``readonly_paths`` and
#: ``hidden_paths`` are tuples of absolute paths, ``sandbox_env`` a tuple of ``(name, value)`` pairs.
SandboxLimits = dataclasses.make_dataclass(
    "SandboxLimits",
    [(s.name, object, dataclasses.field(default=_frozen(s, s.default))) for s in _FIELDS],
    frozen=True,
    namespace={"__post_init__": _check, "__module__": __name__},
)


def load_sandbox_limits(settings: Mapping[str, object]) -> SandboxLimits:
    """The sandbox limits of a ``c.SandboxedExecute`` section (setting name -> value; missing ones
    take their declared default; other keys, such as the executor's timeouts, are ignored)."""
    return SandboxLimits(**{s.name: _frozen(s, settings[s.name]) for s in _FIELDS if s.name in settings})


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
