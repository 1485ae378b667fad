"""Every hidden check of the course, by the name of the student API item it grades.

Each assignment has one module here (``variance``, ``softmax``, ``readout``, ``attention``) with a
list ``CHECKS`` of :class:`grader.checks.api.Check`, all in the layout of ``grader.checks.common``
(its shared helpers and how a check is written); the known wrong answers they name are the registry
``grader.checks.misconceptions``. Only the grading process imports this package; the student's
kernel never sees it.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

from grader.checks.api import Case, Check, Misconception, RngSeed, Verdict

ASSIGNMENT_MODULES = ("variance", "softmax", "readout", "attention")

__all__ = ["Case", "Check", "Misconception", "RngSeed", "Verdict", "all_checks", "get_check"]


@lru_cache(maxsize=None)
def all_checks() -> dict[str, Check]:
    """name -> Check for every assignment; a name defined twice is a configuration error."""
    checks: dict[str, Check] = {}
    for module_name in ASSIGNMENT_MODULES:
        try:
            module = importlib.import_module(f"grader.checks.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"grader.checks.{module_name}":
                raise
            continue
        for check in module.CHECKS:
            if check.name in checks:
                raise ValueError(f"check {check.name!r} is defined twice (in grader.checks.{module_name})")
            checks[check.name] = check
    return checks


def get_check(name: str) -> Check:
    """The check called ``name``; KeyError naming the known checks when there is none."""
    checks = all_checks()
    if name not in checks:
        raise KeyError(f"no hidden check named {name!r}; known checks: {', '.join(sorted(checks)) or 'none'}")
    return checks[name]
