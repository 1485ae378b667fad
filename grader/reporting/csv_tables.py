"""The report page's tables as one CSV, in long form so that every table fits one header.

Columns: ``assignment, table, row, column, value``. ``table`` is one of

- ``students``: row = student; columns score, max_score, percent, status, first_problem, grading_seconds;
- ``checks``: row = check (hardest first); columns passed, graded, pass_rate, discrimination, lesson;
- ``misconceptions``: row = "check: misconception" (most frequent first); columns check, misconception, students, lesson;
- ``ungradable``: row = student; column reason;
- ``late``: row = student; columns submitted, due, seconds_late, penalty;
- ``histogram``: row = score range; column students;
- ``borrowed_numbers``: row = "student: item: whose numbers"; columns student, item, whose_numbers, items
  (answers that fit someone else's numbers).

A spreadsheet's pivot table (or ``pandas.pivot``) turns any table back into its wide form.
Cells are written as they are (the csv module quotes them); a value starting with ``=``, ``+``,
``-`` or ``@`` that is not a number gets a leading apostrophe so that a spreadsheet does not run
a student-chosen id as a formula.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterator

from grader.reporting.analysis import AssignmentSummary
from grader.reporting.html_page import first_problem

COLUMNS = ("assignment", "table", "row", "column", "value")


def rows(summary: AssignmentSummary) -> Iterator[tuple[str, str, str, str, object]]:
    """(assignment, table, row, column, value) for every cell of every table of the page."""
    a = summary.assignment
    for r in summary.report.students:
        for column, value in (("score", r.score), ("max_score", r.max_score), ("percent", round(r.percent, 2)),
                              ("status", r.status), ("first_problem", first_problem(r.checks)),
                              ("grading_seconds", summary.grading_seconds.get(r.student, ""))):
            yield a, "students", r.student, column, value
    for c in summary.checks:
        for column, value in (("passed", c.passed), ("graded", c.graded), ("pass_rate", round(c.pass_rate, 4)),
                              ("discrimination", "" if c.discrimination is None else c.discrimination),
                              ("lesson", c.lesson)):
            yield a, "checks", c.check, column, value
    for m in summary.misconceptions:
        key = f"{m.check}: {m.misconception}"
        for column, value in (("check", m.check), ("misconception", m.misconception),
                              ("students", m.students), ("lesson", m.lesson)):
            yield a, "misconceptions", key, column, value
    for student, reason in summary.ungradable:
        yield a, "ungradable", student, "reason", reason
    for late in summary.late:
        for column, value in (("submitted", late.submitted), ("due", late.due),
                              ("seconds_late", late.seconds_late), ("penalty", late.penalty)):
            yield a, "late", late.student, column, value
    for label, n in summary.report.histogram():
        yield a, "histogram", label, "students", n
    for b in summary.borrowed:
        for column, value in (("student", b.student), ("item", b.item), ("whose_numbers", b.whose),
                              ("items", b.items)):
            yield a, "borrowed_numbers", f"{b.student}: {b.item}: {b.whose}", column, value


def _defused(value: object) -> object:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def write_csv(summaries: list[AssignmentSummary], path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for summary in summaries:
            writer.writerows([_defused(cell) for cell in row] for row in rows(summary))
    return path
