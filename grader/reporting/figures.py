"""The report's figures, drawn with matplotlib and returned as SVG data URIs.

A data URI in an ``<img>`` keeps the page one file that opens offline, and an image cannot run
script or inject markup whatever its labels say (labels may carry student-controlled text: check
and misconception names come from the autograded notebooks). Mathtext parsing is off, so a ``$``
in a label is drawn as it is instead of failing. Each function takes plain numbers and labels
and returns ``data:image/svg+xml;base64,...``.
"""
from __future__ import annotations

import base64
import io
from typing import Sequence

from matplotlib import rc_context
from matplotlib.figure import Figure

from grader.fonts import figure_font_family

# One restrained palette: the lesson pages' blue for the main series, a warm red for trouble.
BLUE, RED, GREY, GREEN = "#3b6ea8", "#c8553d", "#9aa5b1", "#4c956c"
_STYLE = {
    "svg.fonttype": "none",  # text stays text: smaller files, crisp at any zoom
    "svg.hashsalt": "grader-report",  # stable element ids: the same class gives the same page
    "text.parse_math": False,
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
}


def _style() -> dict:
    """The report's style with a font family that has the glyphs of Chinese labels too."""
    return {**_STYLE, "font.family": list(figure_font_family())}


def _data_uri(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _height_for(n_rows: int) -> float:
    return max(1.6, 0.32 * n_rows + 0.9)


def score_histogram(bins: Sequence[tuple[str, int]], title: str = "Score distribution") -> str:
    """Bars of students per score range; bins: (label such as "80–100 %", number of students)."""
    with rc_context(_style()):
        figure = Figure(figsize=(5.2, 2.8))
        axes = figure.subplots()
        labels = [label for label, _ in bins]
        counts = [n for _, n in bins]
        bars = axes.bar(labels, counts, color=BLUE, width=0.8)
        axes.bar_label(bars, labels=[str(n) if n else "" for n in counts], padding=2)
        axes.set_ylabel("students")
        axes.set_xlabel("score (% of the maximum)")
        axes.set_ylim(0, max(counts + [1]) * 1.2)
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.set_title(title)
        return _data_uri(figure)


def pass_rates(rows: Sequence[tuple[str, int, int]], title: str = "Full marks per check (hardest first)") -> str:
    """Horizontal bars of the share of students with full marks; rows: (check, passed, graded), hardest first."""
    with rc_context(_style()):
        figure = Figure(figsize=(5.4, _height_for(len(rows))))
        axes = figure.subplots()
        names = [name for name, _, _ in rows][::-1]
        rates = [100.0 * p / n if n else 0.0 for _, p, n in rows][::-1]
        colours = [RED if rate < 50 else BLUE for rate in rates]
        bars = axes.barh(names, rates, color=colours, height=0.7)
        axes.bar_label(bars, labels=[f"{p}/{n}" for _, p, n in rows][::-1], padding=3)
        axes.set_xlim(0, 112)
        axes.set_xlabel("students with full marks (%)")
        axes.set_title(title)
        return _data_uri(figure)


def discrimination(rows: Sequence[tuple[str, float | None]],
                   title: str = "Item discrimination (top third − bottom third)") -> str:
    """Horizontal bars of D in [-1, 1] per check; rows: (check, D or None when the class is too small)."""
    with rc_context(_style()):
        figure = Figure(figsize=(5.4, _height_for(len(rows))))
        axes = figure.subplots()
        names = [name for name, _ in rows][::-1]
        values = [0.0 if d is None else d for _, d in rows][::-1]
        colours = [GREY if d is None else (RED if d < 0 else GREEN if d >= 0.3 else BLUE)
                   for _, d in rows][::-1]
        bars = axes.barh(names, values, color=colours, height=0.7)
        axes.bar_label(bars, labels=["n/a" if d is None else f"{d:+.2f}" for _, d in rows][::-1],
                       padding=3)
        axes.axvline(0, color="#333333", linewidth=0.8)
        axes.set_xlim(-1.15, 1.15)
        axes.set_xlabel("mean score on the check: top third minus bottom third")
        axes.set_title(title)
        return _data_uri(figure)


def grading_time_histogram(seconds: Sequence[float], title: str = "Grading time per submission") -> str:
    """A histogram of seconds per submission (no student names: the table beside it has them)."""
    with rc_context(_style()):
        figure = Figure(figsize=(5.2, 2.8))
        axes = figure.subplots()
        if seconds:
            axes.hist(list(seconds), bins=min(12, max(3, len(seconds))), color=BLUE, edgecolor="white")
        else:
            axes.text(0.5, 0.5, "no grading times recorded", ha="center", va="center", transform=axes.transAxes)
        axes.set_xlabel("seconds")
        axes.set_ylabel("submissions")
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.set_title(title)
        return _data_uri(figure)
