"""Privacy on the course hub, tested from a student's own server: code the student runs in a kernel
of their JupyterLab (started through the hub's API with the student's own token) cannot read the
course, the gradebook, ``solutions``, another student's home, hand-ins or feedback, the hub's
secrets, nor reach the grading service's processes or the proxy's API.

The other student (``student(0)``) has handed in and fetched feedback first (``student_path``), so
every target exists; the test checks that as root before asking the student.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hub_browser import HubUser
from hub_kernel import api_token, run_in_kernel
from hub_session import ASSIGNMENT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course_hub")]

#: Runs in the student's kernel: TARGETS is replaced by a JSON object; prints one JSON object.
PROBE = r'''
import importlib.util, json, os, urllib.error, urllib.request
targets = json.loads(TARGETS)

def outcome(action):
    try:
        action()
        return "allowed"
    except Exception as error:
        return "denied: " + type(error).__name__

def read(path):
    if os.path.isdir(path):
        os.listdir(path)
    else:
        with open(path, "rb") as handle:
            handle.read(1)

def http_status(url, token=None):
    request = urllib.request.Request(url, headers={"Authorization": "token " + token} if token else {})
    try:
        return urllib.request.urlopen(request, timeout=20).status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError as error:
        return "no connection: " + type(error).__name__

result = {"read": {name: outcome(lambda p=path: read(p)) for name, path in targets["read"].items()},
          "import": {name: importlib.util.find_spec(name) is not None for name in ("grader", "solutions")},
          "signal": {str(pid): outcome(lambda p=pid: os.kill(p, 0)) for pid in targets["service"]},
          "environ": {str(pid): outcome(lambda p=pid: read(f"/proc/{p}/environ")) for pid in targets["service"]},
          "cwd": {str(pid): outcome(lambda p=pid: os.listdir(f"/proc/{p}/cwd")) for pid in targets["service"]},
          "proxy_api": http_status(targets["proxy_api"]),
          "hub_users": http_status(os.environ["JUPYTERHUB_API_URL"] + "/users", os.environ["JUPYTERHUB_API_TOKEN"]),
          "whoami": os.getuid()}
print(json.dumps(result))
'''


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (read from /proc as root)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _one(folder: Path, pattern: str) -> str:
    matches = sorted(folder.glob(pattern))
    assert matches, f"nothing matches {folder}/{pattern}"
    return str(matches[-1])


def _targets(course_hub) -> dict:
    layout, other = course_hub.layout, course_hub.student(0)
    course = course_hub.course
    exchange = layout.exchange / "scaled-attention-lab"
    home = Path(other.home)
    read = {
        "course folder": str(course),
        "gradebook": str(course_hub.layout.gradebook_folder / "gradebook.db"),
        "solutions package": str(course / "solutions" / "__init__.py"),
        "instructor source": str(course / "source" / ASSIGNMENT),
        "submitted": str(course / "submitted"),
        "autograded": str(course / "autograded"),
        "course feedback": str(course / "feedback"),
        "grading state": str(course / ".grader"),
        "other student's home": str(home),
        "other student's notebook": str(home / ASSIGNMENT / "softmax.ipynb"),
        "other student's feedback copy": _one(home / ASSIGNMENT / "feedback", "*/softmax.html"),
        "other student's nbgrader cache": str(home / ".local" / "share" / "jupyter" / "nbgrader_cache"),
        "exchange inbound listing": str(exchange / "inbound"),
        "exchange feedback listing": str(exchange / "feedback"),
        "hub database": str(layout.state / "jupyterhub.sqlite"),
        "hub cookie secret": str(layout.state / "jupyterhub_cookie_secret"),
        "hub config": str(layout.hub_config),
        "account passwords": str(layout.accounts_file),
    }
    missing = [name for name, path in read.items() if not os.path.lexists(path)]
    assert missing == [], f"targets that do not exist (the test would prove nothing): {missing}"
    return {"read": read, "service": _descendants(course_hub.running.watch_pid),
            "proxy_api": f"http://127.0.0.1:{course_hub.running.ports['proxy_api']}/api/routes"}


@pytest.fixture(scope="module")
def seen_by_a_student(course_hub, student_path, browser, hub_artefacts) -> dict:
    targets = _targets(course_hub)
    user = HubUser(browser, course_hub.url, course_hub.student(1), hub_artefacts / "privacy")
    try:
        user.login()
        token = api_token(user)
    finally:
        user.close()
    code = PROBE.replace("TARGETS", repr(json.dumps(targets)))
    output = run_in_kernel(course_hub.url, course_hub.student(1).name, token, code)
    return {"targets": targets, **json.loads(output.strip().splitlines()[-1])}


def test_the_probe_runs_as_the_student_not_as_root(seen_by_a_student, course_hub):
    import pwd

    assert seen_by_a_student["whoami"] == pwd.getpwnam(course_hub.student(1).name).pw_uid


@pytest.mark.parametrize("target", ["course folder", "gradebook", "solutions package", "instructor source",
                                    "submitted", "autograded", "course feedback", "grading state"])
def test_a_student_cannot_read_the_course(seen_by_a_student, target):
    assert seen_by_a_student["read"][target] == "denied: PermissionError"


def test_a_student_cannot_import_grader_or_solutions(seen_by_a_student):
    assert seen_by_a_student["import"] == {"grader": False, "solutions": False}


@pytest.mark.parametrize("target", ["other student's home", "other student's notebook",
                                    "other student's feedback copy", "other student's nbgrader cache",
                                    "exchange inbound listing", "exchange feedback listing"])
def test_a_student_cannot_read_another_students_work(seen_by_a_student, target):
    assert seen_by_a_student["read"][target] == "denied: PermissionError"


@pytest.mark.parametrize("target", ["hub database", "hub cookie secret", "hub config", "account passwords"])
def test_a_student_cannot_read_the_hubs_secrets(seen_by_a_student, target):
    assert seen_by_a_student["read"][target] == "denied: PermissionError"


def test_a_student_cannot_signal_or_inspect_the_grading_service(seen_by_a_student):
    pids = [str(pid) for pid in seen_by_a_student["targets"]["service"]]
    assert len(pids) >= 1
    for kind in ("signal", "environ", "cwd"):
        assert {pid: seen_by_a_student[kind][pid] for pid in pids} == {pid: "denied: PermissionError" for pid in pids}


def test_the_proxys_api_refuses_a_student(seen_by_a_student):
    assert seen_by_a_student["proxy_api"] == 403


def test_a_students_own_token_cannot_list_the_hubs_users(seen_by_a_student):
    assert seen_by_a_student["hub_users"] == 403


# ---- the instructor's account and what root loads ------------------------------------------------

@pytest.mark.parametrize("relative", ["nbgrader_config.py", "planted_config.py", "grader/__init__.py",
                                      "grader/checks/__init__.py", "solutions/__init__.py", ".grader/planted"])
def test_the_instructor_cannot_change_what_the_grading_service_loads(course_hub, relative):
    import subprocess

    path = course_hub.course / relative
    run = subprocess.run(["runuser", "-u", course_hub.instructor.name, "--", "sh", "-c", ': >> "$1"', "sh",
                          str(path)], capture_output=True, text=True, timeout=60)

    assert run.returncode != 0 and "Permission denied" in run.stderr


def test_the_grading_service_runs_from_the_root_only_state_folder_without_the_current_folder_on_its_path(
        course_hub):
    pid = course_hub.running.watch_pid

    assert os.readlink(f"/proc/{pid}/cwd") == str(course_hub.layout.state)
    assert b"-P" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
