"""The `grader` command: release, grade a class, feedback, class report, demo, doctor.

    grader release [ASSIGNMENT ...]          regenerate release/ from source/ (nbgrader generate_assignment)
    grader new-assignment ID                 scaffold source/ID/: a notebook and its checks file, ready to grade
    grader check-course                      what the notebooks and checks files still lack (status 1 if anything)
    grader autograde ASSIGNMENT ... [--workers N] [--force]
                                             grade every submission in parallel (unchanged ones are skipped)
    grader autograde ASSIGNMENT ... --scheduler ADDRESS   ... on a Dask distributed cluster (tls://, mutual TLS)
    grader cluster-certs [DIR]               the course's CA and certificates for that cluster
    grader feedback ASSIGNMENT               feedback pages (nbgrader generate_feedback)
    grader report ASSIGNMENT | --all         class report: terminal tables, an HTML page and its CSV
    grader similarity ASSIGNMENT             pairs of submissions possibly written together (instructors only)
    grader export --canvas FILE --roster R   grades as a CSV for Canvas's gradebook import
    grader roster ROSTER.csv                 students' names from the roster into the gradebook (the formgrader's list)
    grader translate extract | check | compile DIR
                                             the notebooks' prose catalogue (locales/): regenerate, check, compile
    grader policy show | set | grant-late-days | late-days | validate
                                             deadlines, extensions, late days and accommodations (grader.policy)
    grader demo [--dir DIR] [--claims]       the whole job end to end on a simulated class
    grader doctor                            which sandbox protections are active here
    grader check-pages [--course DIR]        feedback pages and autograded notebooks holding active content
    grader watch [--once]                    the grading service: collect, grade, release feedback
    grader hub up | down | release           a complete local course hub (JupyterHub, accounts, grader watch)
    grader lti register | jwks | config | link | status | resend
                                             the course as an LTI 1.3 tool of an LMS: launches into the
                                             hub, deep linking, scores to the LMS gradebook
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from grader.console import make_console
from grader.course import Course
from grader.course_imports import COURSE_PACKAGE_NAMES, import_from_course
from grader.root_trust import UntrustedError


def _ensure_tools_on_path() -> None:
    # nbgrader calls the `alembic` executable when it creates a gradebook; make the one installed
    # beside this interpreter findable even when the virtual environment is not activated.
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def _course(args) -> Course:
    root = Path(args.course).resolve()
    if not (root / "nbgrader_config.py").exists():
        raise SystemExit(f"error: {root} is not a course folder (no nbgrader_config.py); pass --course DIR")
    return Course(root)


def cmd_release(args) -> int:
    from grader.release import regenerate_release

    course = _course(args)
    return 0 if regenerate_release(course, args.assignments or course.assignments(), make_console()) else 1


def _known_assignments(course: Course, assignments: list[str]) -> list[str]:
    """``assignments``, each an assignment of ``course`` (``Course.notebooks``); exits naming any other."""
    for assignment in assignments:
        try:
            course.notebooks(assignment)
        except ValueError as exc:
            raise SystemExit(f"error: {exc}") from None
    return assignments


def _refuse_unusable_policy(course: Course, check_ids: bool = True) -> None:
    """Stop before grading when the course policy (c.CoursePolicy, policy.csv) has a bad line;
    ``check_ids``: a line for a student or assignment the course does not know is one too."""
    from grader.policy.course_policy import refuse_unusable_policy

    refuse_unusable_policy(str(course.root), check_ids)


def cmd_autograde(args) -> int:
    from grader.scheduling.class_run import run_autograde

    course = _course(args)
    _known_assignments(course, args.assignments)
    if args.scheduler:  # a Dask distributed cluster grades the same tasks (grader.scheduling.dask_cluster)
        _refuse_unusable_policy(course)
        from grader.scheduling.cluster_security import InsecureSchedulerError, client_security
        from grader.scheduling.dask_cluster import ClusterSetupError

        try:
            client_security(course, args.scheduler, insecure=args.insecure_scheduler)  # refuse before any work
            return run_autograde(course, args.assignments, workers=args.workers, force=args.force,
                                 console=make_console(), scheduler=args.scheduler,
                                 insecure_scheduler=args.insecure_scheduler)
        except (ClusterSetupError, InsecureSchedulerError) as exc:
            raise SystemExit(f"error: {exc}") from None
    from grader.policy.course_policy import refuse_unusable_policy

    # the policy is checked before any hand-in is graded, by the first worker (it loads the course config anyway)
    return run_autograde(course, args.assignments, workers=args.workers, force=args.force, console=make_console(),
                         before_grading=refuse_unusable_policy)


def cmd_feedback(args) -> int:
    from grader.grading import nbgrader_apps

    course = _course(args)
    result = nbgrader_apps.generate_feedback(course, _known_assignments(course, [args.assignment])[0])
    if not result["success"]:
        # nbgrader's log names the notebook and the cause; its error only says "see the log".
        print(result.get("log") or result.get("error"), file=sys.stderr)
        return 1
    return 0


def cmd_report(args) -> int:
    from grader.reporting import write_report
    from grader.reporting.class_report import build_report, gradebook_assignments
    from grader.reporting.terminal import print_class_report

    if bool(args.assignment) == bool(args.all):
        raise SystemExit("error: name one ASSIGNMENT or pass --all")
    course = _course(args)
    known = gradebook_assignments(course)
    if args.assignment and args.assignment not in known:
        raise SystemExit(f"error: {args.assignment!r} is not an assignment of this course's gradebook "
                         f"({', '.join(known) or 'it has none yet'}); release it first "
                         "(nbgrader generate_assignment) or check the spelling")
    assignments = known if args.all else [args.assignment]
    assignments = [a for a in assignments if course.students(a) or not args.all]
    if not assignments:
        raise SystemExit(f"error: no submissions in {course.root / 'submitted'}; grade a class first")
    console = make_console()
    for assignment in assignments:
        print_class_report(build_report(course, assignment), console)
    page, table = write_report(course, assignments, Path(args.output) if args.output else None)
    console.print(f"\nclass report: {page}\ntables (CSV): {table}", soft_wrap=True, highlight=False)
    return 0


def cmd_similarity(args) -> int:
    from grader.similarity import similar_pairs
    from grader.similarity.report import print_similar_pairs

    course = _course(args)
    _known_assignments(course, [args.assignment])
    if not course.students(args.assignment):
        raise SystemExit(f"error: no submissions of {args.assignment} in {course.root / 'submitted'}")
    try:
        report = similar_pairs(course, args.assignment)
    except FileNotFoundError as exc:
        raise SystemExit(f"error: {exc}") from None
    print_similar_pairs(report, make_console())
    if report.pairs:
        print(f"side by side: `grader report {args.assignment}`, section \"Possibly written together\"")
    return 0


def cmd_roster(args) -> int:
    from grader.reporting.canvas import RosterError
    from grader.reporting.roster_names import add_roster_names

    course = _course(args)
    try:
        count = add_roster_names(course.db_url, Path(args.roster), course.state_dir)
    except RosterError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"names of {count} students from {args.roster} are in the gradebook")
    return 0


def cmd_validate(args) -> int:
    from grader.validation import CourseValidator

    validator = CourseValidator()
    for notebook in args.notebooks:
        if not Path(notebook).is_file():
            raise SystemExit(f"error: no notebook {notebook}")
        validator.validate_and_print(notebook)
    return 0


def cmd_export(args) -> int:
    from grader.reporting.canvas import RosterError, export_canvas

    course = _course(args)
    canvas_ids = {}
    for pair in args.assignment_id:
        name, sep, canvas_id = pair.partition("=")
        if not sep or not name.strip() or not canvas_id.strip().isdigit():
            raise SystemExit(f"error: --assignment-id {pair!r} must look like 02_softmax=12345 (a Canvas assignment id)")
        canvas_ids[name.strip()] = canvas_id.strip()
    try:
        result = export_canvas(course.db_url, Path(args.roster), Path(args.canvas), canvas_ids)
    except RosterError as exc:
        raise SystemExit(f"error: {exc}") from None
    if result.not_in_gradebook:
        print(f"warning: {len(result.not_in_gradebook)} roster student(s) have no gradebook entry and get 0 "
              f"for every assignment: {', '.join(result.not_in_gradebook)}", file=sys.stderr)
    if result.not_in_roster:
        left = " (the earlier file there is left unchanged)" if result.path.exists() else ""
        print(f"error: {len(result.not_in_roster)} gradebook student(s) are not in the roster {args.roster}: "
              f"{', '.join(result.not_in_roster)}; nothing was written to {result.path}{left}. Add them to the "
              "roster (or give an nbgrader_id column) and export again", file=sys.stderr)
        return 1
    print(f"Canvas import file: {result.path} ({result.students} students x {len(result.assignments)} assignments)")
    return 0


def cmd_demo(args) -> int:
    from grader.demo.run import run_demo

    return run_demo(Path(args.dir) if args.dir else None, workers=args.workers, console=make_console(),
                    claims_table=args.claims)


def cmd_doctor(args) -> int:
    from grader import doctor

    return doctor.main(["--config", args.config] if args.config else [])


# ---- check-pages: pages that would run a submission's script (grader.pages) ----
def cmd_check_pages(args) -> int:
    from grader.pages.check import check_pages

    return check_pages(_course(args).root)


def add_check_pages_parser(sub) -> None:
    p = sub.add_parser("check-pages", help="report pages (feedback, status, reports) and autograded notebooks that "
                                           "hold active content (script, event handlers, remote resources), and "
                                           "pages without the course's Content-Security-Policy")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_check_pages)
# ---- end check-pages ----


# ---- cluster-certs: the course's CA and certificates for a grading cluster (grader.scheduling.cluster_security) ----
def cmd_cluster_certs(args) -> int:
    from grader.scheduling.cluster_security import (
        CERTS_VARIABLE,
        CertificatesExistError,
        UntrustedFolderError,
        certificates_folder,
        make_certificates,
    )

    course = _course(args)
    course.state_dir  # created mode 0700 before anything is written into it (the default folder is inside)
    folder = Path(args.dir).resolve() if args.dir else certificates_folder(course)
    try:
        written = make_certificates(folder, days=args.days, label=f"grader {course.root.name}", force=args.force)
    except (CertificatesExistError, UntrustedFolderError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"course CA and certificates, valid {args.days} days, in {folder} (mode 0700, keys 0600):")
    for path in written:
        print(f"  {path.name}")
    print("scheduler machine: ca.pem scheduler.pem scheduler-key.pem; every worker machine (root only): "
          "ca.pem worker.pem worker-key.pem; the grader keeps ca.pem client.pem client-key.pem here")
    if args.dir and folder != certificates_folder(course):
        print(f"set {CERTS_VARIABLE}={folder} where `grader autograde --scheduler` runs")
    return 0


def add_cluster_certs_parser(sub) -> None:
    p = sub.add_parser("cluster-certs", help="make the course's CA and the certificates of its grading cluster "
                                             "(scheduler, workers, this grader) for mutual TLS")
    p.add_argument("dir", nargs="?", default=None, metavar="DIR",
                   help="folder to write them to (default: $GRADER_CLUSTER_CERTS, else the course's "
                        ".grader/cluster-certs, where grader autograde --scheduler looks)")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.add_argument("--days", type=int, default=365, help="how long the certificates are valid, in days "
                                                          "(default: 365)")
    p.add_argument("--force", action="store_true", help="replace certificates already in DIR")
    p.set_defaults(func=cmd_cluster_certs)
# ---- end cluster-certs ----


# ---- grader watch: the grading service (grader.service) ----------------------------------------

def cmd_watch(args) -> int:
    import logging

    from grader.root_trust import UntrustedError, refuse_untrusted_course

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%Y-%m-%dT%H:%M:%S")
    logging.getLogger("traitlets").setLevel(logging.WARNING)  # nbgrader's per-poll exchange chatter
    course = _course(args)
    try:  # as root: nothing it loads (config, grader, solutions, sys.path) may be another account's
        refuse_untrusted_course(course.root, f"the course {course.root}")
    except UntrustedError as exc:
        raise SystemExit(f"error: grader watch: {exc}") from None
    from grader.service.watch import serve  # after the check: it imports the course's packages

    # students the gradebook does not know yet may have overrides: the service adds them as they hand in
    _refuse_unusable_policy(course, check_ids=False)
    return serve(course, once=args.once, fix_permissions=args.fix_permissions, workers=args.workers,
                 scheduler=args.scheduler, insecure_scheduler=args.insecure_scheduler)


def add_watch_parser(sub) -> None:
    p = sub.add_parser("watch", help="grading service: collect submissions from the exchange, grade, "
                                     "release feedback")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.add_argument("--once", action="store_true", help="handle what is waiting, then exit")
    p.add_argument("--fix-permissions", action="store_true",
                   help="close course paths other accounts can read instead of refusing to start")
    p.add_argument("--workers", type=int, default=None,
                   help="submissions graded at once (default: c.GradingService.workers)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="grade on the Dask cluster of this scheduler (as grader autograde --scheduler)")
    p.add_argument("--insecure-scheduler", action="store_true",
                   help="grade even on a scheduler without mutual TLS (tcp://), as grader autograde")
    p.set_defaults(func=cmd_watch)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("release", help="regenerate release/ from source/ with nbgrader generate_assignment")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="default: every assignment of the course (its folders source/<id>/)")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_release)

    p = sub.add_parser("autograde", help="grade every submission in parallel, skipping unchanged ones")
    p.add_argument("assignments", nargs="+", metavar="ASSIGNMENT",
                   help="any folder source/<id>/ of the course, ordinary nbgrader assignments too")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.add_argument("--workers", type=int, default=None, help="grading processes (default: CPUs)")
    p.add_argument("--force", action="store_true",
                   help="grade again even submissions whose inputs have not changed since they were graded")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="grade on the Dask distributed cluster of this scheduler (tls://host:8786, started "
                        "with the course's certificates: grader cluster-certs); the course folder must be "
                        "shared with every worker at the same path")
    p.add_argument("--insecure-scheduler", action="store_true",
                   help="grade even on a scheduler without mutual TLS (tcp://): anyone who can reach it "
                        "can then run code as the workers' user, root")
    p.set_defaults(func=cmd_autograde)
    add_cluster_certs_parser(sub)

    for name, func, text in (("feedback", cmd_feedback, "generate feedback pages"),):
        p = sub.add_parser(name, help=text)
        p.add_argument("assignment", help="any folder source/<id>/ of the course")
        p.add_argument("--course", default=".", help="course folder (default: the current folder)")
        p.set_defaults(func=func)

    p = sub.add_parser("report", help="class report: terminal tables, an HTML page and a CSV of its tables")
    p.add_argument("assignment", nargs="?", help="the assignment to report on (any of the gradebook)")
    p.add_argument("--all", action="store_true", help="one page for every assignment with submissions")
    p.add_argument("--output", default=None, metavar="PAGE.html",
                   help="where to write the page (default: reports/<ASSIGNMENT>.html or reports/class-report.html)")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("similarity", help="pairs of submissions whose solution cells share unusual code "
                                          "(template, names, comments and literals ignored)")
    p.add_argument("assignment", help="any folder source/<id>/ of the course")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_similarity)

    p = sub.add_parser("export", help="grades as a CSV that Canvas's gradebook import accepts")
    p.add_argument("--canvas", required=True, metavar="FILE", help="the Canvas import CSV to write")
    p.add_argument("--roster", required=True, metavar="ROSTER.csv",
                   help="columns Student, ID, SIS User ID, SIS Login ID, Section (e.g. Canvas's own gradebook "
                        "export); the nbgrader id is the nbgrader_id column if present, else SIS Login ID")
    p.add_argument("--assignment-id", action="append", default=[], metavar="ASSIGNMENT=CANVAS_ID",
                   help="update this existing Canvas assignment (repeatable); without it Canvas creates a new one")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("roster", help="students' first and last names from the roster into the gradebook, "
                                      "so nbgrader's formgrader lists them by name, and the language each "
                                      "student reads feedback in")
    p.add_argument("roster", metavar="ROSTER.csv", help="the roster of `grader export --canvas`: columns Student "
                   "(\"Last, First\"), ID, SIS User ID, SIS Login ID, Section; the nbgrader id as there; "
                   "an optional column Language (en or zh; empty: the course's default)")
    p.add_argument("--course", default=".", help="course folder (default: the current folder)")
    p.set_defaults(func=cmd_roster)

    p = sub.add_parser("validate", help="run notebooks as nbgrader validate does; test cells whose answer is "
                                        "not written yet (it still raises NotImplementedError) are listed apart "
                                        "from failures")
    p.add_argument("notebooks", nargs="+", metavar="NOTEBOOK.ipynb")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("demo", help="run the whole job end to end on a simulated class")
    p.add_argument("--dir", default=None,
                   help="the demo's course folder (default: demo-course/ in the checkout; replaced on each run)")
    p.add_argument("--workers", type=int, default=None, help="grading processes (default: CPUs)")
    p.add_argument("--claims", action="store_true",
                   help="print the table of every claim of the lessons, not its one-line summary")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("doctor", help="report which sandbox protections are active on this machine")
    p.add_argument("--config", default=None, help="nbgrader_config.py to probe (default: ./nbgrader_config.py)")
    p.set_defaults(func=cmd_doctor)

    add_check_pages_parser(sub)
    add_watch_parser(sub)
    from grader.authoring.command import add_authoring_parser

    add_authoring_parser(sub)
    from grader.policy.command import add_policy_parser

    add_policy_parser(sub, _course)
    from grader.language.translate_command import add_translate_parser

    add_translate_parser(sub, _course)
    from grader.hub.command import add_hub_parser

    add_hub_parser(sub)
    from grader.lti.command import add_lti_parser

    add_lti_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    _ensure_tools_on_path()
    args = build_parser().parse_args(argv)
    if getattr(args, "course", None):
        # Before a command imports the grading code: the course's packages (the reference
        # `solutions`, `course_numbers`) import from the course folder (grader.course_imports).
        try:
            import_from_course(args.course)
        except UntrustedError as exc:
            raise SystemExit(f"error: {exc}") from None
    try:
        return args.func(args)
    except ModuleNotFoundError as exc:
        if exc.name not in COURSE_PACKAGE_NAMES:
            raise
        folder = Path(getattr(args, "course", None) or ".").resolve()
        raise SystemExit(f"error: the course's package {exc.name!r} is not in the course folder {folder}: the "
                         f"grader imports it from there ({folder / exc.name}/); copy it from the course's "
                         "repository, or pass --course with the course folder") from None


if __name__ == "__main__":
    sys.exit(main())
