"""Which pairs of submissions share unusual code, cell by cell.

For each solution cell, every submission's code is normalised (``grader.similarity.normalise``)
and winnowed (``grader.similarity.winnowing``); selected k-grams of the released cell and of the
instructor's model answer are removed (code everyone was given, or that the course itself
teaches, is no sign that two students wrote together). Then, for every pair of submissions and every cell both filled:

- a selected k-gram is *common* when half the class or more holds it in that cell (``df >= N/2``
  of the ``N`` compared submissions): a common idiom is no evidence, and common selected k-grams are
  left out of everything below. A class smaller than ``SMALL_CLASS`` is weighed as if it had
  that many submissions;
- each uncommon selected k-gram has its own rarity ``r(df) = log(N / (2·df)) / log(N / 4)``, clipped
  to [0, 1], where ``df`` is how many of the ``N`` submissions hold it: 1 when only the two
  students of a pair have it, falling to 0 at half the class;
- the pair's shared code as a whole has the rarity ``r(h)``, where ``h`` counts the submissions
  that hold every uncommon selected k-gram the two share (the pair itself included): an unusual
  combination of common idioms is still unusual, but less than code nobody else wrote;
- the cell's *evidence* is the set's rarity times the sum of the shared selected k-grams' own
  rarities, and its *score* the evidence over the smaller of the two students' counts of uncommon
  selected k-grams (0–1: how much of the shorter cell is found, unusually, in the other; dead code
  added to a copy does not lower it);
- a cell *matches* when its score is at least ``CELL_SCORE`` and its evidence at least
  ``MIN_EVIDENCE``.

A pair is reported when at least ``CELLS_FOR_A_PAIR`` cells match, or one matching cell carries
``LONG_EVIDENCE`` or more (about a dozen lines of code nobody else in the class wrote). Its score is
the evidence of its matching cells over the uncommon selected k-grams of the smaller side of every
cell: the rarity-weighted share of their own code that matches.

Students are compared on ``numpy`` matrices, one product per cell, so a class of hundreds takes
seconds. The thresholds were set on the corpus of ``grader_tests/similarity_class.py`` (an honest
class whose cells are made of shared idioms) and ``grader_tests/similarity_corpus/``: see
``docs/instructor/similarity.md``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from grader.similarity.cells import ClassCells
from grader.similarity.winnowing import SelectedKgrams, K, kgram_hashes, winnow
from grader.similarity.normalise import Token, normalise

CELL_SCORE = 0.5  # share of the shorter cell's uncommon selected k-grams, rarity-weighted
MIN_EVIDENCE = 4.0  # rarity-weighted shared selected k-grams for a cell to count at all
LONG_EVIDENCE = 40.0  # ... for one cell to be enough on its own
CELLS_FOR_A_PAIR = 2
SMALL_CLASS = 8  # submissions; a smaller class is weighed as if it had this many
HOLDS_SHARE = 1.0  # a classmate "holds" a pair's shared code when they have this share of it


@dataclass(frozen=True)
class Span:
    """Part of one line of a cell's code: line from 1, columns [start, end)."""

    line: int
    start: int
    end: int


@dataclass(frozen=True)
class CellMatch:
    """One matching cell of a pair: score (0–1), evidence (rarity-weighted shared selected k-grams),
    and the parts of each side's code that the rare shared selected k-grams cover."""

    grade_id: str
    score: float
    evidence: float
    marks_a: tuple[Span, ...]
    marks_b: tuple[Span, ...]


@dataclass(frozen=True)
class SimilarPair:
    """Two students (a < b by id) whose submissions match; cells in notebook order."""

    a: str
    b: str
    score: float
    cells: tuple[CellMatch, ...]


@dataclass
class SimilarityReport:
    """The outcome for one assignment.

    pairs: reported pairs, highest score first. compared: students whose cells were compared.
    skipped: student -> reason. code: student -> grade_id -> code, for the students of ``pairs``.
    """

    assignment: str
    pairs: list[SimilarPair]
    compared: list[str]
    skipped: dict[str, str]
    code: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class _Cell:
    """One solution cell across the class: each student's kept tokens and selected k-grams."""

    grade_id: str
    tokens: dict[str, list[Token]]
    prints: dict[str, SelectedKgrams]


def rarity(df: np.ndarray | int, n: int) -> np.ndarray:
    """The weight of a selected k-gram held by ``df`` of ``n`` submissions (see the module docstring)."""
    n = max(n, SMALL_CLASS)
    weight = np.log(n / (2.0 * np.asarray(df, dtype=float))) / math.log(n / 4.0)
    return np.clip(weight, 0.0, 1.0)


def select_kgrams_of_cells(found: ClassCells) -> list[_Cell]:
    """Tokens and selected k-grams of every student's every solution cell, the template's removed."""
    cells = []
    for grade_id, template in found.templates.items():
        given = set(kgram_hashes(normalise(template), K))
        if grade_id in found.references:
            given |= set(kgram_hashes(normalise(found.references[grade_id], template), K))
        tokens, prints = {}, {}
        seen: dict[str, tuple[list[Token], SelectedKgrams]] = {}  # identical cells are read once
        for student, code in found.cells.items():
            if grade_id not in code:
                continue
            if code[grade_id] not in seen:
                kept = normalise(code[grade_id], template)
                own = {h: p for h, p in winnow(kept).positions.items() if h not in given}
                seen[code[grade_id]] = kept, SelectedKgrams(own)
            kept, own_prints = seen[code[grade_id]]
            if len(own_prints):
                tokens[student], prints[student] = kept, own_prints
        cells.append(_Cell(grade_id, tokens, prints))
    return cells


def compare_class(found: ClassCells) -> SimilarityReport:
    """Compare every pair of ``found``'s submissions; the pairs worth an instructor's look."""
    students = sorted(found.cells)
    n = len(students)
    cells = select_kgrams_of_cells(found)
    matches: dict[tuple[int, int], list[CellMatch]] = {}
    smaller_of_pair = np.zeros((n, n))
    for cell in cells:
        held, hashes, sizes = _holdings(cell, students)
        weight = rarity(held.sum(axis=0), n)  # [m]: each selected k-gram's own rarity
        smaller = np.minimum(sizes[:, None], sizes[None, :])
        smaller_of_pair += smaller
        if held.shape[1] == 0:
            continue
        shared = (held * weight) @ held.T  # [n, n]: rarity-weighted selected k-grams both hold
        with np.errstate(invalid="ignore", divide="ignore"):
            coverage = np.where(smaller > 0, shared / np.where(smaller > 0, smaller, 1), 0.0)
        candidates = np.triu((coverage >= CELL_SCORE) & (shared >= MIN_EVIDENCE), k=1)
        for i, j in zip(*np.nonzero(candidates)):
            both = (held[i] > 0) & (held[j] > 0)
            holding = int((held[:, both].sum(axis=1) >= HOLDS_SHARE * both.sum()).sum())
            evidence = float(rarity(holding, n)) * float(shared[i, j])  # the set's rarity, times its own
            score = evidence / float(smaller[i, j])
            if score >= CELL_SCORE and evidence >= MIN_EVIDENCE:
                common = [hashes[col] for col in np.nonzero(both)[0]]
                matches.setdefault((i, j), []).append(_cell_match(cell, common, students[i], students[j],
                                                                  score, evidence))
    pairs = []
    for (i, j), found_cells in matches.items():
        long_one = any(m.evidence >= LONG_EVIDENCE for m in found_cells)
        if len(found_cells) < CELLS_FOR_A_PAIR and not long_one:
            continue
        total = float(smaller_of_pair[i, j])
        pairs.append(SimilarPair(students[i], students[j],
                                 round(min(1.0, sum(m.evidence for m in found_cells) / total), 4),
                                 tuple(found_cells)))
    pairs.sort(key=lambda p: (-p.score, p.a, p.b))
    involved = {s for p in pairs for s in (p.a, p.b)}
    return SimilarityReport(found.assignment, pairs, students, dict(found.skipped),
                            {s: found.cells[s] for s in sorted(involved)})


def _holdings(cell: _Cell, students: list[str]) -> tuple[np.ndarray, list[int], np.ndarray]:
    """(held [n, m] of 0/1, hashes [m], sizes [n]) for ``cell``.

    The m columns are the selected k-grams that can be evidence for a pair: held by at least two
    submissions and by fewer than half the (weighed) class. ``sizes`` counts each student's
    selected k-grams that are not common (their own ones included), the denominator of a cell's score.
    """
    index = {s: i for i, s in enumerate(students)}
    holders: dict[int, list[int]] = {}
    for student, prints in cell.prints.items():
        for h in prints.positions:
            holders.setdefault(h, []).append(index[student])
    common_from = max(len(students), SMALL_CLASS) / 2  # rarity(df) > 0 exactly when df is below this
    uncommon = {h: who for h, who in holders.items() if len(who) < common_from}
    hashes = [h for h, who in uncommon.items() if len(who) >= 2]
    held = np.zeros((len(students), len(hashes)))
    for column, h in enumerate(hashes):
        held[uncommon[h], column] = 1.0
    sizes = np.zeros(len(students))
    for who in uncommon.values():
        sizes[who] += 1
    return held, hashes, sizes


def _cell_match(cell: _Cell, common: list[int], a: str, b: str, score: float, evidence: float) -> CellMatch:
    return CellMatch(cell.grade_id, round(min(score, 1.0), 4), round(evidence, 2),
                     _marks(cell.tokens[a], [p for h in common for p in cell.prints[a].positions[h]]),
                     _marks(cell.tokens[b], [p for h in common for p in cell.prints[b].positions[h]]))


def _marks(tokens: list[Token], starts: list[int]) -> tuple[Span, ...]:
    """The spans of code covered by the k-grams starting at ``starts``, merged per line."""
    by_line: dict[int, list[tuple[int, int]]] = {}
    for start in set(starts):
        for t in tokens[start:start + K]:
            if t.end > t.start:
                by_line.setdefault(t.line, []).append((t.start, t.end))
    spans = []
    for line in sorted(by_line):
        merged: list[list[int]] = []
        for start, end in sorted(by_line[line]):
            if merged and start <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        spans += [Span(line, s, e) for s, e in merged]
    return tuple(spans)
