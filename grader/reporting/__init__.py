"""The class report as a page to share: figures, tables, a CSV of the tables, and the LMS export.

- ``timings``: grading time per submission, recorded by the grading process in ``Course.state_dir``;
- ``analysis``: what the page shows, collected from ``grader.reporting.class_report.build_report``, the gradebook
  (late submissions) and the checks (lesson to re-teach), plus item discrimination;
- ``figures``: matplotlib figures as inline SVG text;
- ``html_page``: one self-contained HTML page (jinja2, autoescaped, restrictive CSP);
- ``csv_tables``: the page's tables as one CSV;
- ``canvas``: grades as a CSV that Canvas's gradebook import accepts;
- ``grades_csv``: ``nbgrader export``'s ``grades.csv`` (the course's export plugin);
- ``csv_files``: the one writer of every CSV above (spreadsheet formulas defused, no half files).
"""
from __future__ import annotations

from pathlib import Path

from grader.course import Course, course_name

REPORTS_DIR = "reports"


def write_report(course: Course, assignments: list[str], html_path: Path | None = None) -> tuple[Path, Path]:
    """Write the page and its CSV for ``assignments``; (html path, csv path).

    Default place: ``<course>/reports/<assignment>.html`` for one assignment,
    ``<course>/reports/class-report.html`` for several; the CSV sits beside it with ``.csv``.
    """
    from grader.reporting.analysis import collect
    from grader.reporting.csv_tables import write_csv
    from grader.reporting.html_page import write_page

    summaries = [collect(course, assignment) for assignment in assignments]
    if html_path is None:
        name = assignments[0] if len(assignments) == 1 else "class-report"
        html_path = course.root / REPORTS_DIR / f"{name}.html"
    html_path = Path(html_path)
    write_page(summaries, html_path, course_name=course_name(course))
    return html_path, write_csv(summaries, html_path.with_suffix(".csv"))
