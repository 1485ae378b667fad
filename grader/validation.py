"""What Validate says: the test cells that fail, apart from those whose answer is not written yet.

nbgrader's ``Validator`` lists every failing test cell with its traceback; on a freshly fetched
notebook that is one traceback per function the student has not started, each ending in the
stub's ``NotImplementedError``, and the one real failure is hard to find among them.
:class:`CourseValidator` is nbgrader's validator (same settings, same results format, so
nbgrader's Validate dialog reads it) with:

- a failing test cell reported as *not attempted yet*, in one line instead of a traceback, when it
  or the answer cell above it raised ``NotImplementedError`` (the released stub, or code that calls
  one): a quiz item's test fails on its missing variable, but it is the answer above that is unwritten;
- the real failures first, then the cells not attempted yet;
- ``results["summary"]``: ``{"failed": n, "not_attempted": m}``, and a printed summary on top of
  ``validate_and_print`` (what ``nbgrader validate`` and ``grader validate`` show).

It decides nothing about grades: validation runs the notebook in the student's own kernel, and
grading never reads its results.
"""
from __future__ import annotations

from nbgrader.validator import Validator

#: The error text of a failing test cell whose answer still raises ``NotImplementedError``.
NOT_ATTEMPTED = "Not attempted yet: the answer this test checks still raises NotImplementedError, as released."
#: Key of the counts :class:`CourseValidator` adds to nbgrader's results.
SUMMARY_KEY = "summary"


def raised_not_implemented(cell) -> bool:
    """Whether an executed code cell's outputs hold an error raised as ``NotImplementedError`` (the released stub)."""
    return cell.cell_type == "code" and any(
        output.get("output_type") == "error" and output.get("ename") == "NotImplementedError"
        for output in cell.outputs)


def not_attempted_tests(nb) -> list:
    """The test cells of an executed notebook that are not attempted yet: each raised
    ``NotImplementedError`` itself, or the nearest answer cell above it did."""
    waiting, answer_above = [], None
    for cell in nb.cells:
        nbgrader = cell.metadata.get("nbgrader", {})
        if nbgrader.get("solution"):
            answer_above = cell
        elif nbgrader.get("grade") and cell.cell_type == "code":
            if raised_not_implemented(cell) or (answer_above is not None and raised_not_implemented(answer_above)):
                waiting.append(cell)
    return waiting


def summary_counts(results: dict) -> dict[str, int]:
    """``{"failed": n, "not_attempted": m}`` over the ``failed`` entries of nbgrader's validate results."""
    failed = results.get("failed", [])
    waiting = sum(1 for entry in failed if entry.get("raw_error") == NOT_ATTEMPTED)
    return {"failed": len(failed) - waiting, "not_attempted": waiting}


def summary_text(counts: dict[str, int]) -> str:
    """The one-line summary of :func:`summary_counts` ("1 test cell fails; 8 test cells not attempted yet (...).")."""
    failed, waiting = counts["failed"], counts["not_attempted"]
    parts = []
    if failed:
        parts.append(f"{failed} test cell{'s' if failed != 1 else ''} fail{'' if failed != 1 else 's'}")
    if waiting:
        parts.append(f"{waiting} test cell{'s' if waiting != 1 else ''} not attempted yet "
                     "(their answers still raise NotImplementedError)")
    return ("; ".join(parts) + ".") if parts else "Every test cell passes."


class CourseValidator(Validator):
    """nbgrader's ``Validator`` that tells test cells not attempted yet from real failures (module docstring)."""

    #: The counts of the notebook validated last (for printing), or None when nothing failed.
    _counts: dict[str, int] | None = None
    #: ``id()`` of the test cells of the notebook being validated that are not attempted yet.
    _waiting: frozenset[int] = frozenset()

    def _get_failed_cells(self, nb) -> list:
        self._waiting = frozenset(id(cell) for cell in not_attempted_tests(nb))
        return super()._get_failed_cells(nb)

    def _extract_error(self, cell) -> str:
        if id(cell) in self._waiting:
            return NOT_ATTEMPTED
        return super()._extract_error(cell)

    def validate(self, filename: str) -> dict:
        results = super().validate(filename)
        self._counts = None
        failed = results.get("failed")
        if failed:
            failed.sort(key=lambda entry: entry["raw_error"] == NOT_ATTEMPTED)  # stable: notebook order kept
            results[SUMMARY_KEY] = self._counts = summary_counts(results)
        return results

    def _print_num_failed(self, num_failed: int) -> None:
        """The summary line, then nbgrader's warning when a cell really fails ("Success!" when none fails)."""
        if num_failed == 0 or self._counts is None:
            return super()._print_num_failed(num_failed)
        self.stream.write(summary_text(self._counts) + "\n")
        if self._counts["failed"]:
            super()._print_num_failed(self._counts["failed"])

    def _print_error(self, source: str, error: str) -> None:
        """A real failure as nbgrader prints it; a cell not attempted yet in one line."""
        if error != NOT_ATTEMPTED:
            return super()._print_error(source, error)
        self.stream.write(f"Not attempted yet: {_first_line(source)}\n")


def _first_line(source: str) -> str:
    """A test cell's first line without its quotes: its docstring, which names the behaviour it tests."""
    return source.strip().split("\n", 1)[0].strip("\"' ")
