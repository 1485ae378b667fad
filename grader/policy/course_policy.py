"""A course's policy, read once: the class's settings, the policy file and the gradebook's dates.

``PolicyBook.of(course)`` is what every reader uses (the grading steps, ``grader autograde``, the
grading service, the feedback page, the class report, ``grader policy``)::

    book = PolicyBook.of(course)
    book.resolve("ada", "02_softmax")        # ResolvedPolicy: her due date, window, schedule, ...
    book.late_outcomes("ada")                # assignment -> LateOutcome, from recorded hand-in times

Hand-in times are the gradebook's submission timestamps (what nbgrader recorded when it graded),
else the ``timestamp.txt`` of the hand-in in ``submitted/`` not graded yet.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from traitlets.config import Config, Configurable

from grader.course import Course, load_config, read_timestamp, sqlite_file_of
from grader.policy.declaration import PolicyDeclaration, PolicyFileError, parse_moment, read_policy_file
from grader.policy.late_days import HandIn, LateOutcome, spend_late_days
from grader.policy.resolution import ClassPolicy, ResolvedPolicy, resolve
from grader.settings import setting, traits_of


class CoursePolicy(Configurable):
    """``c.CoursePolicy``: the class's dates, late rules, late days and accommodations."""

    locals().update(traits_of("CoursePolicy"))


def utc(moment: datetime | None) -> datetime | None:
    """nbgrader's naive UTC datetimes (and aware ones) as aware UTC."""
    if moment is None:
        return None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def class_policy(config: Config, gradebook_due: dict[str, datetime | None]) -> ClassPolicy:
    """The class-wide policy of a course config; a due date it does not set is the gradebook's."""
    from grader.service_policy import GradingService

    settings = CoursePolicy(config=config)
    problems = []

    def moments(name: str) -> dict[str, datetime]:
        found = {}
        for assignment, text in getattr(settings, name).items():
            try:
                found[assignment] = parse_moment(text)
            except ValueError as exc:
                problems.append(f"c.CoursePolicy.{name}[{assignment!r}]: {exc}")
        return found

    due = {a: utc(d) for a, d in gradebook_due.items() if d is not None} | moments("due_dates")
    release = moments("release_dates")
    scales = {}
    for label, scale in settings.accommodations.items():
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0:
            problems.append(f"c.CoursePolicy.accommodations[{label!r}]: {scale!r} is not a scale; "
                            "write a number above 0, e.g. 1.5")
        else:
            scales[label] = float(scale)
    if problems:
        raise PolicyFileError(problems)
    return ClassPolicy(
        release=release, due=due, late_window_hours=settings.late_window_hours,
        late_penalty_per_day=settings.late_penalty_per_day, late_days=settings.late_days,
        max_late_days_per_assignment=settings.max_late_days_per_assignment,
        max_graded_per_hour=GradingService(config=config).max_graded_per_hour,
        attempt_schedule=tuple(config.AttemptCredit.get("schedule", setting("AttemptCredit", "schedule").default)), accommodations=scales)


def policy_file_of(course: Course, config: Config) -> Path:
    """Where ``course``'s policy file is (``c.CoursePolicy.policy_file``, relative to the course folder)."""
    return course.root / CoursePolicy(config=config).policy_file


@dataclass
class PolicyBook:
    """One course's resolved policy: class settings, overrides, due dates and recorded hand-in times.

    ``timestamps``: student -> assignment -> the hand-in's aware UTC moment.
    """

    course: ClassPolicy
    declaration: PolicyDeclaration
    timestamps: dict[str, dict[str, datetime]]
    assignments: tuple[str, ...]

    @classmethod
    def of(cls, course: Course, config: Config | None = None, check_ids: bool = False,
           hand_ins: bool = True, student: str | None = None, db_url: str | None = None) -> PolicyBook:
        """The policy of ``course`` (its ``nbgrader_config.py`` unless ``config`` is given).

        ``check_ids``: refuse rows naming a student or assignment the course does not know (the
        gradebook's and those in ``submitted/``). ``hand_ins`` False: read no hand-in times (enough
        for :meth:`resolve`, not for late days); ``student``: read only that student's (enough for
        their late days). ``db_url``: the gradebook to read (default: the course's, ``Course.db_url``,
        which loads the config file again). Raises PolicyFileError naming every bad line.
        """
        config = load_config(course) if config is None else config
        gradebook = read_gradebook(course, hand_ins, student, students=check_ids, db_url=db_url)
        timestamps = gradebook.timestamps
        for assignment in (gradebook.due if hand_ins else ()):
            for someone in [student] if student is not None else course_students(course, assignment):
                stamp = read_timestamp(course.submission_folder(someone, assignment))
                if stamp and assignment not in timestamps.get(someone, {}):
                    timestamps.setdefault(someone, {})[assignment] = _parse_stamp(stamp)
        settings = class_policy(config, gradebook.due)
        known = known_students(course, gradebook) if check_ids else None
        known_assignments = set(gradebook.due) | set(settings.due) if check_ids else None
        declaration = read_policy_file(policy_file_of(course, config), settings.accommodations,
                                       known, known_assignments)
        return cls(settings, declaration, timestamps, tuple(sorted(set(gradebook.due) | set(settings.due))))

    def resolve(self, student: str, assignment: str) -> ResolvedPolicy:
        """``student``'s policy for ``assignment``."""
        return resolve(student, assignment, self.declaration, self.course)

    def late_outcomes(self, student: str) -> dict[str, LateOutcome]:
        """assignment -> what lateness cost ``student``'s hand-in of it (only assignments handed in)."""
        hand_ins = [HandIn(self.resolve(student, a), t) for a, t in self.timestamps.get(student, {}).items()]
        return spend_late_days(hand_ins)

    def late_days_left(self, student: str) -> int:
        """Late days ``student`` has left after every recorded hand-in."""
        spent = sum(o.late_days_spent for o in self.late_outcomes(student).values())
        allowance = self.resolve(student, self.assignments[0] if self.assignments else "").late_days
        return max(0, allowance - spent)

    def students(self) -> list[str]:
        """Every student with a recorded hand-in or an override."""
        named = {r.who for r in self.declaration.rows if r.group is None}
        return sorted(named | set(self.timestamps))


def refuse_unusable_policy(course_root: str, check_ids: bool = True) -> None:
    """SystemExit naming every bad line when the course policy (c.CoursePolicy, policy.csv) of the
    course at ``course_root`` cannot be used; ``check_ids``: a line for a student or assignment the
    course does not know is one too. A function of a path, so a grading worker can run it."""
    try:
        PolicyBook.of(Course(Path(course_root)), check_ids=check_ids)
    except PolicyFileError as exc:
        raise SystemExit("error: the course policy cannot be used:\n  " + "\n  ".join(exc.problems)
                         + "\nfix these lines (grader policy validate checks again)") from None


def known_students(course: Course, gradebook: GradebookDates) -> set[str]:
    """The student ids the course knows: the gradebook's and those with a hand-in in ``submitted/``."""
    return gradebook.students | {s for a in gradebook.due for s in course_students(course, a)}


def course_students(course: Course, assignment: str) -> list[str]:
    try:
        return course.students(assignment)
    except (OSError, ValueError):
        return []


def _parse_stamp(text: str) -> datetime | None:
    from nbgrader.utils import parse_utc

    try:
        return utc(parse_utc(text))
    except Exception:  # an unreadable timestamp.txt: nbgrader grades it without a time, so do we
        return None


@dataclass(frozen=True)
class GradebookDates:
    """What the gradebook records: assignment -> due date, student ids, student -> assignment -> timestamp."""

    due: dict[str, datetime | None]
    students: set[str]
    timestamps: dict[str, dict[str, datetime]]


def read_gradebook(course: Course, hand_ins: bool = True, student: str | None = None,
                   students: bool = True, db_url: str | None = None) -> GradebookDates:
    """The gradebook's due dates, (``students``) student ids and (``hand_ins``) submission timestamps,
    of every student or only ``student``; empty when there is no gradebook yet.

    ``students`` False leaves the ids out (an empty set): the class's every row, which grading one
    hand-in does not need. ``db_url``: the gradebook's URL (default: ``course.db_url``)."""
    from nbgrader.api import Assignment, Gradebook, Student, SubmittedAssignment

    db_url = db_url or course.db_url  # read from the course config once
    sqlite_file = sqlite_file_of(db_url)
    if sqlite_file is not None and not sqlite_file.exists():
        return GradebookDates({}, set(), {})
    # Column queries, not nbgrader's objects: a submission's student and assignment would be a query each.
    with Gradebook(db_url) as gb:
        due = {name: utc(duedate) for name, duedate
               in gb.db.query(Assignment.name, Assignment.duedate).order_by(Assignment.duedate, Assignment.name)}
        ids = {id_ for (id_,) in gb.db.query(Student.id)} if students else set()
        rows = []
        if hand_ins:
            query = (gb.db.query(SubmittedAssignment.student_id, Assignment.name, SubmittedAssignment.timestamp)
                     .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id))
            rows = (query if student is None else query.filter(SubmittedAssignment.student_id == student)).all()
        timestamps: dict[str, dict[str, datetime]] = {}
        for someone, assignment, timestamp in rows:
            if timestamp is not None:
                timestamps.setdefault(someone, {})[assignment] = utc(timestamp)
    return GradebookDates(due, ids, timestamps)
