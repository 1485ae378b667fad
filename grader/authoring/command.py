"""The commands ``grader new-assignment ID`` and ``grader check-course``."""
from __future__ import annotations

from pathlib import Path


def cmd_new_assignment(args) -> int:
    from grader.authoring.scaffold import new_assignment

    root = Path(args.course).resolve()
    try:
        written = new_assignment(root, args.assignment)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print(f"Next: edit them, run `grader check-course`, then `nbgrader generate_assignment {args.assignment}`.")
    return 0


def cmd_check_course(args) -> int:
    from grader.authoring.course_findings import course_findings

    findings = course_findings(Path(args.course).resolve())
    for finding in findings:
        print(finding)
    if findings:
        print(f"{len(findings)} thing{'s' if len(findings) != 1 else ''} to fix before releasing.")
        return 1
    print("Every solution cell has a check, every check a test cell, and every checks file loads.")
    return 0


def add_authoring_parser(sub) -> None:
    """Add ``new-assignment`` and ``check-course`` to the ``grader`` command's subparsers."""
    p = sub.add_parser("new-assignment", help="scaffold source/ID/<name>.ipynb and source/ID/checks.py with one "
                                              "function item and one quiz item that already grade")
    p.add_argument("assignment", metavar="ID", help="the new assignment's id, e.g. 05_dropout")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_new_assignment)

    p = sub.add_parser("check-course", help="say what the course's notebooks and checks files still lack "
                                            "(exit status 1 when anything does)")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_check_course)
