"""A similarity report as instructors see it: side-by-side cells, CSV rows, a terminal table.

Student code is returned as plain text segments (``Segment``) with a flag for the marked parts;
the page template escapes every segment, as it escapes every other student text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.similarity.compare import CellMatch, SimilarityReport, SimilarPair, Span


@dataclass(frozen=True)
class Segment:
    text: str
    marked: bool


@dataclass(frozen=True)
class SideBySide:
    """One matching cell of a pair: each side's code as lines of segments."""

    grade_id: str
    score: float
    evidence: float
    left: list[list[Segment]]
    right: list[list[Segment]]


def anchor(assignment: str, number: int) -> str:
    """The fragment id of the ``number``-th pair (from 1) of ``assignment``: no student text in it."""
    return f"similar-{assignment}-{number}"


def marked_lines(code: str, spans: tuple[Span, ...]) -> list[list[Segment]]:
    """``code`` split into lines of segments, the parts inside ``spans`` marked."""
    by_line: dict[int, list[Span]] = {}
    for span in spans:
        by_line.setdefault(span.line, []).append(span)
    lines = []
    for number, line in enumerate(code.splitlines() or [""], start=1):
        segments, at = [], 0
        for span in sorted(by_line.get(number, []), key=lambda s: s.start):
            start, end = max(span.start, at), min(span.end, len(line))
            if start >= end:
                continue
            if start > at:
                segments.append(Segment(line[at:start], False))
            segments.append(Segment(line[start:end], True))
            at = end
        if at < len(line) or not segments:
            segments.append(Segment(line[at:], False))
        lines.append(segments)
    return lines


def side_by_side(report: SimilarityReport, pair: SimilarPair) -> list[SideBySide]:
    """The matching cells of ``pair``, each with both students' code marked."""
    views = []
    for match in pair.cells:
        views.append(SideBySide(match.grade_id, match.score, match.evidence,
                                marked_lines(report.code[pair.a].get(match.grade_id, ""), match.marks_a),
                                marked_lines(report.code[pair.b].get(match.grade_id, ""), match.marks_b)))
    return views


def cells_text(cells: tuple[CellMatch, ...]) -> str:
    """'softmax 1.00; entropy 0.97': the matching cells and their scores."""
    return "; ".join(f"{c.grade_id} {c.score:.2f}" for c in cells)


def csv_rows(report: SimilarityReport | None) -> Iterator[tuple[str, str, str, object]]:
    """(table, row, column, value) of the CSV: tables ``similar_pairs`` and ``similarity_skipped``."""
    if report is None:
        return
    for number, pair in enumerate(report.pairs, start=1):
        row = f"{pair.a} | {pair.b}"
        for column, value in (("student_a", pair.a), ("student_b", pair.b), ("score", pair.score),
                              ("cells", cells_text(pair.cells)), ("anchor", anchor(report.assignment, number))):
            yield "similar_pairs", row, column, value
    for student, reason in report.skipped.items():
        yield "similarity_skipped", student, "reason", reason


def print_similar_pairs(report: SimilarityReport, console: Console | None = None) -> None:
    """Print the pairs (score, cells) and the skipped submissions, student text as plain text."""
    console = console or Console()
    table = Table(title=f"{report.assignment}: possibly written together "
                        f"({len(report.compared)} submissions compared)")
    for column in ("student", "student", "score", "matching cells"):
        table.add_column(column)
    for pair in report.pairs:
        table.add_row(Text(pair.a), Text(pair.b), f"{pair.score:.2f}", Text(cells_text(pair.cells)))
    console.print(table)
    if not report.pairs:
        console.print("No pair shares enough unusual code to be worth a look.")
    for student, reason in report.skipped.items():
        console.print(Text(f"skipped {student}: {reason}"))
