"""``grader hub up`` / ``grader hub down``: the command line of :mod:`grader.hub.lifecycle`."""
from __future__ import annotations

import signal
import time
from pathlib import Path

from grader.course import Course
from grader.hub.layout import DEFAULT_CACHE, DEFAULT_ROOT, HubLayout

# The hub's code (JupyterHub's and nbgrader's modules with it) is imported by the commands that run
# it, not when the CLI's parser is built: every other command starts without it.


def _layout(args) -> HubLayout:
    return HubLayout(Path(args.root).resolve(), Path(args.cache).resolve())


def cmd_hub_up(args) -> int:
    from grader.hub.lifecycle import HubError, down, up

    layout = _layout(args)
    course = Course(Path(args.course).resolve())  # on the import path (grader.cli): students get its course_numbers
    try:
        running = up(layout, course, students=args.students, prefix=args.prefix, port=args.port,
                     assignments=args.assignments or None)
    except HubError as exc:  # up() has removed whatever it had made
        print(f"error: {exc}", flush=True)
        return 2
    print(f"course hub at {running.url} (JupyterHub, configurable-http-proxy, grader watch)\n"
          f"accounts and passwords: {layout.accounts_file} (root only)\n"
          f"logs: {layout.state}/*.log\n"
          f"Ctrl-C or SIGTERM stops the hub and removes its accounts and folders", flush=True)
    stop = []  # a Ctrl-C or SIGTERM while starting interrupts up(), which removes what it made
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(True))
    try:
        while not stop:
            time.sleep(0.5)
    finally:
        down(layout)
    return 0


def cmd_hub_down(args) -> int:
    from grader.hub.lifecycle import down

    down(_layout(args))
    return 0


def cmd_hub_release(args) -> int:
    from grader.hub.drafts import DraftError
    from grader.hub.lifecycle import HubError, release_drafts

    try:
        release_drafts(_layout(args), args.assignments)
    except (HubError, DraftError) as exc:
        print(f"error: {exc}", flush=True)
        return 2
    return 0


def add_hub_parser(sub) -> None:
    p = sub.add_parser("hub", help="a complete local course hub: JupyterHub, accounts, exchange, grader watch")
    hub = p.add_subparsers(dest="hub_command", required=True)
    for name, func, text in (("up", cmd_hub_up, "start the hub (foreground; Ctrl-C tears it down)"),
                             ("down", cmd_hub_down, "stop and remove a hub that `up` left behind"),
                             ("release", cmd_hub_release, "take the instructor's drafts of assignments into "
                                                          "the course (as data) and release them")):
        q = hub.add_parser(name, help=text)
        q.add_argument("--root", default=str(DEFAULT_ROOT),
                       help=f"the hub's folder: homes, exchange, state (default: {DEFAULT_ROOT})")
        q.add_argument("--cache", default=str(DEFAULT_CACHE),
                       help=f"kept between hubs: the students' environment and the proxy (default: {DEFAULT_CACHE})")
        q.set_defaults(func=func)
        if name == "up":
            q.add_argument("--course", default=".", help="the course folder to serve, copied into the hub "
                                                          "(default: the current folder)")
            q.add_argument("--students", type=int, default=3, help="student accounts to create (default: 3)")
            q.add_argument("--prefix", default="sal", help="account names: PREFIX-instructor, PREFIX-s1, ... (default: sal)")
            q.add_argument("--port", type=int, default=8000,
                           help="the hub's port on 127.0.0.1 (default: 8000; 0: any free port)")
            q.add_argument("--assignments", nargs="*", metavar="ASSIGNMENT",
                           help="assignments to release (default: every folder source/<id>/ of the course)")
        if name == "release":
            q.add_argument("assignments", nargs="+", metavar="ASSIGNMENT",
                           help="assignments whose draft (~/drafts/ASSIGNMENT/ of the instructor) to release")
