"""Hidden checks of 02_softmax: what they accept, what they reject, and which mistakes they name."""
from __future__ import annotations

from check_harness import judge as judge_in_process, model_answer_namespace

import contextlib
import importlib
import warnings

import numpy as np
import pytest


from grader.checks.api import (
    INACCURATE,
    NOT_DEFINED,
    NOT_FINITE,
    RAISED,
    WRONG_SHAPE,
    WRONG_TYPE,
    RngSeed,
)
from grader.checks.softmax import (
    CHECKS,
    MC_STANDARD_ERRORS,
    REFERENCE_TRIAL_FACTOR,
    SATURATION_KEYS,
    saturation_band,
)
from grader.course import REPO_ROOT

SEED = 20240602
NOTEBOOK = REPO_ROOT / "source" / "02_softmax" / "softmax.ipynb"
# The package re-exports the reference's functions under the module names, so import the module itself.
reference = importlib.import_module("solutions.softmax")

BY_NAME = {check.name: check for check in CHECKS}
FUNCTION_CHECKS = [check for check in CHECKS if check.kind == "function"]
VALUE_CHECKS = [check for check in CHECKS if check.kind == "value"]
NUMERIC_VALUE_CHECKS = [check for check in VALUE_CHECKS if not isinstance(check.reference, str)]
MISCONCEPTIONS = [(check, m) for check in CHECKS for m in check.misconceptions]
ARRAY_FUNCTIONS = ["softmax", "entropy", "score_gradient"]  # their batched outputs are arrays


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


def saturation_drawing_keys_first(d_k, n_keys, n_trials, scale, rng, *, divide=True):
    """A correct experiment that draws in another order than the reference (independent samples)."""
    if d_k < 1 or n_keys < 2 or n_trials < 1 or not scale > 0:
        raise ValueError("d_k, n_keys, n_trials and scale must be positive (n_keys >= 2)")
    keys = rng.normal(size=(n_trials, n_keys, d_k))
    q = rng.normal(size=(n_trials, d_k))
    scores = np.einsum("tkd,td->tk", keys, q) / (scale if divide else 1.0)
    weights = reference.softmax(scores)
    top_two = np.sort(scores, axis=-1)[:, -2:]
    return {"max_weight": float(weights.max(axis=-1).mean()),
            "entropy": float(np.mean(reference.entropy(weights))),
            "gap": float(np.mean(top_two[:, 1] - top_two[:, 0]))}


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


@pytest.mark.parametrize("check", NUMERIC_VALUE_CHECKS, ids=ids(NUMERIC_VALUE_CHECKS))
def test_wrong_quiz_weights_score_zero(check):
    uniform = np.full(np.shape(check.reference), 1.0 / np.size(check.reference))
    assert judge(check, {check.name: uniform}).fraction == 0.0


@pytest.mark.parametrize("check", NUMERIC_VALUE_CHECKS, ids=ids(NUMERIC_VALUE_CHECKS))
def test_quiz_weights_as_a_column_are_a_wrong_shape(check):
    verdict = judge(check, {check.name: np.asarray(check.reference)[:, None]})
    assert verdict.fraction == 0.0
    assert verdict.stage == WRONG_SHAPE


@pytest.mark.parametrize("choice", ["A", "C", "D"])
def test_each_wrong_choice_of_culprit_scores_zero(choice):
    assert judge(BY_NAME["answer_culprit"], {"answer_culprit": choice}).fraction == 0.0


def test_culprit_letter_is_read_regardless_of_case_and_spaces():
    assert judge(BY_NAME["answer_culprit"], {"answer_culprit": " b "}).fraction == 1.0


def test_culprit_as_a_number_is_a_wrong_type():
    assert judge(BY_NAME["answer_culprit"], {"answer_culprit": 2}).stage == WRONG_TYPE


@pytest.mark.parametrize("name", ARRAY_FUNCTIONS)
def test_batched_output_with_an_extra_axis_is_a_wrong_shape(name):
    function = getattr(reference, name)

    def with_extra_axis(*args, **kwargs):
        return np.asarray(function(*args, **kwargs))[..., None]

    verdict = judge(BY_NAME[name], {name: with_extra_axis})
    assert verdict.fraction < 1.0
    assert verdict.stage == WRONG_SHAPE


def test_softmax_computed_in_float32_for_float32_input_passes():
    def keeps_dtype(x, axis=-1):
        x = np.asarray(x)
        if x.size == 0 or not np.all(np.isfinite(x)):
            raise ValueError("x must be non-empty and finite")
        with np.errstate(over="ignore"):
            weights = np.exp(x - x.max(axis=axis, keepdims=True))
        return weights / weights.sum(axis=axis, keepdims=True)

    assert judge(BY_NAME["softmax"], {"softmax": keeps_dtype}).fraction == 1.0


def test_saturation_band_covers_the_spread_of_repeated_means():
    d_k, n_keys, n_trials, scale = 8, 16, 100, 2.0
    runs = [reference.saturation_experiment(d_k, n_keys, n_trials, scale, np.random.default_rng(seed))
            for seed in range(200)]
    band = saturation_band(d_k, n_keys, n_trials, scale, 7)
    # The band spans MC_STANDARD_ERRORS standard errors of (student mean - reference mean); the
    # student's mean alone has a standard error smaller by sqrt(1 + 1/REFERENCE_TRIAL_FACTOR).
    widths_in_spreads = MC_STANDARD_ERRORS * np.sqrt(1.0 + 1.0 / REFERENCE_TRIAL_FACTOR)
    for key in SATURATION_KEYS:
        centre, half_width = band[key]
        means = np.array([run[key] for run in runs])  # 200 runs pin the spread to about 5 %
        assert 0.85 < half_width / means.std() / widths_in_spreads < 1.15, key
        assert abs(means.mean() - centre) < half_width / MC_STANDARD_ERRORS, key


def test_saturation_drawn_in_another_order_passes():
    assert judge(BY_NAME["saturation_experiment"],
                 {"saturation_experiment": saturation_drawing_keys_first}).fraction == 1.0


def test_saturation_drawn_in_another_order_without_scaling_is_named_scale_ignored():
    def unscaled(d_k, n_keys, n_trials, scale, rng):
        return saturation_drawing_keys_first(d_k, n_keys, n_trials, scale, rng, divide=False)

    verdict = judge(BY_NAME["saturation_experiment"], {"saturation_experiment": unscaled})
    assert verdict.fraction < 1.0
    assert verdict.misconception is not None and verdict.misconception.name == "scale ignored"


def test_saturation_mean_beyond_the_band_is_inaccurate():
    def biased(d_k, n_keys, n_trials, scale, rng):
        result = reference.saturation_experiment(d_k, n_keys, n_trials, scale, rng)
        return {**result, "entropy": result["entropy"] + 0.3}

    verdict = judge(BY_NAME["saturation_experiment"], {"saturation_experiment": biased})
    assert verdict.fraction < 1.0
    assert {case.stage for case in verdict.cases if not case.passed} == {INACCURATE}


def test_saturation_without_the_gap_key_is_a_wrong_type():
    def no_gap(d_k, n_keys, n_trials, scale, rng):
        result = reference.saturation_experiment(d_k, n_keys, n_trials, scale, rng)
        return {"max_weight": result["max_weight"], "entropy": result["entropy"]}

    assert judge(BY_NAME["saturation_experiment"], {"saturation_experiment": no_gap}).stage == WRONG_TYPE


def test_saturation_with_a_nan_mean_is_not_finite():
    def nan_entropy(d_k, n_keys, n_trials, scale, rng):
        return {**reference.saturation_experiment(d_k, n_keys, n_trials, scale, rng), "entropy": float("nan")}

    assert judge(BY_NAME["saturation_experiment"], {"saturation_experiment": nan_entropy}).stage == NOT_FINITE


def test_softmax_without_max_subtraction_is_named_even_when_bad_input_is_not_rejected():
    def unvalidated_naive_softmax(x, axis=-1):
        weights = np.exp(np.asarray(x, dtype=np.float64))
        return weights / weights.sum(axis=axis, keepdims=True)

    verdict = judge(BY_NAME["softmax"], {"softmax": unvalidated_naive_softmax})
    assert verdict.misconception is not None and verdict.misconception.name == "no max subtraction"
