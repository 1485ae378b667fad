"""The class report: score distribution, per-check pass rates, most common misconceptions."""
from __future__ import annotations

import io

from rich.console import Console

from grader.reporting.class_report import ClassReport, StudentResult
from grader.reporting.terminal import print_class_report


def student(name, score, checks):
    return StudentResult(name, score, 10.0, "graded", {
        check: {"check": check, "fraction": fraction, "stage": None if fraction == 1 else "inaccurate",
                "misconception": misconception}
        for check, (fraction, misconception) in checks.items()})


REPORT = ClassReport("02_softmax", [
    student("ada", 10, {"softmax": (1.0, None), "entropy": (1.0, None)}),
    student("bo", 5, {"softmax": (0.5, "no max subtraction"), "entropy": (1.0, None)}),
    student("cy", 1, {"softmax": (0.5, "no max subtraction"), "entropy": (0.0, "entropy in bits")}),
])


def test_histogram_counts_each_student_once_and_full_marks_in_the_top_bin():
    bins = dict(REPORT.histogram())
    assert sum(bins.values()) == 3
    assert bins["80–100 %"] == 1 and bins["40–60 %"] == 1 and bins["0–20 %"] == 1


def test_pass_rate_counts_full_marks_only():
    assert REPORT.pass_rates() == {"entropy": (2, 3), "softmax": (1, 3)}


def test_misconceptions_are_listed_most_common_first():
    assert REPORT.misconceptions() == [("softmax", "no max subtraction", 2), ("entropy", "entropy in bits", 1)]


def test_render_shows_each_student_and_the_first_problem():
    out = io.StringIO()
    print_class_report(REPORT, Console(file=out, width=200))
    text = out.getvalue()
    assert "ada" in text and "softmax: no max subtraction" in text and "entropy in bits" in text
