"""The report page's tables as one CSV, in long form so that every table fits one header.

Columns: ``assignment, table, row, column, value``. ``table`` is one of

- ``students``: row = student; columns score, max_score, percent, status, first_problem, grading_seconds;
- ``checks``: row = check (hardest first); columns passed, graded, pass_rate, discrimination, lesson;
- ``misconceptions``: row = "check: misconception" (most frequent first); columns check, misconception, students, lesson;
- ``ungradable``: row = student; columns code (the refusal code), reason;
- ``late``: row = student; columns submitted, due, seconds_late, penalty;
- ``histogram``: row = score range; column students;
- ``similar_pairs``: row = "student | student" (highest score first); columns student_a, student_b,
  score, cells ("grade_id score; ..."), anchor (the pair's side-by-side view on the page);
- ``similarity_skipped``: row = student; column reason (not compared: ungradable or unreadable).
- ``borrowed_numbers``: row = "student: item: whose numbers"; columns student, item, whose_numbers, items
  (answers that fit someone else's numbers).
- ``policy_usage``: row = student; columns extension_seconds, accommodation, late_days_spent,
  late_days_left, penalty_share (grader.policy).

A spreadsheet's pivot table (or ``pandas.pivot``) turns any table back into its wide form.
Cells are written as they are, through ``grader.reporting.csv_files``: numbers stay numbers, and
text a spreadsheet would run as a formula (a student-chosen id such as ``=cmd|...``) gets a leading
apostrophe.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Iterator

from grader.grading.verdict_records import first_problem
from grader.reporting.analysis import AssignmentSummary
from grader.reporting.csv_files import write_csv_rows
from grader.similarity.report import csv_rows as similarity_rows

COLUMNS = ("assignment", "table", "row", "column", "value")


def rows(summary: AssignmentSummary) -> Iterator[tuple[str, str, str, str, object]]:
    """(assignment, table, row, column, value) for every cell of every table of the page."""
    a = summary.assignment
    for r in summary.report.students:
        for column, value in (("score", r.score), ("max_score", r.max_score), ("percent", round(r.percent, 2)),
                              ("status", r.status), ("first_problem", first_problem({"check": name, **record} for name, record in r.checks.items()) or ""),
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
    for student, code, reason in summary.ungradable:
        yield a, "ungradable", student, "code", code
        yield a, "ungradable", student, "reason", reason
    for late in summary.late:
        for column, value in (("submitted", late.submitted), ("due", late.due),
                              ("seconds_late", late.seconds_late), ("penalty", late.penalty)):
            yield a, "late", late.student, column, value
    for label, n in summary.report.histogram():
        yield a, "histogram", label, "students", n
    for table, row, column, value in similarity_rows(summary.similarity):
        yield a, table, row, column, value
    for b in summary.borrowed:
        for column, value in (("student", b.student), ("item", b.item), ("whose_numbers", b.whose),
                              ("items", b.items)):
            yield a, "borrowed_numbers", f"{b.student}: {b.item}: {b.whose}", column, value
    for u in summary.policy_usage:
        for column, value in (("extension_seconds", u.extension_seconds), ("accommodation", u.accommodation or ""),
                              ("late_days_spent", u.late_days_spent), ("late_days_left", u.late_days_left),
                              ("penalty_share", u.penalty_share)):
            yield a, "policy_usage", u.student, column, value


def write_csv(summaries: list[AssignmentSummary], path: Path) -> Path:
    """Write every table of ``summaries`` to ``path`` (complete or not at all); the path."""
    return write_csv_rows(path, itertools.chain([COLUMNS], *(rows(summary) for summary in summaries)))
