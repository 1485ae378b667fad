"""The corpus the similarity check is measured on, as the comparison reads it.

A class of 02_softmax is put together from

- the honest class of ``similarity_class`` (generated, ``honest`` students);
- the grading corpus's own independent hand-ins (``grader_tests/corpus``: the model answer, the
  loop-based solution, a half-done one, a blank one);
- the similarity corpus (``grader_tests/similarity_corpus/02_softmax``): more independent
  solutions in other styles, and copies of them, each naming its origin in its header with
  ``# copied from: <submission>``.

Submissions are named as their files are; the copies' origins give the pairs that should be found.
The model answer is the class's reference, as ``grader.similarity.cells.read_class`` reads it.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
from similarity_class import ASSIGNMENT, cells_of, honest_class

from grader.demo.corpus import Submission, get_submission, parse_submission
from grader.notebook_cells import model_answer, model_answers
from grader.similarity.cells import ClassCells, solution_cells
from grader.similarity.compare import SimilarityReport
from grader_tests.checkout import REPO_ROOT

SIMILARITY_CORPUS = Path(__file__).resolve().parent / "similarity_corpus"
GRADING_CORPUS_MEMBERS = ("model_answer", "loops_float32", "partial_softmax_only", "blank")
_COPIED_FROM = re.compile(r"^#\s*copied from:\s*(?P<origin>\S+)\s*$", re.MULTILINE)


def copied_from(path: Path) -> str | None:
    """The origin a similarity-corpus file names, or None for an independent solution."""
    found = _COPIED_FROM.search(Path(path).read_text(encoding="utf-8"))
    return found.group("origin") if found else None


def similarity_corpus() -> list[Path]:
    return sorted((SIMILARITY_CORPUS / ASSIGNMENT).glob("*.py"))


def templates() -> dict[str, str]:
    return solution_cells(nbformat.read(REPO_ROOT / "release" / ASSIGNMENT / "softmax.ipynb", as_version=4))


def source_notebook() -> nbformat.NotebookNode:
    return nbformat.read(REPO_ROOT / "source" / ASSIGNMENT / "softmax.ipynb", as_version=4)


def submission_cells(submission: Submission) -> dict[str, str]:
    """grade_id -> code of every solution cell, as the built notebook would hold it."""
    released = templates()
    if submission.base == "model":
        released = {**released, **model_answers(source_notebook())}
    return {grade_id: submission.cells.get(grade_id, code) for grade_id, code in released.items()}


def corpus_class(honest: int = 60, seed: int = 0, with_copies: bool = True) -> tuple[ClassCells, set[frozenset]]:
    """(the class, the pairs that were written together)."""
    found = ClassCells(ASSIGNMENT, templates())
    found.references = {g: model_answer(code) for g, code in solution_cells(source_notebook(), set(found.templates)).items()}
    for student in honest_class(honest, seed):
        found.cells[student.name] = cells_of(student)
    for name in GRADING_CORPUS_MEMBERS:
        found.cells[name] = submission_cells(get_submission(ASSIGNMENT, name))
    together = set()
    for path in similarity_corpus():
        origin = copied_from(path)
        if origin and not with_copies:
            continue
        found.cells[path.stem] = submission_cells(parse_submission(path, ASSIGNMENT))
        if origin:
            together.add(frozenset((path.stem, origin)))
    return found, together


def reported(report: SimilarityReport) -> set[frozenset]:
    return {frozenset((pair.a, pair.b)) for pair in report.pairs}


def precision_recall(report: SimilarityReport, together: set[frozenset]) -> tuple[float, float]:
    """(precision, recall) of the reported pairs against the pairs written together."""
    found = reported(report)
    precision = len(found & together) / len(found) if found else 1.0
    recall = len(found & together) / len(together) if together else 1.0
    return precision, recall
