"""Benchmark: seconds from clicking Submit in JupyterLab to the feedback link in the assignment list,
on a real course hub (``grader hub up``), with a named baseline from the same run.

One hub (2 students, 02_softmax), ``grader watch`` with the course's settings (2 workers):

- baseline ("the service alone"): the second student hands in with ``nbgrader submit`` in their
  own account (runuser, the students' environment); latency = the submission's own time stamp
  (nbgrader's ``timestamp.txt``, written as it enters the exchange) -> a graded feedback page for it
  in the exchange, seen by root polling every 0.1 s: what ``grader watch`` itself takes. The
  command's own run time (mostly importing nbgrader) is printed too;
- candidate ("Submit in the browser"): the first student clicks Submit in nbgrader's assignment list
  in headless Chromium and refreshes the list (once a second, as a person would) until it says the
  feedback can be fetched; the page is then fetched and opened to check it is graded.

Hand-ins alternate between the two (the first of each pays for starting the grading workers), the
notebook is the model answer's softmax in the released notebook. Prints p50 / p95 / max of each and
the ratio of the candidate's p50 to the baseline's (the hub and browser's share: the list's refresh,
nbgrader's list API). The course allows 6 graded hand-ins per student and hour: --submissions <= 6.

    sudo .venv/bin/python benchmarks/hub_feedback_latency.py [--submissions 5]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "grader_tests"))

ASSIGNMENT = "02_softmax"
FEEDBACK_TIMEOUT_S = 600


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def graded_pages(folder: Path) -> int:
    """Graded feedback pages released into the exchange (placeholders say 'waiting to be graded')."""
    return sum(1 for page in folder.glob("*.html") if "waiting to be graded" not in page.read_text(errors="replace"))


def as_student(layout, account, *args: str) -> None:
    env = {"HOME": account.home, "USER": account.name, "LANG": "C.UTF-8", "PATH": f"{layout.env}/bin:/usr/bin:/bin",
           "JUPYTER_CONFIG_PATH": str(layout.student_config)}
    subprocess.run(["runuser", "-u", account.name, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()], *args],
                   cwd=account.home, check=True, capture_output=True, timeout=600)


def write_model_answer(layout, account) -> None:
    """The fetched notebook with the model answer's softmax, written as the student."""
    import nbformat
    from hub_student_path import model_softmax

    path = Path(account.home) / ASSIGNMENT / "softmax.ipynb"
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "softmax":
            cell.source = model_softmax()
    text = nbformat.writes(notebook)
    subprocess.run(["runuser", "-u", account.name, "--", "sh", "-c", 'cat > "$1"', "sh", str(path)],
                   input=text, text=True, check=True)


def submitted_at(account) -> float:
    """The epoch seconds of the student's newest hand-in, from nbgrader's own timestamp.txt (the
    student's copy in their nbgrader cache)."""
    from nbgrader.utils import parse_utc

    cache = Path(account.home) / ".local" / "share" / "jupyter" / "nbgrader_cache" / "scaled-attention-lab"
    newest = sorted(cache.glob(f"{account.name}+{ASSIGNMENT}+*"))[-1]
    return parse_utc((newest / "timestamp.txt").read_text().strip()).timestamp()


def cli_hand_in(layout, account, feedback: Path) -> tuple[float, float]:
    """(seconds from the hand-in's time stamp to graded feedback, seconds ``nbgrader submit`` took)."""
    before = graded_pages(feedback)
    started = time.monotonic()
    as_student(layout, account, f"{layout.env}/bin/nbgrader", "submit", ASSIGNMENT)
    took = time.monotonic() - started
    deadline = time.monotonic() + FEEDBACK_TIMEOUT_S
    while graded_pages(feedback) <= before:
        if time.monotonic() > deadline:
            raise SystemExit(f"no graded feedback within {FEEDBACK_TIMEOUT_S} s")
        time.sleep(0.1)
    return time.time() - submitted_at(account), took


def browser_hand_in(user, submissions: int) -> float:
    from hub_browser import read_feedback

    clicked = user.submit(ASSIGNMENT)
    seconds = user.wait_for_feedback(ASSIGNMENT, submissions, FEEDBACK_TIMEOUT_S) - clicked
    user.fetch_and_view_feedback(ASSIGNMENT)
    user.open_file("softmax.html")
    if not read_feedback(user)["rows"]:
        raise SystemExit("the feedback the list offered was not a graded page")
    return seconds


def row(name: str, values: list[float]) -> str:
    return (f"| {name} | {len(values)} | {percentile(values, 0.5):.1f} s | {percentile(values, 0.95):.1f} s "
            f"| {max(values):.1f} s |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=5, help="hand-ins of each kind (at most 6)")
    args = parser.parse_args(argv)
    if not 1 <= args.submissions <= 6:
        raise SystemExit("--submissions must be between 1 and 6 (the course's hourly limit per student)")

    from browser import chromium
    from hub_browser import HubUser

    from grader.hub.accounts import Accounts
    from grader.hub.layout import HubLayout
    from grader.hub.lifecycle import HubError, down, up
    from grader_tests.checkout import THE_COURSE

    layout = HubLayout(root=Path(tempfile.mkdtemp(prefix="sal-hub-bench-")))
    try:
        running = up(layout, THE_COURSE, students=2, prefix=f"b{os.getpid() % 100000}", port=0,
                     assignments=[ASSIGNMENT])
    except HubError as exc:  # up() has removed whatever it had made
        raise SystemExit(f"error: {exc}") from None
    try:
        accounts = Accounts.load(layout.accounts_file)
        browser_student, cli_student = accounts.students
        feedback = layout.exchange / "scaled-attention-lab" / "feedback"
        as_student(layout, cli_student, f"{layout.env}/bin/nbgrader", "fetch_assignment", ASSIGNMENT)
        write_model_answer(layout, cli_student)
        baseline, candidate, command = [], [], []
        with chromium() as browser:
            user = HubUser(browser, running.url, browser_student, layout.state / "screens")
            user.login()
            user.open_assignment_list()
            user.fetch(ASSIGNMENT)
            write_model_answer(layout, browser_student)
            for index in range(args.submissions):
                candidate.append(browser_hand_in(user, index + 1))
                user.tab("Assignments")
                service, took = cli_hand_in(layout, cli_student, feedback)
                baseline.append(service)
                command.append(took)
                print(f"hand-in {index + 1}: browser {candidate[-1]:.1f} s, service alone {service:.1f} s "
                      f"(nbgrader submit took {took:.1f} s)", flush=True)
            user.close()
    finally:
        down(layout, say=lambda *_: None)
    load = os.getloadavg()
    print("\n| | n | p50 | p95 | max |\n|---|---|---|---|---|")
    print(row("baseline: the hand-in's time stamp -> graded feedback in the exchange (service alone)", baseline))
    print(row("candidate: Submit clicked in JupyterLab -> feedback link in the assignment list", candidate))
    print(f"\ncandidate p50 / baseline p50 = {percentile(candidate, 0.5) / percentile(baseline, 0.5):.2f}x; "
          f"`nbgrader submit` itself: p50 {percentile(command, 0.5):.1f} s; load average at the end {load[0]:.1f}")
    print(json.dumps({"baseline": baseline, "candidate": candidate, "nbgrader_submit": command}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
