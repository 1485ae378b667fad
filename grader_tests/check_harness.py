"""Judging a check in-process exactly as grading does, for the per-assignment check tests."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat

from grader import kernel_probe
from grader.checks.api import Case, Check, Verdict


def judge(check: Check, namespace: dict, seed: int = 0) -> Verdict:
    """The verdict the grading process reaches on ``namespace``: cases, plan and report cross JSON."""
    cases = [Case.from_wire(wire) for wire in json.loads(json.dumps([c.to_wire() for c in check.draw_cases(seed)]))]
    plan = json.loads(json.dumps(check.plan(cases, "t")))
    report = json.loads(json.dumps(kernel_probe.collect(plan, namespace), allow_nan=False))
    return check.decide(cases, report)


def model_answer_namespace(notebook_path: Path) -> dict:
    """The namespace a student would have after running the setup and solution cells of a source notebook."""
    notebook = nbformat.read(notebook_path, as_version=4)
    namespace: dict = {}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and (meta.get("grade_id") == "setup" or meta.get("solution")):
            exec(compile(cell.source, f"{notebook_path.name}:{meta['grade_id']}", "exec"), namespace)
    return namespace
