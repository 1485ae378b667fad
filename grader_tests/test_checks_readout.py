"""Hidden checks of 03_readout: correct answers pass, blank and wrong ones fail, known mistakes are named.

Each check runs as in grading, in-process: cases travel as JSON, ``grader.kernel_probe.collect`` calls the
answer in a namespace, and ``Check.decide`` judges the report against ``solutions``.
"""
from __future__ import annotations

from check_harness import judge as judge_in_process, model_answer_namespace

from pathlib import Path

import numpy as np
import pytest

import solutions
from grader import kernel_probe
from grader.checks import readout
from grader.checks.api import INACCURATE, NOT_DEFINED, NOT_FINITE, RAISED, WRONG_SHAPE, WRONG_TYPE

NOTEBOOK = Path(__file__).resolve().parent.parent / "source" / "03_readout" / "readout.ipynb"
CHECKS = {check.name: check for check in readout.CHECKS}
FUNCTION_CHECKS = [name for name, check in CHECKS.items() if check.kind == "function"]
VALUE_CHECKS = [name for name, check in CHECKS.items() if check.kind == "value"]
ARRAY_OUTPUT_CHECKS = ["exp_weights", "relative_weight", "normalize_rows", "softmax_readout",
                       "answer_ab_exp", "answer_ab_weights"]
MISCONCEPTIONS = [(name, m) for name, check in CHECKS.items() for m in check.misconceptions]
SEEDS = (0, 1)


def verdict_for(check, namespace, seed=0):
    return judge_in_process(check, namespace, seed)


def answer(name, value):
    return {name: value}


@pytest.fixture(scope="module")
def model_answers():
    """The namespace left by the source notebook's setup and solution cells (the model answers)."""
    return model_answer_namespace(NOTEBOOK)


def test_every_item_of_the_student_api_has_one_check():
    assert sorted(CHECKS) == sorted(solutions.STUDENT_API["03_readout"])
    assert len(CHECKS) == len(readout.CHECKS)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", CHECKS)
def test_reference_passes_every_case(name, seed):
    verdict = verdict_for(CHECKS[name], answer(name, getattr(solutions, name)), seed)
    assert verdict.fraction == 1.0, verdict.explain()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", CHECKS)
def test_model_answer_in_the_source_notebook_passes_every_case(model_answers, name, seed):
    verdict = verdict_for(CHECKS[name], model_answers, seed)
    assert verdict.fraction == 1.0, verdict.explain()


@pytest.mark.parametrize("name, misconception", MISCONCEPTIONS, ids=[f"{n}-{m.name}" for n, m in MISCONCEPTIONS])
def test_misconception_fails_and_is_named(name, misconception):
    verdict = verdict_for(CHECKS[name], answer(name, misconception.variant))
    assert verdict.fraction < 1.0
    assert verdict.misconception is not None and verdict.misconception.name == misconception.name, verdict.explain()


@pytest.mark.parametrize("name", FUNCTION_CHECKS)
def test_blank_function_scores_zero_as_raised_error(name):
    def blank(*args, **kwargs):
        raise NotImplementedError()

    verdict = verdict_for(CHECKS[name], answer(name, blank))
    assert verdict.fraction == 0.0
    assert verdict.stage == RAISED


@pytest.mark.parametrize("name", VALUE_CHECKS)
def test_blank_quiz_answer_scores_zero_as_not_defined(name):
    verdict = verdict_for(CHECKS[name], {})
    assert verdict.fraction == 0.0
    assert verdict.stage == NOT_DEFINED


@pytest.mark.parametrize("name", VALUE_CHECKS)
def test_quiz_answer_off_by_one_in_ten_thousand_scores_zero(name):
    wrong = np.asarray(getattr(solutions, name), dtype=np.float64) * (1 + 1e-4)
    verdict = verdict_for(CHECKS[name], answer(name, wrong if wrong.ndim else float(wrong)))
    assert verdict.fraction == 0.0
    assert verdict.stage == INACCURATE


def _with_extra_axis(value):
    if isinstance(value, tuple):
        return tuple(_with_extra_axis(item) for item in value)
    if isinstance(value, np.ndarray) and value.ndim >= 1:
        return value[None]
    return value


@pytest.mark.parametrize("name", ARRAY_OUTPUT_CHECKS)
def test_array_with_an_extra_axis_is_reported_as_wrong_shape(name):
    reference = getattr(solutions, name)
    if CHECKS[name].kind == "function":
        student = lambda *args, **kwargs: _with_extra_axis(reference(*args, **kwargs))  # noqa: E731
    else:
        student = _with_extra_axis(reference)
    verdict = verdict_for(CHECKS[name], answer(name, student))
    assert verdict.fraction < 1.0
    assert verdict.stage == WRONG_SHAPE, verdict.explain()


# ---- retrieval_accuracy: the statistical judge -------------------------------------------------


def _retrieval_with(**forced):
    """The reference with some arguments overridden after validation, as a student's mistake would."""
    def student(n_pairs, d, beta, n_trials, rng, readout="softmax"):
        if readout not in ("softmax", "linear"):
            raise ValueError(f"readout must be 'softmax' or 'linear'; got {readout!r}")
        arguments = {"beta": beta, "readout": readout, **forced}
        return solutions.retrieval_accuracy(n_pairs, d, arguments["beta"], n_trials, rng, readout=arguments["readout"])
    return student


def _failure_details(verdict):
    return [case.detail for case in verdict.cases if not case.passed]


def test_retrieval_linear_readout_where_softmax_is_asked_fails_with_a_diagnosis():
    verdict = verdict_for(CHECKS["retrieval_accuracy"], answer("retrieval_accuracy", _retrieval_with(readout="linear")))
    assert verdict.fraction < 1.0
    assert any("consistent with the linear read-out" in detail for detail in _failure_details(verdict))


def test_retrieval_softmax_without_beta_fails_with_a_diagnosis():
    verdict = verdict_for(CHECKS["retrieval_accuracy"], answer("retrieval_accuracy", _retrieval_with(beta=1.0)))
    assert verdict.fraction < 1.0
    assert any("softmax without beta" in detail for detail in _failure_details(verdict))


def test_retrieval_naive_softmax_that_overflows_at_large_beta_fails():
    def naive(n_pairs, d, beta, n_trials, rng, readout="softmax"):
        if readout not in ("softmax", "linear"):
            raise ValueError("readout")
        keys = solutions.normalize_rows(rng.standard_normal((n_pairs * n_trials, d))).reshape(n_trials, n_pairs, d)
        values = solutions.normalize_rows(rng.standard_normal((n_pairs * n_trials, d))).reshape(n_trials, n_pairs, d)
        queried = rng.integers(0, n_pairs, n_trials)
        scores = np.einsum("tnd,td->tn", keys, keys[np.arange(n_trials), queried])
        with np.errstate(all="ignore"):
            weights = np.exp(beta * scores) / np.exp(beta * scores).sum(axis=1, keepdims=True)
        output = np.einsum("tn,tnd->td", weights if readout == "softmax" else scores, values)
        return float(np.mean(np.einsum("tnd,td->tn", values, output).argmax(axis=1) == queried))

    verdict = verdict_for(CHECKS["retrieval_accuracy"], answer("retrieval_accuracy", naive))
    failed = [case.label for case in verdict.cases if not case.passed]
    assert failed and all("large beta" in label for label in failed), failed


@pytest.mark.parametrize("returned, stage", [
    ("0.9", WRONG_TYPE), (np.array([0.9]), WRONG_TYPE), (True, WRONG_TYPE),
    (float("nan"), NOT_FINITE), (1.5, INACCURATE), (-0.1, INACCURATE),
], ids=["string", "array", "bool", "nan", "above one", "negative"])
def test_retrieval_rejects_what_is_not_a_rate(returned, stage):
    def student(n_pairs, d, beta, n_trials, rng, readout="softmax"):
        if readout not in ("softmax", "linear"):
            raise ValueError("readout")
        return returned

    verdict = verdict_for(CHECKS["retrieval_accuracy"], answer("retrieval_accuracy", student))
    assert all(not case.passed for case in verdict.cases if "cosine" not in case.label)
    assert verdict.stage == stage


def test_retrieval_rejects_a_rate_that_is_not_a_count_over_n_trials():
    def student(n_pairs, d, beta, n_trials, rng, readout="softmax"):
        rate = solutions.retrieval_accuracy(n_pairs, d, beta, n_trials, rng, readout=readout)
        return rate - 0.1 / n_trials if rate > 0.5 else rate + 0.1 / n_trials

    verdict = verdict_for(CHECKS["retrieval_accuracy"], answer("retrieval_accuracy", student))
    assert all(not case.passed for case in verdict.cases if "cosine" not in case.label)
    assert "whole number of successes" in verdict.problem


def test_retrieval_tolerance_leaves_room_for_a_few_failures_when_the_expected_rate_is_one():
    assert readout.retrieval_tolerance(1.0, 500) * 500 >= 5
    assert readout.retrieval_tolerance(1.0, 500) < 0.05


# ---- retrieval_capacity: the statistical judge -------------------------------------------------


def _capacity_with(**forced):
    """The reference search with some arguments overridden after validation, as a student's mistake would."""
    def student(d, beta, n_trials, rng, readout="softmax", threshold=0.9, max_pairs=4096):
        if not 0 < threshold <= 1:
            raise ValueError("threshold must lie in (0, 1]")
        arguments = {"beta": beta, "readout": readout, "threshold": threshold, "max_pairs": max_pairs, **forced}
        return solutions.retrieval_capacity(d, arguments["beta"], n_trials, rng, readout=arguments["readout"],
                                            threshold=arguments["threshold"], max_pairs=arguments["max_pairs"])
    return student


def _doubling_without_bisection(d, beta, n_trials, rng, readout="softmax", threshold=0.9, max_pairs=4096):
    """Stops at the last power of two that reached the threshold, skipping the bisection."""
    if not 0 < threshold <= 1:
        raise ValueError("threshold must lie in (0, 1]")
    n_pairs = 1
    while n_pairs < max_pairs and solutions.retrieval_accuracy(
            min(2 * n_pairs, max_pairs), d, beta, n_trials, rng, readout=readout) >= threshold:
        n_pairs = min(2 * n_pairs, max_pairs)
    return n_pairs


@pytest.mark.parametrize("seed", range(6))
def test_capacity_reference_passes_on_every_seed(seed):
    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", solutions.retrieval_capacity), seed)
    assert verdict.fraction == 1.0, verdict.explain()


@pytest.mark.parametrize("forced, diagnosis", [
    ({"readout": "linear"}, "capacity of the linear read-out"),
    ({"beta": 1.0}, "softmax read-out without beta"),
    ({"threshold": 0.9}, "threshold 0.9 instead of the one asked"),
], ids=["linear instead of softmax", "beta left out", "threshold ignored"])
def test_capacity_wrong_search_fails_with_a_diagnosis(forced, diagnosis):
    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", _capacity_with(**forced)))
    assert verdict.fraction < 1.0
    assert any(diagnosis in detail for detail in _failure_details(verdict)), verdict.explain()


def test_capacity_softmax_instead_of_linear_fails_on_the_linear_case():
    def softmax_always(d, beta, n_trials, rng, readout="softmax", threshold=0.9, max_pairs=4096):
        return _capacity_with(readout="softmax")(d, beta, n_trials, rng, readout, threshold, max_pairs)

    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", softmax_always))
    failed = [case.label for case in verdict.cases if not case.passed]
    assert failed == [label for label in failed if "linear" in label] and failed, failed


def test_capacity_ignoring_max_pairs_fails_as_out_of_range():
    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", _capacity_with(max_pairs=4096)))
    failed = [case for case in verdict.cases if not case.passed]
    assert failed and all("max_pairs" in case.detail for case in failed), verdict.explain()


def test_capacity_search_without_bisection_fails():
    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", _doubling_without_bisection))
    assert verdict.fraction < 1.0
    assert any("too small" in detail for detail in _failure_details(verdict)), verdict.explain()


@pytest.mark.parametrize("returned, stage", [
    (40.5, WRONG_TYPE), ("40", WRONG_TYPE), (True, WRONG_TYPE), (0, INACCURATE), (10**6, INACCURATE),
], ids=["fraction", "string", "bool", "zero", "beyond max_pairs"])
def test_capacity_rejects_what_is_not_a_capacity(returned, stage):
    def student(d, beta, n_trials, rng, readout="softmax", threshold=0.9, max_pairs=4096):
        if not 0 < threshold <= 1:
            raise ValueError("threshold")
        return returned

    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", student))
    assert all(not case.passed for case in verdict.cases if not case.label.startswith("threshold = 1.5"))
    assert verdict.stage == stage


def test_capacity_judge_accepts_a_float_holding_a_whole_number():
    def student(*args, **kwargs):
        return float(solutions.retrieval_capacity(*args, **kwargs))

    verdict = verdict_for(CHECKS["retrieval_capacity"], answer("retrieval_capacity", student))
    assert verdict.fraction == 1.0, verdict.explain()
