"""The class report in the terminal: per-student table, score distribution, pass rates, misconceptions."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.console import make_console
from grader.grading.verdict_records import first_problem
from grader.reporting.analysis import assignment_summary
from grader.reporting.class_report import ClassReport
from grader.reporting.kernel_decided import KERNEL_DECIDED_NOTE


def print_class_report(report: ClassReport, console: Console | None = None) -> None:
    """Print the per-student table, the score distribution, pass rates and misconceptions."""
    console = console or make_console()
    students = Table(title=f"{report.assignment}: per-student summary")
    for column in ("student", "score", "status", "first problem"):
        students.add_column(column)
    for r in report.students:
        problem = first_problem({"check": name, **record} for name, record in r.checks.items())
        students.add_row(Text(r.student), f"{r.score:g} / {r.max_score:g}", Text(r.status), Text(problem or "—"))
    console.print(students)
    ignored = sum(r.ignored_records for r in report.students)
    if ignored:
        console.print(Text(f"{ignored} forged or malformed verdict records were ignored (students: "
                           + ", ".join(r.student for r in report.students if r.ignored_records) + ")."))

    histogram = Table(title="score distribution")
    histogram.add_column("score")
    histogram.add_column("students")
    for label, n in report.histogram():
        histogram.add_row(label, f"{'█' * n} {n}")
    console.print(histogram)

    rates = Table(title="per-check pass rates, hardest first")
    rates.add_column("check")
    rates.add_column("full marks", justify="right")
    rates.add_column("discrimination", justify="right")
    for row in assignment_summary(report).checks:
        rates.add_row(Text(row.check), f"{row.passed}/{row.graded} ({100 * row.pass_rate:.0f} %)",
                      "n/a" if row.discrimination is None else f"{row.discrimination:+.2f}")
    console.print(rates)
    if report.kernel_decided:
        console.print(Text(KERNEL_DECIDED_NOTE.format(cells=", ".join(report.kernel_decided))))

    common = Table(title="most common misconceptions")
    for column in ("check", "misconception", "students"):
        common.add_column(column)
    for check, name, n in report.misconceptions()[:10]:
        common.add_row(Text(check), Text(str(name)), str(n))
    console.print(common)
