"""One self-contained HTML page for the class report of one or more assignments.

The page has no script and loads nothing: styles are inline, figures are SVG data URIs
(``grader.reporting.figures``), and the Content-Security-Policy meta element of the base page
(``grader.pages.page_templates``, the policy of ``grader.pages.csp``) forbids everything else, so
it opens from a file or an e-mail attachment and shows the same offline. Student ids, ungradable
reasons, check and misconception names and exception messages are student-controlled: the
shared jinja2 environment autoescapes every value, and only the figure URIs (built here from
base64) and the font stacks (constants of ``grader.fonts``) are inserted as they are.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import Environment

from grader.grading.verdict_records import first_problem
from grader.pages.csp import CONTENT_SECURITY_POLICY  # noqa: F401  (the report's policy: the course's)
from grader.pages.page_templates import page_environment
from grader.reporting import figures
from grader.reporting.analysis import AssignmentSummary
from grader.reporting.kernel_decided import KERNEL_DECIDED_NOTE
from grader.similarity import report as similarity_report
from grader.similarity.compare import CELL_SCORE


@dataclass(frozen=True)
class Figure:
    """An image of the page: its data URI and the alternative text that says what it shows."""

    uri: str
    alt: str


def _environment() -> Environment:
    """The shared page environment with this package's templates and the report's filters."""
    env = page_environment("grader.reporting")
    env.filters["pct"] = lambda value: "—" if value is None else f"{value:.0f} %"
    env.filters["points"] = lambda value: f"{value:g}"
    env.filters["signed"] = lambda value: "n/a" if value is None else f"{value:+.2f}"
    env.filters["duration"] = _duration
    env.globals.update(side_by_side=similarity_report.side_by_side, pair_anchor=similarity_report.anchor,
                       cell_score=CELL_SCORE)
    return env


def _duration(seconds: float) -> str:
    """'42 s', '3.5 min', '2.0 h', '3.1 days' for a number of seconds."""
    if seconds < 90:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def assignment_figures(summary: AssignmentSummary) -> dict[str, Figure]:
    """The four figures of one assignment's section, by role; each alternative text gives the
    numbers its figure shows (a reader who cannot see the figure loses nothing)."""
    name = summary.assignment
    seconds = sorted(summary.grading_seconds.values())
    return {
        "histogram": Figure(figures.score_histogram(summary.report.histogram(), f"{name}: score distribution"),
                            f"Histogram of {name} scores: " + ", ".join(
                                f"{label}: {n}" for label, n in summary.report.histogram())),
        "pass_rates": Figure(figures.pass_rates([(c.check, c.passed, c.graded) for c in summary.checks]),
                             f"Share of students with full marks on each check of {name}, hardest first: "
                             + ", ".join(f"{c.check} {100 * c.pass_rate:.0f} %" for c in summary.checks)),
        "discrimination": Figure(figures.discrimination([(c.check, c.discrimination) for c in summary.checks]),
                                 f"Item discrimination of each check of {name}: " + ", ".join(
                                     f"{c.check} " + ("n/a" if c.discrimination is None else f"{c.discrimination:+.2f}")
                                     for c in summary.checks)),
        "grading_times": Figure(figures.grading_time_histogram(seconds),
                                f"Histogram of grading seconds per submission of {name}: " + (
                                    f"{len(seconds)} submissions, median {_duration(seconds[len(seconds) // 2])}, "
                                    f"slowest {_duration(seconds[-1])}" if seconds else "none recorded")),
    }


def render_page(summaries: list[AssignmentSummary], course_name: str = "") -> str:
    """The HTML text of the report page for ``summaries`` (one section per assignment)."""
    sections = []
    for summary in summaries:
        students = []
        for r in summary.report.students:
            students.append({"student": r.student, "score": r.score, "max_score": r.max_score,
                             "percent": r.percent, "status": r.status, "problem": first_problem({"check": name, **record} for name, record in r.checks.items()) or "",
                             "seconds": summary.grading_seconds.get(r.student)})
        times = sorted(summary.grading_seconds.values())
        sections.append({"summary": summary, "figures": assignment_figures(summary), "students": students,
                         "times": {"n": len(times), "total": sum(times),
                                   "median": times[len(times) // 2] if times else None,
                                   "max": times[-1] if times else None}})
    template = _environment().get_template("report.html.j2")
    return template.render(sections=sections, course_name=course_name, kernel_decided_note=KERNEL_DECIDED_NOTE,
                           generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


def write_page(summaries: list[AssignmentSummary], path: Path, course_name: str = "") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(summaries, course_name), encoding="utf-8")
    return path
