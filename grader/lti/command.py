"""``grader lti``: register the course with an LMS platform and pass scores back (:mod:`grader.lti`).

    grader lti register --issuer URL --client-id ID --deployment-id ID --auth-url URL
                        --token-url URL --jwks-url URL --lineitems-url URL [--audience AUD]
    grader lti jwks                 the tool's public keys (JWKS), for the LMS registration
    grader lti config --url URL     what the LMS administrator enters, for a hub at URL
    grader lti link STUDENT USER    hub account STUDENT is the LMS user USER (its LTI ``sub``)
    grader lti link --csv FILE      ... every row of a CSV with the columns account,lms_user
    grader lti status               the registration and every score not yet posted
    grader lti resend [ASSIGNMENT ...]   post every score not yet posted now (and any graded
                                    submission of ASSIGNMENT that was never recorded)
"""
from __future__ import annotations

import json
from pathlib import Path

from grader.course import Course
from grader.lti.ags import LINEITEM_SCOPE, SCORE_SCOPE
from grader.lti.journal import REJECTED
from grader.lti.registration import Platform, RegistrationError, load_platform, save_platform
from grader.lti.tool_keys import tool_key


def _course(args) -> Course:
    root = Path(args.course).resolve()
    if not (root / "nbgrader_config.py").exists():
        raise SystemExit(f"error: {root} is not a course folder (no nbgrader_config.py); pass --course DIR")
    return Course(root)


def _platform(course: Course) -> Platform:
    try:
        platform = load_platform(course.state_dir)
    except RegistrationError as exc:
        raise SystemExit(f"error: {exc}") from None
    if platform is None:
        raise SystemExit("error: no LMS platform is registered for this course; run `grader lti register` "
                         "with what the LMS administrator gave you (see `grader lti config`)")
    return platform


def cmd_register(args) -> int:
    from grader.lti.hub_file import write_hub_file

    course = _course(args)
    try:
        platform = Platform(args.issuer, args.client_id, args.deployment_id, args.auth_url, args.token_url,
                            args.jwks_url, args.lineitems_url, args.audience or "")
    except RegistrationError as exc:
        raise SystemExit(f"error: {exc}") from None
    path = save_platform(course.state_dir, platform)
    offered = write_hub_file(course)
    print(f"registered {platform.issuer} (client {platform.client_id}, deployment {platform.deployment_id}) "
          f"in {path}; scores are posted to its line items after every grading")
    print(f"the hub offers {len(json.loads(offered.read_text())['assignments'])} assignments to the LMS's deep "
          "linking; run this command again after releasing another")
    return 0


def cmd_jwks(args) -> int:
    print(json.dumps(tool_key(_course(args).state_dir).jwks(), indent=2))
    return 0


def tool_configuration(base_url: str, jwks: dict) -> dict:
    """What an LMS administrator enters to register the tool: launches go to the course hub at
    ``base_url`` (:mod:`grader.hub.lti_login`), scores come from the tool's key."""
    base = base_url.rstrip("/")
    return {
        "title": "Scaled Attention Lab",
        "target_link_uri": f"{base}/hub",
        "oidc_initiation_url": f"{base}/hub/lti13/oauth_login",
        "redirect_uris": [f"{base}/hub/lti13/oauth_callback"],
        "deep_linking_url": f"{base}/hub/lti13/oauth_login",
        "public_jwk_set": jwks,
        "public_jwk_url": f"{base}/hub/lti13/jwks",
        "scopes": [LINEITEM_SCOPE, SCORE_SCOPE],
        "claims": ["sub", "iss", "name", "given_name", "family_name", "email"],
        "privacy_level": "public",
    }


def cmd_config(args) -> int:
    course = _course(args)
    print(json.dumps(tool_configuration(args.url, tool_key(course.state_dir).jwks()), indent=2))
    return 0


LINK_COLUMNS = ("account", "lms_user")


def read_links(path: Path) -> list[tuple[str, str]]:
    """(account, LMS user) of each row of a CSV with the columns ``account`` and ``lms_user``.

    Raises SystemExit naming the file, the line and what is wrong.
    """
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in LINK_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise SystemExit(f"error: {path} has no column {', '.join(missing)}; its first line must name "
                                 f"the columns {','.join(LINK_COLUMNS)}")
            links = []
            for row in reader:
                account, lms_user = (str(row.get(c) or "").strip() for c in LINK_COLUMNS)
                if not account or not lms_user:
                    raise SystemExit(f"error: {path} line {reader.line_num}: both account and lms_user are needed")
                links.append((account, lms_user))
    except OSError as exc:
        raise SystemExit(f"error: cannot read {path}: {exc.strerror}") from None
    return links


def cmd_link(args) -> int:
    from grader.lti.passback import journal_of

    if bool(args.csv) == bool(args.student and args.lms_user):
        raise SystemExit("error: give STUDENT LMS_USER, or --csv FILE with the columns account,lms_user")
    links = read_links(Path(args.csv)) if args.csv else [(args.student, args.lms_user)]
    with journal_of(_course(args)) as journal:
        for account, lms_user in links:
            journal.link_account(account, lms_user)
    for account, lms_user in links[:5]:
        print(f"hub account {account} is LMS user {lms_user}")
    if len(links) > 5:
        print(f"... and {len(links) - 5} more")
    return 0


def cmd_status(args) -> int:
    from grader.lti.passback import journal_of

    course = _course(args)
    platform = _platform(course)
    print(f"platform {platform.issuer}: client {platform.client_id}, deployment {platform.deployment_id}, "
          f"line items {platform.lineitems_url}")
    with journal_of(course) as journal:
        rows, posted = journal.unposted(), len(journal.posted())
    print(f"{posted} scores posted, {len(rows)} not yet posted")
    for row in rows:
        print(f"  {row.state:8} {row.student} {row.assignment} {row.score:g}/{row.max_score:g} "
              f"after {row.attempts} tries: {row.reason or 'not tried yet'}")
    return 1 if any(row.state == REJECTED for row in rows) else 0


def cmd_resend(args) -> int:
    from grader.lti.passback import every_graded, journal_of, post_due, record_gradings

    course = _course(args)
    _platform(course)
    if args.assignments:
        record_gradings(course, every_graded(course, args.assignments))
    with journal_of(course) as journal:
        journal.retry_now()
    summary = post_due(course)
    print(f"{summary.posted} scores posted, {summary.failed} kept for a retry, "
          f"{summary.waiting} waiting for a linked LMS account")
    for reason in summary.reasons:
        print(f"  {reason}")
    return 1 if summary.failed else 0


def add_lti_parser(sub) -> None:
    p = sub.add_parser("lti", help="the course as an LTI 1.3 tool of an LMS: registration, keys, score passback")
    lti = p.add_subparsers(dest="lti_command", required=True)

    def command(name, func, text):
        q = lti.add_parser(name, help=text)
        q.add_argument("--course", default=".", help="course folder (default: the current folder)")
        q.set_defaults(func=func)
        return q

    q = command("register", cmd_register, "record the LMS platform the administrator registered the tool with")
    for option, text in (("--issuer", "the platform's issuer (iss), a URL"),
                         ("--client-id", "the client id the platform gave the tool"),
                         ("--deployment-id", "the deployment id of the tool in the platform"),
                         ("--auth-url", "the platform's OIDC authorization endpoint"),
                         ("--token-url", "the platform's OAuth 2 token endpoint"),
                         ("--jwks-url", "the platform's public keys (JWKS)"),
                         ("--lineitems-url", "the course's AGS line items container URL (…/lineitems)")):
        q.add_argument(option, required=True, help=text)
    q.add_argument("--audience", default="", help="the aud the token endpoint expects (default: the token URL)")
    command("jwks", cmd_jwks, "print the tool's public keys (JWKS) for the LMS registration")
    q = command("config", cmd_config, "print what the LMS administrator enters to register the tool")
    q.add_argument("--url", required=True, help="the course hub's public address, e.g. https://hub.example.edu")
    q = command("link", cmd_link, "record that a hub account is an LMS user (the sub of its LTI launches)")
    q.add_argument("student", nargs="?", help="the hub account (the nbgrader student id)")
    q.add_argument("lms_user", nargs="?", help="the LMS user id (LTI sub)")
    q.add_argument("--csv", default=None, metavar="FILE",
                   help="link every row of a CSV with the columns account,lms_user instead")
    command("status", cmd_status, "the registration and every score not yet posted")
    q = command("resend", cmd_resend, "post every score not yet posted, now")
    q.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="also record every graded submission of these assignments not recorded yet")
