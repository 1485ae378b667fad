"""Every hidden check of a course, by the name of the student API item it grades.

The checks of assignment ``<id>`` live beside its notebook, in ``source/<id>/checks.py`` (found and
loaded by ``grader.checks.discovery``); each declares a list ``CHECKS`` built with the public API of
``grader.checks.common`` (how a check is written) and ``grader.checks.api`` (cases, verdicts), and
names its known wrong answers itself. Only the grading process imports this package; the
student's kernel never sees it.

Every function here takes the course folder (``course_root``); without one it uses the course in
use for this process (:func:`use_course`), by default the course whose reference package this
process imports (``grader.course_imports.course_of_imported_packages``).
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

from grader.checks.api import Case, Check, Misconception, RngSeed, Verdict
from grader.checks.discovery import CheckDiscoveryError, CourseChecks, course_checks

__all__ = ["Case", "Check", "CheckDiscoveryError", "Misconception", "RngSeed", "Verdict", "all_checks",
           "assignment_checks", "checks_module", "checks_of_course", "get_check", "use_course"]

_course_in_use: Path | None = None


def use_course(course_root: Path | str | None) -> None:
    """Make ``course_root`` the course whose checks :func:`all_checks` and :func:`get_check` return
    when given none (None: back to the default course)."""
    global _course_in_use
    _course_in_use = None if course_root is None else Path(course_root)


def _root(course_root: Path | str | None) -> Path:
    if course_root is not None:
        return Path(course_root)
    if _course_in_use is not None:
        return _course_in_use
    from grader.course_imports import course_of_imported_packages

    found = course_of_imported_packages()
    if found is None:
        raise CheckDiscoveryError("no course folder is known to this process: name one (grader ... --course DIR), "
                                  "or run from a course folder that holds its reference package solutions/")
    return found


def checks_of_course(course_root: Path | str | None = None) -> CourseChecks:
    """All the checks of the course, by name and by assignment (loaded once per process)."""
    return course_checks(_root(course_root))


def all_checks(course_root: Path | str | None = None) -> dict[str, Check]:
    """name -> Check for every assignment of the course; a name declared twice is a CheckDiscoveryError."""
    return checks_of_course(course_root).by_name


def assignment_checks(course_root: Path | str | None = None) -> dict[str, tuple[str, ...]]:
    """assignment id -> the names of its checks (its student API), in the order its checks file declares them."""
    return checks_of_course(course_root).by_assignment


def get_check(name: str, course_root: Path | str | None = None) -> Check:
    """The check called ``name``; KeyError naming the known checks when there is none."""
    checks = all_checks(course_root)
    if name not in checks:
        raise KeyError(f"no hidden check named {name!r}; known checks: {', '.join(sorted(checks)) or 'none'}. "
                       "A check is declared in source/<assignment>/checks.py beside its notebook.")
    return checks[name]


def checks_module(assignment: str, course_root: Path | str | None = None) -> ModuleType:
    """The loaded checks file of ``assignment`` (its judges and bands, for tests and tools)."""
    modules = checks_of_course(course_root).modules
    if assignment not in modules:
        raise KeyError(f"assignment {assignment!r} has no checks file source/{assignment}/checks.py; "
                       f"those with one: {', '.join(modules) or 'none'}")
    return modules[assignment]
