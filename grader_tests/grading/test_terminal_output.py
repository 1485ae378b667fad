"""What the commands print: the terminal's width or 100 columns into a pipe, readable ungradable
reasons, the check table in the report page's order, and a re-run with nothing to do said in words."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from grader.console import PIPED_WIDTH, make_console
from grader.demo.corpus import get_submission, hand_in
from grader.grading.admission import notebook_refusal
from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.terminal import print_class_report
from grader.scheduling.class_run import run_autograde
from grader.scheduling.pool import grade_class

TRUNCATED = Path(__file__).resolve().parents[1] / "corpus" / "01_variance" / "truncated_file.ipynb"


def test_a_console_into_a_pipe_is_100_columns_wide(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console(file=io.StringIO()).width == PIPED_WIDTH == 100


@pytest.mark.slow
def test_the_claims_table_piped_into_a_file_keeps_to_100_columns():
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    run = subprocess.run([sys.executable, "-m", "solutions.repro"], capture_output=True, text=True,
                         env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert max(len(line) for line in run.stdout.splitlines()) <= PIPED_WIDTH


def test_a_truncated_notebook_is_ungradable_for_a_reason_in_words():
    refusal = notebook_refusal(TRUNCATED)
    reason = refusal.student_text
    assert refusal.code == "notebook-unreadable"
    assert "stops in the middle of the notebook" in reason
    assert '{"' not in reason and "NotJSONError" not in reason


def _student(name, fractions):
    return StudentResult(name, sum(fractions.values()), len(fractions), "graded",
                         {check: {"check": check, "fraction": f, "stage": None if f == 1 else "inaccurate",
                                  "misconception": None} for check, f in fractions.items()})


def test_the_terminal_check_table_is_hardest_first_with_discrimination_as_on_the_page():
    report = ClassReport("02_softmax", [
        _student("ada", {"alpha": 1.0, "zeta": 1.0}), _student("bo", {"alpha": 1.0, "zeta": 0.0}),
        _student("cy", {"alpha": 0.0, "zeta": 0.0})])
    console = Console(record=True, width=120, file=io.StringIO())
    print_class_report(report, console)
    table = console.export_text().split("per-check pass rates")[1].split("most common")[0]
    assert table.index("zeta") < table.index("alpha")  # 1/3 with full marks before 2/3
    assert "discrimination" in table and "+1.00" in table  # zeta: top third 1, bottom third 0


@pytest.mark.slow
def test_a_rerun_with_every_submission_unchanged_says_there_is_nothing_to_grade(course):
    hand_in(course, "ada", get_submission("02_softmax", "model_answer"))
    assert all(o.graded for o in grade_class(course, "02_softmax", workers=1))
    console = Console(record=True, width=100, file=io.StringIO())
    assert run_autograde(course, ["02_softmax"], workers=1, force=False, console=console) == 0
    text = console.export_text()
    assert ("nothing to grade: 1 submission unchanged since their last grading (--force grades them "
            "again)") in text
    assert "0/0" not in text and "ETA" not in text


@pytest.mark.slow
def test_autograde_prints_the_class_report_a_worker_rendered_as_this_process_would_print_it(course):
    from grader.reporting.class_report import build_report

    for student in ("ada", "bob"):
        hand_in(course, student, get_submission("02_softmax", "model_answer"))
    console = Console(record=True, width=100, file=io.StringIO())
    assert run_autograde(course, ["02_softmax"], workers=2, force=True, console=console) == 0
    here = Console(record=True, width=100, file=io.StringIO())
    print_class_report(build_report(course, "02_softmax"), here)
    assert here.export_text() in console.export_text()


@pytest.mark.slow
def test_a_class_report_rendered_for_a_colour_terminal_reads_as_the_plain_one(course):
    from rich.text import Text

    from grader.scheduling.class_run import rendered_class_report

    hand_in(course, "ada", get_submission("02_softmax", "model_answer"))
    grade_class(course, "02_softmax", workers=1)
    coloured = rendered_class_report(str(course.root), "02_softmax", 100, "truecolor")
    plain = rendered_class_report(str(course.root), "02_softmax", 100, None)
    assert "\x1b[" in coloured and "\x1b[" not in plain
    assert Text.from_ansi(coloured).plain == plain
