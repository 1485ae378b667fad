"""Hidden checks of 01_variance: what they accept, what they reject, and which mistakes they name."""
from __future__ import annotations

from check_harness import judge as judge_in_process, model_answer_namespace

import contextlib
import importlib
import warnings

import numpy as np
import pytest


from grader.checks.api import NOT_DEFINED, NOT_FINITE, RAISED, WRONG_SHAPE, WRONG_TYPE, RngSeed
from grader.checks.variance import CHECKS, mc_band
from grader.course import REPO_ROOT

SEED = 20240601
NOTEBOOK = REPO_ROOT / "source" / "01_variance" / "variance.ipynb"
# The package re-exports the reference's functions under the module names, so import the module itself.
reference = importlib.import_module("solutions.variance")

BY_NAME = {check.name: check for check in CHECKS}
FUNCTION_CHECKS = [check for check in CHECKS if check.kind == "function"]
VALUE_CHECKS = [check for check in CHECKS if check.kind == "value"]
MISCONCEPTIONS = [(check, m) for check in CHECKS for m in check.misconceptions]


def judge(check, namespace, seed=SEED):
    return judge_in_process(check, namespace, seed)


def ids(items):
    return [item.name if hasattr(item, "name") else f"{item[0].name}-{item[1].name}" for item in items]


@pytest.fixture(scope="module")
def model_answer():
    """The namespace left by the source notebook's setup and solution cells (the model answers)."""
    return model_answer_namespace(NOTEBOOK)


def blank(*args, **kwargs):
    raise NotImplementedError()


@pytest.mark.parametrize("check", CHECKS, ids=ids(CHECKS))
def test_reference_gets_full_marks(check):
    assert judge(check, {check.name: getattr(reference, check.name)}).fraction == 1.0


@pytest.mark.parametrize("check", CHECKS, ids=ids(CHECKS))
def test_model_answer_of_the_notebook_gets_full_marks(check, model_answer):
    verdict = judge(check, model_answer)
    assert verdict.fraction == 1.0, verdict.explain()


@pytest.mark.parametrize("check, misconception", MISCONCEPTIONS, ids=ids(MISCONCEPTIONS))
def test_each_misconception_fails_and_is_named(check, misconception):
    verdict = judge(check, {check.name: misconception.variant})
    assert verdict.fraction < 1.0
    assert verdict.misconception is not None and verdict.misconception.name == misconception.name


@pytest.mark.parametrize("check", FUNCTION_CHECKS, ids=ids(FUNCTION_CHECKS))
def test_model_answer_never_warns_on_the_hidden_cases(check, model_answer):
    def fresh(value):
        return np.random.default_rng(value.seed) if isinstance(value, RngSeed) else value

    function = model_answer[check.name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow, invalid and divide warnings become errors
        for case in check.draw_cases(SEED):
            with contextlib.suppress(ValueError) if case.raises else contextlib.nullcontext():
                function(*map(fresh, case.args), **{key: fresh(value) for key, value in case.kwargs.items()})


@pytest.mark.parametrize("check", FUNCTION_CHECKS, ids=ids(FUNCTION_CHECKS))
def test_blank_function_scores_zero_and_is_reported_as_raising(check):
    verdict = judge(check, {check.name: blank})
    assert verdict.fraction == 0.0
    assert verdict.stage == RAISED


@pytest.mark.parametrize("check", VALUE_CHECKS, ids=ids(VALUE_CHECKS))
def test_blank_quiz_answer_scores_zero_as_not_defined(check):
    verdict = judge(check, {})  # the release's stub raises before the variable is assigned
    assert verdict.fraction == 0.0
    assert verdict.stage == NOT_DEFINED


@pytest.mark.parametrize("check", VALUE_CHECKS, ids=ids(VALUE_CHECKS))
def test_wrong_quiz_value_scores_zero(check):
    verdict = judge(check, {check.name: check.reference * 1.5 + 1.0})
    assert verdict.fraction == 0.0


def test_coin_outcomes_in_another_order_pass():
    def shuffled(d):
        return np.random.default_rng(d).permutation(reference.coin_dot_products(d))

    assert judge(BY_NAME["coin_dot_products"], {"coin_dot_products": shuffled}).fraction == 1.0


def test_coin_outcomes_with_an_extra_axis_are_a_wrong_shape():
    def column(d):
        return reference.coin_dot_products(d)[:, None]

    assert judge(BY_NAME["coin_dot_products"], {"coin_dot_products": column}).stage == WRONG_SHAPE


def test_coin_outcomes_with_one_value_changed_fail():
    def one_off(d):
        values = reference.coin_dot_products(d)
        values[0] += 2.0
        return values

    assert judge(BY_NAME["coin_dot_products"], {"coin_dot_products": one_off}).fraction < 1.0


def test_mean_and_variance_as_a_single_number_is_a_wrong_type():
    def variance_only(values):
        return reference.mean_and_variance(values)[1]

    assert judge(BY_NAME["mean_and_variance"], {"mean_and_variance": variance_only}).stage == WRONG_TYPE


def test_monte_carlo_band_matches_the_spread_of_repeated_estimates():
    d_k, n_samples = 4, 200
    estimates = [reference.dot_variance_mc(d_k, n_samples, np.random.default_rng(seed)) for seed in range(400)]
    centre, half_width = mc_band(d_k, n_samples)
    standard_error = half_width / 6.0
    # 400 estimates pin their mean to about 5 % of a standard error, and their spread to about 4 %.
    assert abs(np.mean(estimates) - centre) < 0.25 * standard_error
    assert 0.85 < np.std(estimates) / standard_error < 1.15


def test_monte_carlo_estimate_drawn_in_another_order_with_ddof_1_passes():
    def keys_first(d_k, n_samples, rng, var_q=1.0, var_k=1.0):
        if d_k < 1 or n_samples < 1:
            raise ValueError("d_k and n_samples must be positive")
        k = rng.normal(0.0, np.sqrt(var_k), size=(d_k, n_samples))
        q = rng.normal(0.0, np.sqrt(var_q), size=(d_k, n_samples))
        return float(np.var(np.sum(q * k, axis=0), ddof=1))

    assert judge(BY_NAME["dot_variance_mc"], {"dot_variance_mc": keys_first}).fraction == 1.0


def test_monte_carlo_estimate_of_nan_is_reported_as_not_finite():
    def nan_estimate(d_k, n_samples, rng, var_q=1.0, var_k=1.0):
        if d_k < 1 or n_samples < 1:
            raise ValueError("d_k and n_samples must be positive")
        return float("nan")

    assert judge(BY_NAME["dot_variance_mc"], {"dot_variance_mc": nan_estimate}).stage == NOT_FINITE


def test_monte_carlo_samples_instead_of_their_variance_are_a_wrong_type():
    def samples(d_k, n_samples, rng, var_q=1.0, var_k=1.0):
        return reference.dot_product_samples(d_k, n_samples, rng, var_q, var_k)

    assert judge(BY_NAME["dot_variance_mc"], {"dot_variance_mc": samples}).stage == WRONG_TYPE


def test_sample_variance_is_named_even_when_bad_input_is_not_rejected():
    def unvalidated_sample_variance(values):
        values = np.asarray(values, dtype=np.float64)
        return float(np.mean(values)), float(np.var(values, ddof=1))

    verdict = judge(BY_NAME["mean_and_variance"], {"mean_and_variance": unvalidated_sample_variance})
    assert verdict.misconception is not None and verdict.misconception.name == "sample variance (ddof=1)"
