"""Judging a check in-process exactly as grading does, for the per-assignment check tests."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import nbformat

from grader import kernel_side
from grader.checks.api import Case, Check, Verdict
from grader.grading.student_numbers import NUMBERS_CELL, with_graded_student
from solutions.variants import numbers_for

#: Student ids whose numbers the variant-aware tests judge (the lesson's numbers, None, among them).
VARIANT_STUDENTS = (None, "ada", "ben", "cai", "dee", "eli", "fay", "s0123456", "maria.garcia", "jovyan2",
                    "student-07", "Zoë", "x")


def judge(check: Check, namespace: dict, seed: int = 0) -> Verdict:
    """The verdict the grading process reaches on ``namespace``: cases, plan and report cross JSON.

    A quiz item is judged for the numbers the namespace's ``my_numbers`` holds (the lesson's without).
    """
    cases = [Case.from_wire(wire) for wire in json.loads(json.dumps([c.to_wire() for c in check.draw_cases(seed)]))]
    plan = json.loads(json.dumps(check.plan(cases, "t")))
    report = json.loads(json.dumps(kernel_side.collect(plan, namespace), allow_nan=False))
    return check.decide(cases, report, namespace.get("my_numbers", {}).get(check.name))


def model_answer_namespace(notebook_path: Path, student: str = "model_answer") -> dict:
    """The namespace a student would have after running the setup, numbers and solution cells of a source
    notebook, with ``student``'s numbers (as grading fixes them in the ``my_numbers`` cell)."""
    notebook = nbformat.read(notebook_path, as_version=4)
    namespace: dict = {}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        source = cell.source
        if meta.get("grade_id") == NUMBERS_CELL:
            source = with_graded_student(source, student)
        if cell.cell_type == "code" and (meta.get("grade_id") in ("setup", NUMBERS_CELL) or meta.get("solution")):
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, f"{notebook_path.name}:{meta['grade_id']}", "exec"), namespace)
    return namespace


def wrong_answer_namespace(check: Check, misconception, student: str | None = None) -> dict | None:
    """A namespace holding ``misconception``'s wrong answer to ``check``, for ``student``'s numbers.

    A wrong function is the same for everyone; a wrong quiz value is computed from the student's
    numbers, which the namespace's ``my_numbers`` carries. None when the mistake has no value for
    those numbers, or its value is the correct one (then it is no mistake for this student).
    """
    if check.kind == "function":
        return {check.name: misconception.mistake}
    numbers = numbers_for(student)[check.name]
    value = misconception.mistake(numbers)
    if value is None:
        return None
    namespace = {check.name: value, "my_numbers": {check.name: numbers}}
    correct = judge(check, {check.name: check.expected_value(numbers), "my_numbers": {check.name: numbers}})
    return namespace if correct.passed and not judge(check, namespace).passed else None
