"""``probe("<name>")`` for instructors running a source notebook by hand.

In a source notebook each test cell ends with a hidden ``probe("<name>")``. During grading that
cell is replaced by the trusted probe code (``grader.grading.preprocessors.decide_verdicts``) and judged outside the kernel. When
an instructor runs the source notebook in Jupyter, this function runs the same check in the kernel
itself (fresh inputs, the same judging code) and raises ``AssertionError`` with the feedback text if
the answer fails, so model answers can be checked while writing them.
"""
from __future__ import annotations

import inspect
import json
import secrets
from pathlib import Path

from grader import kernel_side
from grader.checks import get_check
from grader.course_folders import CHECKS_FILE, SOURCE


def course_of_notebook_folder(folder: Path) -> Path | None:
    """The course folder of a source notebook's folder ``source/<id>/`` holding a checks file, else None."""
    folder = Path(folder).resolve()
    if (folder / CHECKS_FILE).is_file() and folder.parent.name == SOURCE:
        return folder.parent.parent
    return None


def probe(name: str, namespace: dict | None = None) -> None:
    """Judge the caller's ``name`` (function or answer variable) against the reference, in-process.

    Prints one line when it passes; raises AssertionError with the feedback text when it does not.
    """
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    # Jupyter runs a notebook in its own folder: source/<id>/ of the course being written
    check = get_check(name, course_of_notebook_folder(Path.cwd()))
    cases = check.draw_cases(secrets.randbits(63))
    plan = check.plan(cases, token="interactive")
    report = json.loads(json.dumps(kernel_side.collect(plan, namespace), allow_nan=False))
    # the instructor's own kernel: its my_numbers are the numbers to judge against
    verdict = check.decide(cases, report, namespace.get("my_numbers", {}).get(name))
    if not verdict.passed:
        raise AssertionError(verdict.explain())
    print(f"✓ {verdict.explain()}")
