"""The course's own Python packages, imported from the course folder by the processes that grade.

A course folder holds, beside ``source/`` and ``release/``, the packages its grading needs: its
reference package (``solutions``: the expected values of the hidden checks) and the per-student
numbers (``course_numbers``). They belong to the course, not to the engine: the engine's
distribution (``grader``) does not ship them, and a process that grades finds them by putting the
course folder first on its import path, here and nowhere else.

Every process that grades has the course folder on its import path before it imports anything
of the course: each course command of ``grader`` puts it there (``grader.cli``); the course's
``nbgrader_config.py`` does, for a plain ``nbgrader`` command; local grading workers start with
their parent's import path (``multiprocessing``'s spawn passes ``sys.path`` on); each Dask worker
gets it from a worker plugin (``grader.scheduling.course_on_workers``). A student's kernel finds
``course_numbers`` through the sandbox (``grader.sandbox.run``), never ``solutions``.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from grader.root_trust import UntrustedError, enforced, refusal, untrusted, untrusted_tree

#: The course's packages the grading process imports from the course folder.
COURSE_PACKAGE_NAMES = ("solutions", "course_numbers")


def import_from_course(course_root: Path | str) -> None:
    """Put ``course_root`` first on ``sys.path`` (once) when it holds a package of
    ``COURSE_PACKAGE_NAMES``, so the course's packages import from it.

    A folder without them (a course copied without its packages) changes nothing: the packages
    then come from wherever this interpreter finds them. A package already imported stays as it
    is: a process grades one course. As root, UntrustedError (naming each path and what to run)
    when another account can change the folder, a folder above it or a file of those packages.
    """
    root = Path(course_root).resolve()
    packages = [root / name for name in COURSE_PACKAGE_NAMES if (root / name / "__init__.py").is_file()]
    if not packages:
        return
    if enforced():  # as root: first on the import path, whoever writes there runs code as root
        problems = untrusted([root]) + [problem for package in packages for problem in untrusted_tree(package)]
        if problems:
            raise UntrustedError(refusal(f"the course's packages from {root}", problems, trees=packages))
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
        importlib.invalidate_caches()


def course_of_imported_packages() -> Path | None:
    """The course folder whose reference package this process imports (the folder holding the
    ``solutions`` found on the import path), or None when no course package is importable."""
    spec = importlib.util.find_spec(COURSE_PACKAGE_NAMES[0])
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).resolve().parent.parent
