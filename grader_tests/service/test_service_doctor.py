"""``grader doctor`` reports what the grading service does with a hand-in, probed for real."""
from __future__ import annotations

from grader.doctor import service_findings


def test_doctor_reports_links_refused_budget_and_owner_check(course):
    rows = {row.protection: row for row in service_findings(str(course.root))}
    assert rows["grading service: no link followed in hand-ins"].active
    assert "symbolic link" in rows["grading service: no link followed in hand-ins"].detail
    assert "at most 20 MB, 200 files and folders, 10 notebooks" in rows["grading service: hand-in budget"].detail
    assert rows["grading service: a hand-in speaks only for its owner"].active


def test_doctor_names_a_switched_off_owner_check_as_unavailable(course):
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.ExchangeCollect.check_owner = False\n")
    rows = {row.protection: row for row in service_findings(str(course.root))}
    owner = rows["grading service: a hand-in speaks only for its owner"]
    assert not owner.active and "any account can hand in under any name" in owner.detail


def test_doctor_reports_the_per_account_budgets_as_the_course_sets_them(course):
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.GradingService.max_archive_megabytes_per_account = 123.0\n"
                      "c.GradingService.max_grading_seconds_per_hour = 456.0\n")
    budgets = {row.protection: row for row in service_findings(str(course.root))}["grading service: per-account budgets"]
    assert budgets.active
    assert "123 MB of archive (sparse files counted whole)" in budgets.detail
    assert "456 s of grading an hour" in budgets.detail
    assert "50 new inbound entries a look" in budgets.detail
