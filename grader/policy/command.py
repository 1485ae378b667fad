"""``grader policy``: see, change and check the course's deadlines, extensions, late days and accommodations.

    grader policy show STUDENT [ASSIGNMENT ...]       the student's own dates, windows, limits and late days
    grader policy set WHO SETTING VALUE [--assignment A]   one override in the policy file (WHO: id or group:NAME)
    grader policy grant-late-days STUDENT N            N late days more than the student has now
    grader policy late-days                            who has spent which late days, and who has an extension
    grader policy validate                             check the policy file and c.CoursePolicy, line by line

Every change is checked before it is written: the whole file with the new line must be valid, and
an override for a student the course does not know is refused with the ids it knows.
"""
from __future__ import annotations

import sys
from pathlib import Path

from grader.course import Course, load_config
from grader.policy.course_policy import PolicyBook, class_policy, known_students, policy_file_of, read_gradebook
from grader.policy.declaration import OVERRIDES, PolicyFileError, parse_policy_text, unknown_student_text
from grader.policy.editing import with_override, write_policy_text
from grader.policy.standing import hours_text, moment_text, standing


def _book(course: Course) -> PolicyBook:
    try:
        return PolicyBook.of(course, check_ids=True)
    except PolicyFileError as exc:
        raise SystemExit("error: the course policy cannot be used:\n  " + "\n  ".join(exc.problems)
                         + "\nfix these lines (grader policy validate checks again)") from None


def cmd_show(course: Course, args) -> int:
    book = _book(course)
    known = known_students(course, read_gradebook(course, hand_ins=False))
    if args.student not in known:
        raise SystemExit(f"error: {unknown_student_text(args.student, known)}")
    assignments = args.assignments or list(book.assignments)
    if not assignments:
        raise SystemExit("error: the course has no assignment with a due date yet; name one")
    print(f"{args.student}: {book.late_days_left(args.student)} late day(s) left")
    for assignment in assignments:
        now = standing(book, args.student, assignment)
        policy = now.policy
        lines = [
            f"{assignment}:",
            f"  due            {moment_text(policy.due)}"
            + (f" (class: {moment_text(policy.class_due)})" if policy.due != policy.class_due else ""),
            f"  release        {moment_text(policy.release)}",
            "  late window    " + ("no end" if policy.late_window is None
                                   else hours_text(policy.late_window.total_seconds())),
            f"  late penalty   {policy.late_penalty_per_day * 100:g} % per started day",
            f"  graded/hour    {policy.max_graded_per_hour}",
            f"  attempts       {' '.join(f'{share:g}' for share in policy.attempt_schedule)}",
        ]
        if policy.accommodation:
            lines.append(f"  accommodation  {policy.accommodation} (x{policy.scale:g})")
        if policy.groups:
            lines.append(f"  groups         {', '.join(policy.groups)}")
        if now.outcome is not None:
            lines.append(f"  handed in      {hours_text(now.outcome.seconds_late)} late after "
                         f"{now.outcome.late_days_spent} late day(s); penalty {now.outcome.penalty_share * 100:g} %")
        lines += [f"  ({setting} from the policy file, {source})" for setting, source in policy.sources.items()]
        print("\n".join(lines))
    return 0


def set_override(course: Course, who: str, assignment: str, setting: str, value: str) -> Path:
    """Write one override after checking the whole file with it; PolicyFileError names what is wrong."""
    config = load_config(course)
    path = policy_file_of(course, config)
    gradebook = read_gradebook(course)
    settings = class_policy(config, gradebook.due)
    text = with_override(path.read_text(encoding="utf-8") if path.exists() else "", who, assignment, setting, value)
    parse_policy_text(text, path.name, settings.accommodations, known_students(course, gradebook),
                      set(gradebook.due) | set(settings.due))
    write_policy_text(path, text)
    return path


def cmd_set(course: Course, args) -> int:
    try:
        path = set_override(course, args.who, args.assignment or "", args.setting, args.value)
    except PolicyFileError as exc:
        raise SystemExit("error: nothing was changed:\n  " + "\n  ".join(exc.problems)) from None
    where = f"for {args.assignment}" if args.assignment else "for every assignment"
    print(f"{path.name}: {args.who} {args.setting} = {args.value} {where}")
    return 0


def cmd_grant(course: Course, args) -> int:
    if args.days < 1:
        raise SystemExit("error: grant at least 1 late day")
    book = _book(course)
    allowance = book.resolve(args.student, book.assignments[0] if book.assignments else "").late_days
    try:
        set_override(course, args.student, "", "late_days", str(allowance + args.days))
    except PolicyFileError as exc:
        raise SystemExit("error: nothing was changed:\n  " + "\n  ".join(exc.problems)) from None
    print(f"{args.student} now has {allowance + args.days} late days for the course "
          f"({book.late_days_left(args.student) + args.days} left)")
    return 0


def cmd_late_days(course: Course, args) -> int:
    from grader.policy.usage import policy_usage

    rows = policy_usage(_book(course))
    if not rows:
        print("no student has an extension, an accommodation or a late day spent")
        return 0
    print(f"{'student':<16}{'assignment':<16}{'extension':<12}{'late days':<11}{'left':<6}penalty")
    for row in rows:
        print(f"{row.student:<16}{row.assignment:<16}{row.extension_text:<12}{row.late_days_spent:<11}"
              f"{row.late_days_left:<6}{row.penalty_share * 100:g} %")
    return 0


def cmd_validate(course: Course, args) -> int:
    try:
        book = PolicyBook.of(course, check_ids=True)
    except PolicyFileError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    path = policy_file_of(course, load_config(course))
    count = len(book.declaration.rows)
    print(f"{path.name}: {count} override{'s' if count != 1 else ''}, all valid" if path.exists()
          else f"no policy file ({path.name}): every student gets the class policy (c.CoursePolicy)")
    return 0


def add_policy_parser(sub, course_of) -> None:
    """``grader policy ...``; ``course_of(args)`` is the CLI's course folder check."""
    p = sub.add_parser("policy", help="deadlines, extensions, late days and accommodations: show, set, grant, "
                                      "list, validate")
    commands = p.add_subparsers(dest="policy_command", required=True)

    def command(name: str, func, text: str):
        q = commands.add_parser(name, help=text)
        q.add_argument("--course", default=".", help="course folder (default: the current folder)")
        q.set_defaults(func=lambda args: func(course_of(args), args))
        return q

    q = command("show", cmd_show, "a student's own due dates, windows, limits and late days")
    q.add_argument("student")
    q.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment with a due date")
    q = command("set", cmd_set, "set one override in the policy file (replacing the one it had)")
    q.add_argument("who", metavar="WHO", help="a student id, or group:NAME")
    q.add_argument("setting", choices=list(OVERRIDES))
    q.add_argument("value", help="e.g. 48 (hours), 2026-03-04T23:59:00+00:00, none, '1 1 0.5', extra-time-1.5x")
    q.add_argument("--assignment", default="", help="only this assignment (default: every assignment)")
    q = command("grant-late-days", cmd_grant, "give a student late days beyond the class's allowance")
    q.add_argument("student")
    q.add_argument("days", type=int)
    command("late-days", cmd_late_days, "who used extensions and late days, per assignment")
    command("validate", cmd_validate, "check the policy file and c.CoursePolicy; each problem names its line")
