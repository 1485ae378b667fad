"""Partial credit does not depend on luck: every corpus submission earns the same per-cell score on 200 seeds.

Each check draws its cases by category (a fixed list of what is tested, with fresh values for each
seed), so a wrong variant fails the same categories on every draw. Here every runnable corpus
submission is judged in-process, exactly as grading judges it (``test_corpus_verdicts``), on
INVARIANCE_SEEDS seeds, and every test cell must get one score and one diagnosis on all of them.

There is one test per test cell (so parallel workers share the load), covering every submission. A
check's verdict depends only on the code it calls, so within a test it is judged once per distinct
code: submissions built on the model answer share most functions, and re-running them would
measure the same thing again (``code_key``).
"""
from __future__ import annotations

import json
import types
from collections import Counter
from functools import lru_cache

import nbformat
import numpy as np
import pytest
from test_corpus_verdicts import (
    NOT_ATTEMPTED_CELLS,
    RUNNABLE,
    diagnosis,
    judge_in_process,
    nbgrader_score,
    run_setup_and_solution_cells,
)

from grader import kernel_side
from grader.demo.corpus import build_notebook
from grader.notebook_cells import checks_of_test_cells, points_of_test_cells
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT

pytestmark = pytest.mark.slow

INVARIANCE_SEEDS = range(200)


def _function_key(function: types.FunctionType, namespace: dict, seen: set) -> tuple:
    """The code of ``function`` and, recursively, of every function of ``namespace`` it names."""
    if id(function) in seen:
        return ("recursive", function.__name__)
    seen = seen | {id(function)}
    code = function.__code__

    def code_key(code_object):
        consts = tuple(code_key(c) if isinstance(c, types.CodeType) else repr(c) for c in code_object.co_consts)
        return (code_object.co_code, consts, code_object.co_names)

    named = []
    for name in sorted(set(_all_names(code))):
        value = namespace.get(name)
        if isinstance(value, types.FunctionType):
            named.append((name, _function_key(value, namespace, seen)))
        elif isinstance(value, types.ModuleType):
            named.append((name, value.__name__))
        elif name in namespace:
            named.append((name, _value_key(value)))
    defaults = repr(function.__defaults__) + repr(function.__kwdefaults__)
    return (code_key(code), defaults, tuple(named))


def _all_names(code: types.CodeType):
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _all_names(const)


def _value_key(value) -> str:
    try:
        return json.dumps(kernel_side.encode(value), sort_keys=True)
    except Exception:
        return f"<{type(value).__name__} {id(value)}>"  # unknown objects are never shared


def code_key(check_name: str, namespace: dict) -> tuple:
    """What the verdict of ``check_name`` on ``namespace`` depends on (see the module docstring)."""
    target = namespace.get(check_name)
    if isinstance(target, types.FunctionType):
        return (check_name, _function_key(target, namespace, set()))
    return (check_name, _value_key(target) if check_name in namespace else "<undefined>")


@lru_cache(maxsize=None)
def _notebooks(assignment: str):
    name = ASSIGNMENTS[assignment]
    return (nbformat.read(REPO_ROOT / "release" / assignment / f"{name}.ipynb", as_version=4),
            nbformat.read(REPO_ROOT / "source" / assignment / f"{name}.ipynb", as_version=4))


@lru_cache(maxsize=None)
def _namespace(assignment: str, submission_name: str) -> dict:
    submission = next(s for s in RUNNABLE if (s.assignment, s.name) == (assignment, submission_name))
    release, source = _notebooks(assignment)
    return run_setup_and_solution_cells(build_notebook(submission, release, source), submission.name)


def _test_cells():
    """(assignment, test cell grade_id, check name, points) of every probe cell of every assignment."""
    for assignment in ASSIGNMENTS:
        source = _notebooks(assignment)[1]
        checks = checks_of_test_cells(source)
        for cell_id, points in points_of_test_cells(source).items():
            yield assignment, cell_id, checks[cell_id], points


def outcomes_over_seeds(namespace: dict, check_name: str, points: float, cell_id: str) -> Counter:
    """(nbgrader score, diagnosis) -> number of INVARIANCE_SEEDS seeds on which the cell gets it."""
    outcomes = Counter()
    for seed in INVARIANCE_SEEDS:
        verdict = judge_in_process(namespace, check_name, seed, namespace["__student__"])
        outcomes[(nbgrader_score(verdict, points, cell_id), diagnosis(verdict))] += 1
    return outcomes


@pytest.mark.parametrize("assignment, cell_id, check_name, points", list(_test_cells()),
                         ids=lambda value: value if isinstance(value, str) else None)
def test_every_corpus_submission_earns_one_score_and_one_diagnosis_on_every_seed(assignment, cell_id, check_name,
                                                                                  points):
    judged: dict[tuple, Counter] = {}
    varying = {}
    for submission in (s for s in RUNNABLE if s.assignment == assignment):
        namespace = _namespace(assignment, submission.name)
        key = code_key(check_name, namespace) + (frozenset(namespace[NOT_ATTEMPTED_CELLS]) & {check_name},)
        if key not in judged:
            judged[key] = outcomes_over_seeds(namespace, check_name, points, cell_id)
        outcomes = judged[key]
        assert sum(outcomes.values()) == len(INVARIANCE_SEEDS)
        if len(outcomes) > 1:
            varying[submission.name] = dict(outcomes)
    assert varying == {}


def test_code_key_tells_apart_functions_that_call_different_helpers():
    def helper_a(x):
        return x

    def helper_b(x):
        return -x

    def f(x):
        return helper(x)  # noqa: F821 (resolved in the namespaces below)

    assert code_key("f", {"f": f, "helper": helper_a}) != code_key("f", {"f": f, "helper": helper_b})
    assert code_key("f", {"f": f, "helper": helper_a}) == code_key("f", {"f": f, "helper": helper_a})
    assert code_key("x", {"x": np.array([1.0])}) != code_key("x", {"x": np.array([2.0])})
