"""Finding a course's hidden checks: one checks file per assignment, beside its source notebook.

A course declares the checks of assignment ``<id>`` in ``source/<id>/checks.py``: a module with a
list ``CHECKS`` of :class:`grader.checks.api.Check` (usually built with
``grader.checks.common.function_check`` and ``value_check``). The grading process loads every such
file by its path, each under a module name of its own, so that two courses (or two assignments)
never share a module. The student's kernel never loads them, and releasing an assignment leaves
them out (``c.CourseDirectory.ignore`` of the course's ``nbgrader_config.py``).
"""
from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from grader import root_trust
from grader.checks.api import Check
from grader.course_folders import CHECKS_FILE, SOURCE

__all__ = ["CHECKS_FILE", "CheckDiscoveryError", "CourseChecks", "checks_files", "course_checks", "discover",
           "load_checks_file", "module_name_of"]


class CheckDiscoveryError(Exception):
    """A checks file that cannot be used: it fails to import, declares no CHECKS, or repeats a name."""


@dataclass(frozen=True)
class CourseChecks:
    """Every check of one course.

    by_name: check name -> Check, over all assignments.
    by_assignment: assignment id -> the names its checks file declares, in its order.
    modules: assignment id -> its loaded checks module.
    """

    by_name: dict[str, Check]
    by_assignment: dict[str, tuple[str, ...]]
    modules: dict[str, ModuleType]

    def assignment_of(self, name: str) -> str:
        """The assignment whose checks file declares ``name``; KeyError when none does."""
        for assignment, names in self.by_assignment.items():
            if name in names:
                return assignment
        raise KeyError(f"no checks file declares {name!r}")


def checks_files(course_root: Path) -> dict[str, Path]:
    """assignment id -> its checks file, for every ``source/<id>/checks.py`` of the course, by id."""
    return {path.parent.name: path for path in root_trust.checks_files(Path(course_root) / SOURCE)}


def module_name_of(path: Path) -> str:
    """A module name of its own for the checks file at ``path`` (its folder's id and a digest of its path)."""
    resolved = Path(path).resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    assignment = re.sub(r"\W", "_", resolved.parent.name)
    return f"course_checks_{assignment}_{digest}"


def load_checks_file(path: Path) -> ModuleType:
    """Import the checks file at ``path``; CheckDiscoveryError naming it and the error when it fails.

    As root, a checks file another account can change is refused (``grader.root_trust``): it is Python
    the grading process runs.
    """
    if root_trust.enforced():
        problems = root_trust.untrusted([Path(path)])
        if problems:
            raise CheckDiscoveryError(root_trust.refusal(f"load the checks file {path}", problems))
    name = module_name_of(path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its functions stay importable by name (pickling, tracebacks)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise CheckDiscoveryError(f"the checks file {path} cannot be imported: {type(exc).__name__}: {exc}. "
                                  "Fix it, then run `grader check-course` to see what else is missing.") from exc
    checks = getattr(module, "CHECKS", None)
    if not isinstance(checks, (list, tuple)) or not all(isinstance(c, Check) for c in checks):
        raise CheckDiscoveryError(f"the checks file {path} must define CHECKS, a list of checks "
                                  "(grader.checks.common.function_check / value_check)")
    return module


def discover(course_root: Path) -> CourseChecks:
    """Load every checks file of the course at ``course_root`` (not cached: see :func:`course_checks`)."""
    by_name: dict[str, Check] = {}
    where: dict[str, Path] = {}
    by_assignment: dict[str, tuple[str, ...]] = {}
    modules: dict[str, ModuleType] = {}
    for assignment, path in checks_files(course_root).items():
        module = load_checks_file(path)
        for check in module.CHECKS:
            if check.name in by_name:
                raise CheckDiscoveryError(f"the check {check.name!r} is declared twice: in {where[check.name]} and "
                                          f"in {path}. Each solution cell's name may have one check only; rename "
                                          "or remove one of them.")
            by_name[check.name] = check
            where[check.name] = path
        by_assignment[assignment] = tuple(check.name for check in module.CHECKS)
        modules[assignment] = module
    return CourseChecks(by_name, by_assignment, modules)


@lru_cache(maxsize=None)
def _course_checks(resolved_root: str) -> CourseChecks:
    return discover(Path(resolved_root))


def course_checks(course_root: Path) -> CourseChecks:
    """The checks of the course at ``course_root``, loaded once per process and course folder."""
    return _course_checks(str(Path(course_root).resolve()))
