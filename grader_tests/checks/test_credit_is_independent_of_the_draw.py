"""Credit does not depend on the draw: the same code earns the same fraction under every course secret.

Every check of ``grader.checks`` is judged in-process, as grading judges it (``check_harness.judge``),
on the hidden inputs of DRAWS: the seeds ``grader.grading.seeds`` derives for one submission from
that many course secrets. The code judged is every wrong-answer family a student hands in:

- every known wrong answer of the registry (``grader.checks.misconceptions``, and the "lesson's
  numbers" of each quiz item), which must also be named, with its message, in the page text of
  every draw;
- identity stubs, one per parameter (``return d_model``, the ``return x`` of a student who has not
  started), and constant stubs (``return 0.0``, ``1.0``, ``-1.0``, ``0.5``, ``None``, arrays of zeros
  or ones shaped like the first argument);
- the reference itself (full marks on every draw; the costly statistical ones only in the full suite).

A constant outside those (say 0.7 for a success rate) can still meet a band on one draw and miss it
on another when a case's setting is drawn; the settings are chosen so that the stubs above cannot
(``SOFTMAX_SETTINGS`` of ``source/03_readout/checks.py``, ``INIT_STD_FACTORS`` of ``source/04_attention/checks.py``).
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from check_harness import VARIANT_STUDENTS, judge, wrong_answer_namespace

import solutions
from grader.checks import all_checks
from grader.checks.misconceptions import KNOWN_WRONG_ANSWERS
from grader.grading.preprocessors.decide_verdicts import verdict_outputs
from grader.grading.seeds import submission_seed

#: Seeds of one submission's hidden inputs under 40 course secrets.
DRAWS = tuple(submission_seed(f"course secret {i}".encode(), "ada", "any assignment", "notebook", "same code")
              for i in range(40))

#: Checks whose reference simulates for long on every draw: judged on every draw in the full suite only.
COSTLY_REFERENCES = frozenset({"saturation_experiment", "retrieval_accuracy", "retrieval_capacity"})

CONSTANTS = {"0.0": 0.0, "1.0": 1.0, "-1.0": -1.0, "0.5": 0.5, "None": None}
CHECKS = all_checks()


def _returns_argument(parameters: list[str], index: int):
    def stub(*args, **kwargs):
        return args[index] if index < len(args) else kwargs.get(parameters[index])
    return stub


def _returns(value):
    def stub(*args, **kwargs):
        return value
    return stub


def _shaped_like_the_first_argument(fill: float):
    def stub(*args, **kwargs):
        return np.full(np.shape(np.asarray(args[0], dtype=float)), fill)
    return stub


def stub_families():
    """(check name, family label, the code a student hands in) of every stub of every check."""
    for name, check in CHECKS.items():
        if check.kind == "function":
            parameters = list(inspect.signature(getattr(solutions, name)).parameters)
            for index, parameter in enumerate(parameters):
                yield name, f"return {parameter}", _returns_argument(parameters, index)
            yield name, "zeros like the first argument", _shaped_like_the_first_argument(0.0)
            yield name, "ones like the first argument", _shaped_like_the_first_argument(1.0)
            for label, value in CONSTANTS.items():
                yield name, f"return {label}", _returns(value)
        else:
            for label, value in CONSTANTS.items():
                yield name, f"= {label}", value


STUBS = list(stub_families())
#: Every known wrong answer a check can name: the registry's, and the "lesson's numbers" of a quiz item.
WRONG_ANSWERS = [(name, m) for name, check in CHECKS.items() for m in check.misconceptions]
REFERENCES = [pytest.param(name, marks=pytest.mark.slow) if name in COSTLY_REFERENCES else name
              for name, check in CHECKS.items() if check.kind == "function"]


def fractions_over_draws(check, namespace: dict) -> dict[float, int]:
    """fraction earned -> on how many of DRAWS."""
    counts: dict[float, int] = {}
    for seed in DRAWS:
        fraction = round(judge(check, namespace, seed).fraction, 9)
        counts[fraction] = counts.get(fraction, 0) + 1
    return counts


def _also_another_mistake(check, misconception, namespace: dict) -> bool:
    """True when a quiz value made by ``misconception`` is, for these numbers, also another known mistake's
    value (the variance ratio of d_k 4 and 16 is the lesson's answer): the feedback names one of them."""
    if check.kind != "value":
        return False
    numbers = namespace["my_numbers"][check.name]
    value = namespace[check.name]
    for other in check.misconceptions:
        if other is misconception:
            continue
        other_value = other.mistake(numbers)
        if isinstance(value, str) or isinstance(other_value, str):
            if other_value == value:
                return True
        elif other_value is not None and np.shape(other_value) == np.shape(value) \
                and np.allclose(np.asarray(other_value, dtype=float), np.asarray(value, dtype=float)):
            return True
    return False


def page_text(verdict) -> str:
    """The text the feedback page shows for a verdict (the outputs of its test cell)."""
    return "\n".join(output.get("data", {}).get("text/plain", "") for output in verdict_outputs(verdict, points=1.0))


def test_the_draws_are_distinct_and_give_distinct_hidden_inputs():
    assert len(set(DRAWS)) == len(DRAWS)
    check = CHECKS["softmax"]
    inputs = {repr([case.to_wire() for case in check.draw_cases(seed)]) for seed in DRAWS}
    assert len(inputs) == len(DRAWS)


@pytest.mark.parametrize("name, label, code", STUBS, ids=[f"{name}-{label}" for name, label, _ in STUBS])
def test_a_stub_earns_the_same_fraction_on_every_draw(name, label, code):
    assert len(fractions_over_draws(CHECKS[name], {name: code})) == 1


@pytest.mark.parametrize("name, misconception", WRONG_ANSWERS, ids=[f"{n}-{m.name}" for n, m in WRONG_ANSWERS])
def test_a_known_wrong_answer_earns_one_fraction_on_every_draw_and_is_named_on_the_page(name, misconception):
    check = CHECKS[name]
    students = VARIANT_STUDENTS if check.kind == "value" else (None,)
    namespaces = [ns for ns in (wrong_answer_namespace(check, misconception, s) for s in students)
                  if ns is not None and not _also_another_mistake(check, misconception, ns)]
    assert namespaces, "the mistake gives the right answer for every student's numbers: it can never be named"
    for namespace in namespaces:
        fractions = set()
        for seed in DRAWS:
            verdict = judge(check, namespace, seed)
            fractions.add(round(verdict.fraction, 9))
            assert verdict.misconception is not None and verdict.misconception.name == misconception.name, \
                (seed, verdict.explain())
            assert misconception.message() in page_text(verdict)
        assert len(fractions) == 1 and fractions != {1.0}, fractions


@pytest.mark.parametrize("name", REFERENCES)
def test_the_reference_earns_full_marks_on_every_draw(name):
    assert fractions_over_draws(CHECKS[name], {name: getattr(solutions, name)}) == {1.0: len(DRAWS)}


def test_every_entry_of_the_registry_is_judged_here():
    judged = {(name, m.name) for name, m in WRONG_ANSWERS}
    assert {(name, m.name) for name, known in KNOWN_WRONG_ANSWERS.items() for m in known} <= judged
