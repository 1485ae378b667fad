"""Hidden checks of 04_attention: correct answers pass, blank and wrong ones fail, known mistakes are named.

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
from grader.checks import attention
from grader.checks.api import INACCURATE, NOT_DEFINED, NOT_FINITE, RAISED, WRONG_SHAPE, WRONG_TYPE

NOTEBOOK = Path(__file__).resolve().parent.parent / "source" / "04_attention" / "attention.ipynb"
CHECKS = {check.name: check for check in attention.CHECKS}
FUNCTION_CHECKS = [name for name, check in CHECKS.items() if check.kind == "function"]
VALUE_CHECKS = [name for name, check in CHECKS.items() if check.kind == "value"]
ARRAY_OUTPUT_CHECKS = ["scaled_dot_product_attention", "causal_mask", "multi_head_attention"]
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
    assert sorted(CHECKS) == sorted(solutions.STUDENT_API["04_attention"])
    assert len(CHECKS) == len(attention.CHECKS)


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
    verdict = verdict_for(CHECKS[name], answer(name, float(getattr(solutions, name)) * (1 + 1e-4)))
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
    student = lambda *args, **kwargs: _with_extra_axis(reference(*args, **kwargs))  # noqa: E731
    verdict = verdict_for(CHECKS[name], answer(name, student))
    assert verdict.fraction < 1.0
    assert verdict.stage == WRONG_SHAPE, verdict.explain()


def test_causal_mask_of_zeros_and_ones_is_reported_as_wrong_type():
    verdict = verdict_for(CHECKS["causal_mask"], answer("causal_mask", lambda n: np.tril(np.ones((n, n)))))
    assert verdict.fraction < 1.0
    assert verdict.stage == WRONG_TYPE


def test_attention_with_nan_in_a_fully_masked_row_is_reported_as_not_finite():
    def nan_for_empty_rows(Q, K, V, mask=None):
        Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
        scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        with np.errstate(all="ignore"):
            weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights = weights / weights.sum(axis=-1, keepdims=True)
        return weights @ V, weights

    verdict = verdict_for(CHECKS["scaled_dot_product_attention"], answer("scaled_dot_product_attention",
                                                                         nan_for_empty_rows))
    failed = [case for case in verdict.cases if not case.passed]
    assert [case.label for case in failed] == ["a boolean mask with one fully masked row"]
    assert verdict.stage == NOT_FINITE


# ---- projected_score_variance: the statistical judge --------------------------------------------


def variance_with_fresh_weights_per_sample(d_model, d_k, init_std, n_samples, rng):
    """A correct experiment of another design: new W_q, W_k for every (x, x') pair."""
    if min(d_model, d_k, n_samples) < 1 or init_std < 0:
        raise ValueError("d_model, d_k and n_samples must be positive and init_std >= 0")
    x = rng.standard_normal((n_samples, d_model))
    x_other = rng.standard_normal((n_samples, d_model))
    queries = np.einsum("sm,smk->sk", x, rng.normal(0.0, init_std, (n_samples, d_model, d_k)))
    keys = np.einsum("sm,smk->sk", x_other, rng.normal(0.0, init_std, (n_samples, d_model, d_k)))
    return float(np.var(np.sum(queries * keys, axis=1)))


def _variance_answer(student):
    return verdict_for(CHECKS["projected_score_variance"], answer("projected_score_variance", student))


def _failure_details(verdict):
    return [case.detail for case in verdict.cases if not case.passed]


@pytest.mark.parametrize("seed", SEEDS)
def test_variance_experiment_with_fresh_weights_per_sample_passes(seed):
    verdict = verdict_for(CHECKS["projected_score_variance"],
                          answer("projected_score_variance", variance_with_fresh_weights_per_sample), seed)
    assert verdict.fraction == 1.0, verdict.explain()


def test_variance_of_scaled_scores_fails_with_a_diagnosis():
    def scaled(d_model, d_k, init_std, n_samples, rng):
        return solutions.projected_score_variance(d_model, d_k, init_std, n_samples, rng) / d_k

    verdict = _variance_answer(scaled)
    assert verdict.fraction < 1.0
    assert any("divided by sqrt(d_k)" in detail for detail in _failure_details(verdict))


def test_variance_with_init_std_used_as_a_variance_fails_with_a_diagnosis():
    def squared_std(d_model, d_k, init_std, n_samples, rng):
        return solutions.projected_score_variance(d_model, d_k, init_std**2, n_samples, rng)

    verdict = _variance_answer(squared_std)
    assert verdict.fraction < 1.0
    assert any("init_std²" in detail for detail in _failure_details(verdict))


@pytest.mark.parametrize("returned, stage", [
    ("64", WRONG_TYPE), (np.array([64.0]), WRONG_TYPE), (float("inf"), NOT_FINITE), (-1.0, INACCURATE),
], ids=["string", "array", "inf", "negative"])
def test_variance_rejects_what_is_not_a_variance(returned, stage):
    def student(d_model, d_k, init_std, n_samples, rng):
        if d_k < 1:
            raise ValueError("d_k must be positive")
        return returned

    verdict = _variance_answer(student)
    assert all(not case.passed for case in verdict.cases if case.label != "d_k = 0")
    assert verdict.stage == stage


def test_variance_bound_covers_the_spread_of_the_reference_estimate():
    d_model, d_k, init_std, n_samples = 16, 4, 0.25, 500
    estimates = [solutions.projected_score_variance(d_model, d_k, init_std, n_samples, np.random.default_rng(seed))
                 for seed in range(1000)]
    predicted = attention.variance_estimate_sd(d_model, d_k, init_std, n_samples)
    assert 0.8 < np.std(estimates) / predicted < 1.25
