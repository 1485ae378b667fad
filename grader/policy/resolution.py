"""``resolve(student, assignment)``: one student's policy for one assignment, from the class's and the overrides.

Precedence, lowest first: the class (``c.CoursePolicy``, ``c.AttemptCredit.schedule``,
``c.GradingService.max_graded_per_hour``, the gradebook's due date), then the rows of each group
the student belongs to (for every assignment, then for this one), then the student's own rows (for
every assignment, then for this one). A later group in the file beats an earlier one.

The student's due date: ``due`` (the highest row's, else the class's); an accommodation with
scale ``s`` stretches the time from release to due date by ``s`` (when there is a release date)
and the late window by ``s``; then ``extension_hours`` is added. Extensions do not stack: the
highest row's counts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from grader.policy.declaration import PolicyDeclaration, PolicyRow


@dataclass(frozen=True)
class ClassPolicy:
    """The class-wide policy: what every student gets without an override.

    ``release`` / ``due``: assignment -> aware UTC moment; ``late_window_hours`` None: no end.
    """

    release: dict[str, datetime] = field(default_factory=dict)
    due: dict[str, datetime] = field(default_factory=dict)
    late_window_hours: float | None = None
    late_penalty_per_day: float = 0.0
    late_days: int = 0
    max_late_days_per_assignment: int | None = None
    max_graded_per_hour: int = 6
    attempt_schedule: tuple[float, ...] = (1.0, 0.5, 0.25, 0.0)
    accommodations: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ResolvedPolicy:
    """One student's policy for one assignment, before any late day is spent.

    Moments are aware UTC (None: the course has none); ``late_window`` None means no end;
    ``scale`` is the accommodation's (1.0 without one); ``sources`` names, for each setting an
    override changed, the line of the policy file it came from (``"extension_hours": "line 4
    (ada, 02_softmax)"``).
    """

    student: str
    assignment: str
    release: datetime | None
    class_due: datetime | None
    due: datetime | None
    late_window: timedelta | None
    late_penalty_per_day: float
    late_days: int
    max_late_days_per_assignment: int | None
    max_graded_per_hour: int
    attempt_schedule: tuple[float, ...]
    accommodation: str | None
    scale: float
    groups: tuple[str, ...]
    sources: dict[str, str]

    @property
    def has_extension(self) -> bool:
        """Whether the student's own due date is later than the class's."""
        return self.due is not None and self.class_due is not None and self.due > self.class_due


def applicable_rows(declaration: PolicyDeclaration, student: str, assignment: str) -> list[PolicyRow]:
    """The rows that apply to ``student`` and ``assignment``, lowest precedence first."""
    groups = declaration.groups_of(student)
    ranked = []
    for row in declaration.rows:
        if row.setting == "group" or row.assignment not in ("", assignment):
            continue
        if row.group is not None and row.group in groups:
            level = 1 + 2 * groups.index(row.group)
        elif row.who == student:
            level = 1 + 2 * len(groups)
        else:
            continue
        ranked.append((level + (1 if row.assignment else 0), row.line, row))
    return [row for _, _, row in sorted(ranked, key=lambda r: r[:2])]


def resolve(student: str, assignment: str, declaration: PolicyDeclaration, course: ClassPolicy) -> ResolvedPolicy:
    """``student``'s policy for ``assignment``: the class's, changed by every row that applies to them."""
    chosen: dict[str, PolicyRow] = {}
    for row in applicable_rows(declaration, student, assignment):
        chosen[row.setting] = row  # a higher row replaces a lower one

    def value(setting: str, default):
        return chosen[setting].value if setting in chosen else default

    release = value("release", course.release.get(assignment))
    class_due = course.due.get(assignment)
    due = value("due", class_due)
    accommodation = value("accommodation", None)
    scale = float(course.accommodations.get(accommodation, 1.0)) if accommodation else 1.0
    if due is not None and release is not None and scale != 1.0 and due > release:
        due = release + (due - release) * scale
    if due is not None and "extension_hours" in chosen:
        due = due + timedelta(hours=chosen["extension_hours"].value)
    window_hours = value("late_window_hours", course.late_window_hours)
    return ResolvedPolicy(
        student=student, assignment=assignment, release=release, class_due=class_due, due=due,
        late_window=None if window_hours is None else timedelta(hours=window_hours * scale),
        late_penalty_per_day=value("late_penalty_per_day", course.late_penalty_per_day),
        late_days=value("late_days", course.late_days),
        max_late_days_per_assignment=course.max_late_days_per_assignment,
        max_graded_per_hour=value("max_graded_per_hour", course.max_graded_per_hour),
        attempt_schedule=tuple(value("attempt_schedule", course.attempt_schedule)),
        accommodation=accommodation, scale=scale, groups=declaration.groups_of(student),
        sources={setting: f"line {row.line} ({row.who}{', ' + row.assignment if row.assignment else ''})"
                 for setting, row in chosen.items()})

