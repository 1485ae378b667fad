"""What a course refuses to grade or to read, from its ``c.GradingService`` settings: the
notebook's limits (:class:`Limits`, in every scheduler) and a hand-in folder's budget
(:class:`HandinBudget`, while the service reads ``inbound/``)."""
from __future__ import annotations

from dataclasses import dataclass

from grader.course import Course, load_config
from grader.settings import setting

MB = 1_000_000  # the unit of the c.GradingService sizes


@dataclass(frozen=True)
class Limits:
    """What a course refuses to grade: the notebook's size (bytes) and its number of cells."""

    max_bytes: int
    max_cells: int


def limits_from(policy) -> Limits:
    """The limits of a course's ``c.GradingService`` settings (``grader.service_policy.GradingService``):
    ``max_notebook_megabytes`` and ``max_cells``."""
    return Limits(int(policy.max_notebook_megabytes * 1e6), policy.max_cells)


def limits_of(course: Course) -> Limits:
    """The course's limits (the settings' declared defaults when the course sets none): the same
    limits in every scheduler."""
    from grader.service_policy import GradingService

    return limits_from(GradingService(config=load_config(course)))


_limits: dict[str, tuple[float, Limits]] = {}


def course_limits(course: Course) -> Limits:
    """:func:`limits_of`, read once per process (again when the course's config file changed)."""
    path = course.root / "nbgrader_config.py"
    mtime = path.stat().st_mtime if path.exists() else 0.0
    cached = _limits.get(str(path))
    if cached is None or cached[0] != mtime:
        cached = _limits[str(path)] = (mtime, limits_of(course))
    return cached[1]



def _declared(name: str):
    return setting("GradingService", name).default


@dataclass(frozen=True)
class HandinBudget:
    """What one hand-in may hold: bytes in all, entries (files and folders), top-level notebooks,
    and folder depth below the hand-in's own folder. :func:`handin_budget` reads a course's
    settings; the defaults are those settings' declared defaults."""

    max_bytes: int = int(_declared("max_handin_megabytes") * MB)
    max_entries: int = _declared("max_handin_files")
    max_notebooks: int = _declared("max_handin_notebooks")
    max_depth: int = _declared("max_handin_depth")


def handin_budget(policy) -> HandinBudget:
    """What one hand-in may hold under the course's ``c.GradingService`` settings (``grader.service_policy``)."""
    return HandinBudget(max_bytes=int(policy.max_handin_megabytes * MB), max_entries=policy.max_handin_files,
                        max_notebooks=policy.max_handin_notebooks, max_depth=policy.max_handin_depth)
