"""Tests of what is specific to one check: statistical bands, answers accepted in any form, judges' diagnoses.

What every check must do is tested once for all of them in ``test_checks.py``.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from check_harness import judge

import solutions
from grader.checks import all_checks, checks_module
from grader.checks.api import INACCURATE, NOT_FINITE, WRONG_CHOICE, WRONG_SHAPE, WRONG_TYPE
from grader.checks.common import STANDARD_ERRORS

attention = checks_module("04_attention")
readout = checks_module("03_readout")
REFERENCE_TRIAL_FACTOR, SATURATION_KEYS, saturation_band = (
    getattr(checks_module("02_softmax"), name) for name in ("REFERENCE_TRIAL_FACTOR", "SATURATION_KEYS", "saturation_band"))
mc_band = checks_module("01_variance").mc_band

# The package re-exports the reference's functions under the module names, so import the modules themselves.
softmax_reference = importlib.import_module("solutions.saturation")
variance_reference = importlib.import_module("solutions.variance")
BY_NAME = all_checks()
CHECKS = BY_NAME
SEEDS = (0, 1)


def verdict_for(check, namespace, seed=0):
    return judge(check, namespace, seed)


def answer(name, value):
    return {name: value}


# ---- 01_variance ---------------------------------------------------------------------------------


def test_coin_outcomes_in_another_order_pass():
    def shuffled(d):
        return np.random.default_rng(d).permutation(variance_reference.coin_dot_products(d))

    assert judge(BY_NAME["coin_dot_products"], {"coin_dot_products": shuffled}).fraction == 1.0


def test_coin_outcomes_with_an_extra_axis_are_a_wrong_shape():
    def column(d):
        return variance_reference.coin_dot_products(d)[:, None]

    assert judge(BY_NAME["coin_dot_products"], {"coin_dot_products": column}).stage == WRONG_SHAPE


def test_coin_outcomes_with_one_value_changed_fail():
    def one_off(d):
        values = variance_reference.coin_dot_products(d)
        values[0] += 2.0
        return values

    assert judge(BY_NAME["coin_dot_products"], {"coin_dot_products": one_off}).fraction < 1.0


def test_mean_and_variance_as_a_single_number_is_a_wrong_type():
    def variance_only(values):
        return variance_reference.mean_and_variance(values)[1]

    assert judge(BY_NAME["mean_and_variance"], {"mean_and_variance": variance_only}).stage == WRONG_TYPE


def test_monte_carlo_band_matches_the_spread_of_repeated_estimates():
    d_k, n_samples = 4, 200
    estimates = [variance_reference.dot_variance_mc(d_k, n_samples, np.random.default_rng(seed)) for seed in range(400)]
    centre, half_width = mc_band(d_k, n_samples)
    standard_error = half_width / STANDARD_ERRORS
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
        return variance_reference.dot_product_samples(d_k, n_samples, rng, var_q, var_k)

    assert judge(BY_NAME["dot_variance_mc"], {"dot_variance_mc": samples}).stage == WRONG_TYPE


def test_sample_variance_is_named_even_when_bad_input_is_not_rejected():
    def unvalidated_sample_variance(values):
        values = np.asarray(values, dtype=np.float64)
        return float(np.mean(values)), float(np.var(values, ddof=1))

    verdict = judge(BY_NAME["mean_and_variance"], {"mean_and_variance": unvalidated_sample_variance})
    assert verdict.misconception is not None and verdict.misconception.name == "sample variance (ddof=1)"


# ---- 02_softmax ----------------------------------------------------------------------------------


def saturation_drawing_keys_first(d_k, n_keys, n_trials, scale, rng, *, divide=True):
    """A correct experiment that draws in another order than the reference (independent samples)."""
    if d_k < 1 or n_keys < 2 or n_trials < 1 or not scale > 0:
        raise ValueError("d_k, n_keys, n_trials and scale must be positive (n_keys >= 2)")
    keys = rng.normal(size=(n_trials, n_keys, d_k))
    q = rng.normal(size=(n_trials, d_k))
    scores = np.einsum("tkd,td->tk", keys, q) / (scale if divide else 1.0)
    weights = softmax_reference.softmax(scores)
    top_two = np.sort(scores, axis=-1)[:, -2:]
    return {"max_weight": float(weights.max(axis=-1).mean()),
            "entropy": float(np.mean(softmax_reference.entropy(weights))),
            "gap": float(np.mean(top_two[:, 1] - top_two[:, 0]))}


@pytest.mark.parametrize("choice", ["A", "C", "D"])
def test_each_wrong_choice_of_culprit_scores_zero(choice):
    assert judge(BY_NAME["answer_culprit"], {"answer_culprit": choice}).fraction == 0.0


@pytest.mark.parametrize("choice", ["A", "C", "D"])
def test_a_wrong_choice_of_culprit_is_named_not_the_right_choice(choice):
    verdict = judge(BY_NAME["answer_culprit"], {"answer_culprit": choice})
    assert verdict.stage == WRONG_CHOICE and verdict.problem.startswith("not the right choice: ")
    assert "inaccurate" not in verdict.problem


def test_culprit_letter_is_read_regardless_of_case_and_spaces():
    assert judge(BY_NAME["answer_culprit"], {"answer_culprit": " b "}).fraction == 1.0


def test_culprit_as_a_number_is_a_wrong_type():
    assert judge(BY_NAME["answer_culprit"], {"answer_culprit": 2}).stage == WRONG_TYPE


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
    runs = [softmax_reference.saturation_experiment(d_k, n_keys, n_trials, scale, np.random.default_rng(seed))
            for seed in range(200)]
    band = saturation_band(d_k, n_keys, n_trials, scale)
    # The band spans STANDARD_ERRORS standard errors of (student mean - reference mean); the
    # student's mean alone has a standard error smaller by sqrt(1 + 1/REFERENCE_TRIAL_FACTOR).
    widths_in_spreads = STANDARD_ERRORS * np.sqrt(1.0 + 1.0 / REFERENCE_TRIAL_FACTOR)
    for key in SATURATION_KEYS:
        centre, half_width = band[key]
        means = np.array([run[key] for run in runs])  # 200 runs pin the spread to about 5 %
        assert 0.85 < half_width / means.std() / widths_in_spreads < 1.15, key
        assert abs(means.mean() - centre) < half_width / STANDARD_ERRORS, key


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
        result = softmax_reference.saturation_experiment(d_k, n_keys, n_trials, scale, rng)
        return {**result, "entropy": result["entropy"] + 0.3}

    verdict = judge(BY_NAME["saturation_experiment"], {"saturation_experiment": biased})
    assert verdict.fraction < 1.0
    assert {case.stage for case in verdict.cases if not case.passed} == {INACCURATE}


def test_saturation_without_the_gap_key_is_a_wrong_type():
    def no_gap(d_k, n_keys, n_trials, scale, rng):
        result = softmax_reference.saturation_experiment(d_k, n_keys, n_trials, scale, rng)
        return {"max_weight": result["max_weight"], "entropy": result["entropy"]}

    assert judge(BY_NAME["saturation_experiment"], {"saturation_experiment": no_gap}).stage == WRONG_TYPE


def test_saturation_with_a_nan_mean_is_not_finite():
    def nan_entropy(d_k, n_keys, n_trials, scale, rng):
        return {**softmax_reference.saturation_experiment(d_k, n_keys, n_trials, scale, rng), "entropy": float("nan")}

    assert judge(BY_NAME["saturation_experiment"], {"saturation_experiment": nan_entropy}).stage == NOT_FINITE


def test_softmax_without_max_subtraction_is_named_even_when_bad_input_is_not_rejected():
    def unvalidated_naive_softmax(x, axis=-1):
        weights = np.exp(np.asarray(x, dtype=np.float64))
        return weights / weights.sum(axis=axis, keepdims=True)

    verdict = judge(BY_NAME["softmax"], {"softmax": unvalidated_naive_softmax})
    assert verdict.misconception is not None and verdict.misconception.name == "no max subtraction"


# ---- 03_readout ----------------------------------------------------------------------------------


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


# ---- 04_attention --------------------------------------------------------------------------------


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

