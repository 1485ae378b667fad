"""The course's policy file: per-student and per-group overrides, one per line, checked line by line.

The file (``c.CoursePolicy.policy_file``, by default ``policy.csv`` in the course folder) is a CSV
with the header ``who,assignment,setting,value``; blank lines and lines starting with ``#`` are
skipped::

    who,assignment,setting,value
    # Ada was ill the week of the softmax: two more days
    ada,02_softmax,extension_hours,48
    bob,,accommodation,extra-time-1.5x
    cy,,group,evening
    group:evening,,late_window_hours,72
    dee,,late_days,5

``who`` is a student id or ``group:NAME``; an empty ``assignment`` means every assignment. The
settings a row may set are :data:`OVERRIDES`. ``group`` rows put a student in a group (``who`` a
student, ``value`` the group's name); ``late_days`` and ``group`` apply to the whole course, so
their ``assignment`` stays empty. :func:`read_policy_file` returns every row checked and parsed, or
raises :class:`PolicyFileError` listing each bad line with its number and what to write instead.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

HEADER = ("who", "assignment", "setting", "value")
GROUP_PREFIX = "group:"


class PolicyFileError(ValueError):
    """A policy file (or a course setting) that cannot be used: ``problems`` are its lines' problems."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def parse_moment(text: str) -> datetime:
    """An ISO 8601 date and time with a UTC offset (``2026-03-02T23:59:00+00:00``, ``...Z``) -> aware UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a date and time; write ISO 8601 with a UTC offset, "
                         "e.g. 2026-03-02T23:59:00+00:00") from None
    if moment.tzinfo is None:
        raise ValueError(f"{text.strip()!r} has no UTC offset; add one, e.g. {text.strip()}+00:00")
    return moment.astimezone(timezone.utc)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


def _hours(text: str) -> float:
    value = _number(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{text!r} is not a number of hours (0 or more)")
    return value


def _window(text: str) -> float | None:
    """Hours, or ``none`` (no end)."""
    return None if text.strip().casefold() == "none" else _hours(text)


def _share(text: str) -> float:
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{text!r} is not a share between 0 and 1 (0.1 is 10 %)")
    return value


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise ValueError(f"{text!r} is less than {minimum}")
        return value
    return parse


def _schedule(text: str) -> tuple[float, ...]:
    """Shares separated by spaces: ``1 1 0.5``."""
    parts = text.split()
    if not parts:
        raise ValueError("an attempt schedule needs at least one share, e.g. '1 0.5 0.25 0'")
    try:
        return tuple(_share(part) for part in parts)
    except ValueError as exc:
        raise ValueError(f"in the schedule {text!r}: {exc}") from None


def _name(text: str) -> str:
    name = text.strip()
    if not name or any(c.isspace() or c in ",:" for c in name):
        raise ValueError(f"{text!r} is not a name (no spaces, commas or colons)")
    return name


#: setting -> (what its value is, in words; the parser of its text). ``accommodation`` is checked
#: against the course's ``c.CoursePolicy.accommodations`` by :func:`read_policy_file`.
OVERRIDES: dict[str, tuple[str, Callable[[str], object]]] = {
    "release": ("the moment the assignment opens for them (ISO 8601 with a UTC offset)", parse_moment),
    "due": ("their own due date (ISO 8601 with a UTC offset)", parse_moment),
    "extension_hours": ("a number of hours added to the due date", _hours),
    "late_window_hours": ("a number of hours after the due date a late hand-in still earns points, or none", _window),
    "late_penalty_per_day": ("a share of the score taken off per started day late (0 to 1)", _share),
    "max_graded_per_hour": ("a number of hand-ins graded per hour by the grading service (1 or more)", _count(1)),
    "attempt_schedule": ("shares of quiz credit after 0, 1, 2, ... wrong answers, separated by spaces",
                         _schedule),
    "late_days": ("a number of late days for the whole course, instead of c.CoursePolicy.late_days", _count(0)),
    "accommodation": ("an accommodation label of c.CoursePolicy.accommodations", _name),
    "group": ("the name of a group the student belongs to", _name),
}
#: Settings that apply to the whole course: their rows leave ``assignment`` empty.
COURSE_WIDE = ("late_days", "group")


@dataclass(frozen=True)
class PolicyRow:
    """One override: ``who`` (student id or ``group:NAME``) gets ``setting`` = ``value`` for
    ``assignment`` ("" for every assignment); ``line`` is its line in the file."""

    who: str
    assignment: str
    setting: str
    value: object
    text: str
    line: int

    @property
    def group(self) -> str | None:
        """The group a ``group:NAME`` row is for, else None."""
        return self.who[len(GROUP_PREFIX):] if self.who.startswith(GROUP_PREFIX) else None


@dataclass(frozen=True)
class PolicyDeclaration:
    """Every row of a policy file, in file order."""

    rows: tuple[PolicyRow, ...] = ()

    def groups_of(self, student: str) -> tuple[str, ...]:
        """The groups ``student`` belongs to, in file order."""
        return tuple(r.value for r in self.rows if r.setting == "group" and r.who == student)

    def members(self) -> dict[str, set[str]]:
        """group name -> its students."""
        found: dict[str, set[str]] = {}
        for r in self.rows:
            if r.setting == "group":
                found.setdefault(r.value, set()).add(r.who)
        return found


def read_policy_file(path: Path, accommodations: dict[str, float], known_students: set[str] | None = None,
                     known_assignments: set[str] | None = None) -> PolicyDeclaration:
    """The rows of ``path`` (none when it does not exist), every line checked.

    ``known_students`` / ``known_assignments``: when given, a row naming another student or
    assignment is refused with the list of known ones. Raises :class:`PolicyFileError` with one
    problem per bad line (``policy.csv line 4: ...``).
    """
    if not path.exists():
        return PolicyDeclaration()
    return parse_policy_text(path.read_text(encoding="utf-8"), path.name, accommodations, known_students,
                             known_assignments)


def parse_policy_text(text: str, label: str, accommodations: dict[str, float],
                      known_students: set[str] | None = None,
                      known_assignments: set[str] | None = None) -> PolicyDeclaration:
    """:func:`read_policy_file` of a text; ``label`` names it in the problems."""
    problems: list[str] = []
    rows: list[PolicyRow] = []
    header_seen = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{label} line {number}"
        cells = [cell.strip() for cell in next(csv.reader([line]))]
        if not header_seen:
            header_seen = True
            if tuple(c.casefold() for c in cells) != HEADER:
                problems.append(f"{where}: the first line must be the header {','.join(HEADER)} "
                                f"(found {line.strip()!r})")
                break
            continue
        if len(cells) != len(HEADER):
            problems.append(f"{where}: {len(cells)} columns where {len(HEADER)} belong "
                            f"({','.join(HEADER)}); quote a value that holds a comma")
            continue
        who, assignment, setting, value_text = cells
        try:
            rows.append(_checked_row(who, assignment, setting, value_text, number, accommodations,
                                     known_students, known_assignments))
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    problems += _conflicts(rows, label)
    problems += _empty_groups(rows, label)
    if problems:
        raise PolicyFileError(problems)
    return PolicyDeclaration(tuple(rows))


def _checked_row(who, assignment, setting, value_text, number, accommodations, known_students,
                 known_assignments) -> PolicyRow:
    if setting not in OVERRIDES:
        raise ValueError(f"{setting!r} is not a setting a row may override; use one of "
                         f"{', '.join(OVERRIDES)}")
    if not who:
        raise ValueError("the column who is empty; write a student id or group:NAME")
    if who.startswith(GROUP_PREFIX):
        _name(who[len(GROUP_PREFIX):])
        if setting == "group":
            raise ValueError("a group cannot belong to a group; write a student id in the column who")
    elif known_students is not None and who not in known_students:
        raise ValueError(unknown_student_text(who, known_students))
    if setting in COURSE_WIDE and assignment:
        raise ValueError(f"{setting} applies to the whole course; leave the column assignment empty")
    if assignment and known_assignments is not None and assignment not in known_assignments:
        raise ValueError(f"{assignment!r} is not an assignment of this course; write one of "
                         f"{', '.join(sorted(known_assignments)) or '(none yet)'} or leave it empty for all")
    meaning, parse = OVERRIDES[setting]
    try:
        value = parse(value_text)
    except ValueError as exc:
        raise ValueError(f"{setting} must be {meaning}: {exc}") from None
    if setting == "accommodation" and value not in accommodations:
        raise ValueError(f"{value!r} is not an accommodation of this course; write one of "
                         f"{', '.join(sorted(accommodations)) or '(none: set c.CoursePolicy.accommodations)'}")
    return PolicyRow(who, assignment, setting, value, value_text, number)


def unknown_student_text(who: str, known_students: set[str]) -> str:
    """The refusal of an override for a student the course does not know, listing the known ids."""
    known = ", ".join(sorted(known_students)) or "none yet"
    return (f"{who!r} is not a student of this course (known ids: {known}); check the spelling, or add "
            "the student first (grader roster, or nbgrader db student add)")


def _conflicts(rows: list[PolicyRow], label: str) -> list[str]:
    seen: dict[tuple[str, str, str, object], PolicyRow] = {}
    problems = []
    for row in rows:
        key = (row.who, row.assignment, row.setting, row.value if row.setting == "group" else None)
        if key in seen:
            problems.append(f"{label} line {row.line}: {row.setting} of {row.who} "
                            f"{'for ' + row.assignment if row.assignment else 'for every assignment'} "
                            f"is already set on line {seen[key].line}; keep one of the two lines")
        else:
            seen[key] = row
    return problems


def _empty_groups(rows: list[PolicyRow], label: str) -> list[str]:
    groups = {row.value for row in rows if row.setting == "group"}
    return [f"{label} line {row.line}: no student is in group {row.group!r}; add a line "
            f"STUDENT,,group,{row.group} for each of its students"
            for row in rows if row.group is not None and row.group not in groups]
