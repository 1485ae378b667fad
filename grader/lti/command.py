"""``grader lti``: register the course with an LMS platform and pass scores back (:mod:`grader.lti`).

    grader lti register --issuer URL --client-id ID --deployment-id ID --auth-url URL
                        --token-url URL --jwks-url URL --lineitems-url URL [--audience AUD]
    grader lti jwks                 the tool's public keys (JWKS), for the LMS registration
    grader lti config --url URL     what the LMS administrator enters, for a hub at URL
    grader lti link STUDENT USER    hub account STUDENT is the LMS user USER (its LTI ``sub``)
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
    from grader.lti.deep_linking import write_deep_linking_file

    course = _course(args)
    try:
        platform = Platform(args.issuer, args.client_id, args.deployment_id, args.auth_url, args.token_url,
                            args.jwks_url, args.lineitems_url, args.audience or "")
    except RegistrationError as exc:
        raise SystemExit(f"error: {exc}") from None
    path = save_platform(course.state_dir, platform)
    offered = write_deep_linking_file(course)
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
        "scopes": [LINEITEM_SCOPE, SCORE_SCOPE],
        "claims": ["sub", "iss", "name", "given_name", "family_name", "email"],
        "privacy_level": "public",
    }


def cmd_config(args) -> int:
    course = _course(args)
    print(json.dumps(tool_configuration(args.url, tool_key(course.state_dir).jwks()), indent=2))
    return 0


def cmd_link(args) -> int:
    from grader.lti.passback import journal_of

    with journal_of(_course(args)) as journal:
        journal.link_account(args.student, args.lms_user)
    print(f"hub account {args.student} is LMS user {args.lms_user}")
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
    q.add_argument("student", help="the hub account (the nbgrader student id)")
    q.add_argument("lms_user", help="the LMS user id (LTI sub)")
    command("status", cmd_status, "the registration and every score not yet posted")
    q = command("resend", cmd_resend, "post every score not yet posted, now")
    q.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="also record every graded submission of these assignments not recorded yet")
