"""``grader check-course``: what a course still lacks, in plain words.

For every assignment folder ``source/<id>/`` that holds notebooks, it reads the notebooks and the
checks file beside them and reports, one finding per line:

- a checks file that fails to import (with the error) or a check name declared twice;
- a solution cell without a check, and a test cell whose ``probe("<name>")`` names no check;
- a check without a test cell that probes it;
- a quiz item's number range that degenerates (low >= high, or not whole numbers), and a
  ``my_numbers`` cell whose ranges differ from those its checks file declares.

An assignment without a checks file and without probe lines is an ordinary nbgrader assignment and
has nothing to report.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.checks.api import Check
from grader.checks.discovery import CHECKS_FILE, CheckDiscoveryError, load_checks_file
from grader.course_folders import SOURCE
from grader.grading.probe_cells import probe_names
from grader.grading.student_numbers import NUMBERS_CELL
from grader.notebook_cells import grade_id, is_solution_cell, is_test_cell


@dataclass(frozen=True)
class CourseFinding:
    """One thing missing or wrong: where (``source/<id>/...``) and what, in a sentence with what to do."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def course_findings(course_root: Path) -> list[CourseFinding]:
    """Everything missing in the course at ``course_root``, assignment by assignment (empty: nothing)."""
    source = Path(course_root) / SOURCE
    findings: list[CourseFinding] = []
    declared_in: dict[str, str] = {}
    for folder in sorted(p for p in source.iterdir() if p.is_dir()) if source.is_dir() else []:
        notebooks = sorted(folder.glob("*.ipynb"))
        if notebooks:
            findings += assignment_findings(folder, notebooks, declared_in)
    return findings


def assignment_findings(folder: Path, notebooks: list[Path], declared_in: dict[str, str]) -> list[CourseFinding]:
    """The findings of one assignment folder; ``declared_in`` (check name -> its file) spans the course."""
    where = f"{SOURCE}/{folder.name}"
    cells = [cell for path in notebooks for cell in nbformat.read(path, as_version=4).cells]
    probed = {name: grade_id(cell) for cell in cells if is_test_cell(cell) for name in probe_names(cell.source)}
    solutions = [grade_id(cell) for cell in cells if is_solution_cell(cell)]
    checks_path = folder / CHECKS_FILE
    if not checks_path.exists():
        if not probed:
            return []  # an ordinary nbgrader assignment
        return [CourseFinding(where, f"the notebook probes {', '.join(sorted(probed))} but there is no {CHECKS_FILE} "
                              f"beside it; declare its checks in {where}/{CHECKS_FILE} (grader new-assignment "
                              "writes an example)")]
    try:
        checks = {check.name: check for check in load_checks_file(checks_path).CHECKS}
    except CheckDiscoveryError as exc:
        return [CourseFinding(f"{where}/{CHECKS_FILE}", str(exc))]
    findings = []
    for name in checks:
        if name in declared_in:
            findings.append(CourseFinding(f"{where}/{CHECKS_FILE}", f"the check {name!r} is declared twice (also in "
                                          f"{declared_in[name]}); each name may have one check only"))
        declared_in.setdefault(name, f"{where}/{CHECKS_FILE}")
    for name in solutions:
        if name not in checks:
            findings.append(CourseFinding(where, f"the solution cell {name!r} has no check: add one named {name!r} "
                                          f"to CHECKS in {CHECKS_FILE}"))
    for name in checks:
        if name not in probed:
            findings.append(CourseFinding(where, f"the check {name!r} has no test cell: add a graded test cell "
                                          f"'test_{name}' ending in the hidden lines `from grader.probe import probe` "
                                          f"and `probe(\"{name}\")`"))
    for name, cell in probed.items():
        if name not in checks:
            findings.append(CourseFinding(where, f"the test cell {cell!r} probes {name!r}, which {CHECKS_FILE} does "
                                          "not declare"))
    findings += [CourseFinding(f"{where}/{CHECKS_FILE}", problem) for check in checks.values()
                 for problem in range_problems(check)]
    findings += numbers_cell_findings(where, cells, checks)
    return findings


def range_problems(check: Check) -> list[str]:
    """What is wrong with a quiz item's declared number ranges (empty when each is low < high, whole numbers)."""
    problems = []
    for parameter, bounds in (check.number_ranges or {}).items():
        if (not isinstance(bounds, (tuple, list)) or len(bounds) != 2
                or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)):
            problems.append(f"the range of {check.name}'s number {parameter!r} is {bounds!r}; write it as "
                            "(low, high), two whole numbers")
        elif bounds[0] >= bounds[1]:
            problems.append(f"the range of {check.name}'s number {parameter!r} degenerates: ({bounds[0]}, "
                            f"{bounds[1]}) gives every student the same number or none; make low smaller than high")
    return problems


def numbers_cell_findings(where: str, cells, checks: dict[str, Check]) -> list[CourseFinding]:
    """A ``my_numbers`` cell whose ranges are not those the checks file declares for its quiz items."""
    declared = {name: dict(check.number_ranges) for name, check in checks.items() if check.number_ranges}
    if not declared:
        return []
    cell = next((c for c in cells if grade_id(c) == NUMBERS_CELL), None)
    if cell is None:
        return [CourseFinding(where, f"the quiz items {', '.join(declared)} have number ranges but the notebook has "
                              f"no {NUMBERS_CELL!r} cell to show students their numbers")]
    shown = ranges_in_numbers_cell(cell.source)
    if shown != {name: {p: tuple(b) for p, b in r.items()} for name, r in declared.items()}:
        return [CourseFinding(where, f"the {NUMBERS_CELL!r} cell shows the ranges {shown!r} but {CHECKS_FILE} declares "
                              f"{declared!r}; make them the same, or students compute from other numbers")]
    return []


def ranges_in_numbers_cell(source: str) -> dict | None:
    """The ranges literal passed to ``notebook_ranged_numbers`` in a ``my_numbers`` cell, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Dict):
            try:
                return ast.literal_eval(node.args[0])
            except ValueError:
                return None
    return None
