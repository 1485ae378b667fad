"""The similarity check on its corpus: copies found with their origins, honest students left alone.

The class is ``similarity_harness.corpus_class``: a generated honest class of 60 made of shared
idioms, the grading corpus's own independent hand-ins, and the similarity corpus's independent
solutions and disguised copies (renamed, statements moved, comments and dead code added, lines
split and merged, only two cells copied).
"""
from __future__ import annotations

import pytest
from similarity_harness import copied_from, corpus_class, precision_recall, reported, similarity_corpus

from grader.similarity.compare import CELL_SCORE, compare_class, rarity
from grader.similarity.report import marked_lines, side_by_side


@pytest.fixture(scope="module")
def corpus_report():
    found, together = corpus_class(honest=60, seed=0)
    return compare_class(found), together


def test_the_corpus_holds_independent_solutions_and_copies_of_them():
    origins = [copied_from(path) for path in similarity_corpus()]
    assert sum(o is None for o in origins) >= 3 and sum(o is not None for o in origins) >= 4


def test_every_copy_is_reported_with_its_origin(corpus_report):
    report, together = corpus_report
    _, recall = precision_recall(report, together)
    assert recall == 1.0, together - reported(report)


def test_no_pair_but_those_written_together_is_reported(corpus_report):
    report, together = corpus_report
    precision, _ = precision_recall(report, together)
    assert precision == 1.0, reported(report) - together


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_honest_class_of_60_gets_no_pair(seed):
    found, _ = corpus_class(honest=60, seed=seed, with_copies=False)
    assert len(found.cells) >= 60
    assert compare_class(found).pairs == []


def test_identical_short_cells_do_not_make_a_pair():
    found, _ = corpus_class(honest=60, seed=0, with_copies=False)
    first, second = "s000", "s001"
    for grade_id in ("unit_variance_scale", "answer_worked_example", "answer_weights_unscaled",
                     "answer_weights_scaled", "answer_culprit"):
        found.cells[second][grade_id] = found.cells[first][grade_id]
    assert frozenset((first, second)) not in reported(compare_class(found))


def test_one_copied_long_cell_is_enough():
    found, _ = corpus_class(honest=60, seed=0, with_copies=False)
    origin, copier = "loops_float32", "s005"
    copy = dict(corpus_class(honest=0, with_copies=True)[0].cells["copy_of_loops_renamed"])
    found.cells[copier]["saturation_experiment"] = copy["saturation_experiment"]
    pairs = {frozenset((p.a, p.b)): p for p in compare_class(found).pairs}
    assert set(pairs) == {frozenset((origin, copier))}
    assert [c.grade_id for c in pairs[frozenset((origin, copier))].cells] == ["saturation_experiment"]


def test_a_kgram_half_the_class_shares_is_no_evidence():
    assert rarity(30, 60) == 0.0 and rarity(45, 60) == 0.0
    assert rarity(2, 60) == 1.0 and 0.0 < rarity(10, 60) < 1.0


def test_each_reported_pair_names_its_cells_with_scores(corpus_report):
    report, _ = corpus_report
    for pair in report.pairs:
        assert pair.a < pair.b and 0.0 < pair.score <= 1.0
        assert pair.cells and all(CELL_SCORE <= cell.score <= 1.0 for cell in pair.cells)


def test_the_side_by_side_view_marks_the_copied_code_in_both_cells(corpus_report):
    report, _ = corpus_report
    pair = next(p for p in report.pairs if {p.a, p.b} == {"loops_float32", "copy_of_loops_renamed"})
    views = {view.grade_id: view for view in side_by_side(report, pair)}
    for side in (views["softmax"].left, views["softmax"].right):
        marked = "".join(seg.text for line in side for seg in line if seg.marked)
        assert "math.exp" in marked and "moveaxis" in marked
        assert "Stable softmax" not in marked and "softmax, computed" not in marked.lower()  # docstrings never


def test_marked_lines_keep_the_code_exactly():
    code = "a = 1\nbb = f(a)  # note\n"
    from grader.similarity.compare import Span

    lines = marked_lines(code, (Span(2, 5, 9), Span(1, 0, 1)))
    assert ["".join(s.text for s in line) for line in lines] == code.splitlines()
    assert [s.text for line in lines for s in line if s.marked] == ["a", "f(a)"]
