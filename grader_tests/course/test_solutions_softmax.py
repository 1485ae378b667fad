"""Specification of the reference for 02_softmax: stable softmax, entropy, saturation, the gradient."""
import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from solutions import (
    CULPRIT_CHOICES,
    answer_culprit,
    answer_weights_scaled,
    answer_weights_unscaled,
    answer_worked_example,
    coin_dot_products,
    entropy,
    gradient_residual_trials,
    mean_and_variance,
    saturation_experiment,
    saturation_trials,
    score_gradient,
    softmax,
    unit_variance_scale,
)

FAST = settings(max_examples=60, deadline=None)


def loop_softmax(row):
    """Softmax of one list of numbers with Python floats, shifted by its maximum."""
    top = max(row)
    exps = [math.exp(value - top) for value in row]
    return [e / sum(exps) for e in exps]


def loop_entropy(row):
    return -sum(p * math.log(p) for p in row if p > 0)


def apply_along(function, array, axis):
    """{index of the other axes: function(list of the 1-D slice along axis)}, by explicit loops."""
    moved = np.moveaxis(np.asarray(array, dtype=float), axis, -1)
    return {
        index: function(list(moved[index]))
        for index in itertools.product(*(range(n) for n in moved.shape[:-1]))
    }


def finite_arrays(min_side=1, max_side=5, max_dims=3, elements=None):
    if elements is None:
        elements = st.floats(allow_nan=False, allow_infinity=False, width=64)
    shapes = hnp.array_shapes(min_dims=1, max_dims=max_dims, min_side=min_side, max_side=max_side)
    return hnp.arrays(np.float64, shapes, elements=elements)


@pytest.mark.parametrize(
    "shape, axis", [((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), -1)]
)
def test_softmax_matches_a_loop_over_every_slice_along_axis(shape, axis):
    x = np.random.default_rng(0).normal(0.0, 3.0, size=shape)
    result = np.moveaxis(softmax(x, axis=axis), axis, -1)
    for index, expected in apply_along(loop_softmax, x, axis).items():
        np.testing.assert_allclose(result[index], expected, rtol=1e-12)


@pytest.mark.parametrize("x", [[1e4, 0.0, -1e4], [-1e308, 0.0], [1e308, -1e308, 0.0], [-1e308, -1e308]])
def test_softmax_stays_finite_without_warnings_for_extreme_inputs(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = softmax(x)
    assert np.all(np.isfinite(weights))
    assert weights.sum() == pytest.approx(1.0)


@FAST
@given(x=finite_arrays(max_dims=2, elements=st.floats(-1e6, 1e6)), data=st.data())
def test_softmax_is_unchanged_by_adding_a_constant_to_each_row(x, data):
    shifts = data.draw(hnp.arrays(np.float64, x.shape[:-1] + (1,), elements=st.floats(-1e6, 1e6)))
    np.testing.assert_allclose(softmax(x + shifts), softmax(x), rtol=1e-6, atol=1e-9)


@FAST
@given(x=finite_arrays())
def test_softmax_of_any_finite_input_is_finite_and_rows_sum_to_one(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = softmax(x)
    assert np.all(np.isfinite(weights)) and np.all(weights >= 0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_softmax_returns_float64_for_integer_input():
    assert softmax([1, 2, 3]).dtype == np.float64


@pytest.mark.parametrize(
    "x, axis, message",
    [([1.0, float("nan")], -1, "^x must"), ([1.0, float("inf")], -1, "^x must"), (3.0, -1, "^x must"),
     ([[1.0, 2.0]], 2, "^axis must"), ([1.0, 2.0], 0.5, "^axis must"), ([True, False], -1, "^x must")],
)
def test_softmax_rejects_bad_input_naming_the_argument(x, axis, message):
    with pytest.raises(ValueError, match=message):
        softmax(x, axis=axis)


@pytest.mark.parametrize("shape, axis", [((4,), -1), ((3, 5), -1), ((3, 5), 0), ((2, 3, 4), 1)])
def test_entropy_matches_a_loop_with_zero_log_zero_equal_to_zero(shape, axis):
    weights = np.random.default_rng(1).random(shape)
    weights[(0,) * len(shape)] = 0.0  # an exact zero must contribute nothing
    p = weights / weights.sum(axis=axis, keepdims=True)
    result = np.asarray(entropy(p, axis=axis))
    for index, expected in apply_along(loop_entropy, p, axis).items():
        assert result[index] == pytest.approx(expected, rel=1e-12)


@FAST
@given(x=finite_arrays(max_dims=2, elements=st.floats(-50, 50)))
def test_entropy_of_softmax_weights_lies_between_zero_and_log_n(x):
    values = np.asarray(entropy(softmax(x)))
    assert np.all(values >= 0)
    assert np.all(values <= math.log(x.shape[-1]) + 1e-12)


def test_entropy_of_a_one_hot_row_is_zero_and_of_a_uniform_row_is_log_n():
    assert entropy([0.0, 1.0, 0.0]) == 0.0
    assert entropy(np.full(64, 1 / 64)) == pytest.approx(math.log(64))


def test_entropy_of_a_1d_input_is_a_python_float():
    assert type(entropy([0.5, 0.5])) is float


@pytest.mark.parametrize("p", [[0.5, 0.6], [1.2, -0.2], [0.5, float("nan")]])
def test_entropy_rejects_input_that_is_not_a_probability_vector(p):
    with pytest.raises(ValueError, match="^p must"):
        entropy(p)


def test_saturation_experiment_matches_a_loop_over_the_same_draws():
    d_k, n_keys, n_trials, scale = 3, 4, 5, 1.7
    rng = np.random.default_rng(5)
    q = rng.standard_normal((n_trials, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    max_weights, entropies, gaps = [], [], []
    for t in range(n_trials):
        scores = [sum(q[t, i] * keys[t, j, i] for i in range(d_k)) / scale for j in range(n_keys)]
        weights = loop_softmax(scores)
        max_weights.append(max(weights))
        entropies.append(loop_entropy(weights))
        ordered = sorted(scores)
        gaps.append(ordered[-1] - ordered[-2])
    result = saturation_experiment(d_k, n_keys, n_trials, scale, np.random.default_rng(5))
    expected = {"max_weight": max_weights, "entropy": entropies, "gap": gaps}
    assert result == pytest.approx({name: sum(values) / n_trials for name, values in expected.items()})


def test_saturation_gap_shrinks_exactly_with_the_scale_on_the_same_draws():
    unscaled = saturation_experiment(16, 8, 50, 1.0, np.random.default_rng(2))
    scaled = saturation_experiment(16, 8, 50, 4.0, np.random.default_rng(2))
    assert unscaled["gap"] == pytest.approx(4.0 * scaled["gap"])


def test_saturation_with_sqrt_dk_scale_spreads_the_weights_more_than_unscaled():
    unscaled = saturation_experiment(64, 64, 200, 1.0, np.random.default_rng(3))
    scaled = saturation_experiment(64, 64, 200, unit_variance_scale(64), np.random.default_rng(3))
    assert scaled["entropy"] > unscaled["entropy"]
    assert scaled["max_weight"] < unscaled["max_weight"]


def test_saturation_trials_returns_one_value_per_trial_for_each_quantity():
    trials = saturation_trials(8, 5, 7, 1.0, np.random.default_rng(0))
    assert {name: values.shape for name, values in trials.items()} == {
        "max_weight": (7,), "entropy": (7,), "gap": (7,)
    }


@pytest.mark.parametrize(
    "args, argument",
    [((0, 4, 10, 1.0), "d_k"), ((4, 1, 10, 1.0), "n_keys"), ((4, 4, 0, 1.0), "n_trials"),
     ((4, 4, 10, 0.0), "scale"), ((4, 4, 10, -2.0), "scale")],
)
def test_saturation_experiment_names_the_bad_argument(args, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        saturation_experiment(*args, np.random.default_rng(0))


def test_saturation_experiment_rejects_a_seed_in_place_of_a_generator():
    with pytest.raises(ValueError, match="^rng must"):
        saturation_experiment(4, 4, 10, 1.0, 42)


def cross_entropy(scores, target):
    top = max(scores)
    return -(scores[target] - top - math.log(sum(math.exp(s - top) for s in scores)))


@FAST
@given(
    scores=hnp.arrays(np.float64, st.integers(2, 6), elements=st.floats(-20, 20)),
    data=st.data(),
)
def test_score_gradient_matches_a_central_finite_difference(scores, data):
    target = data.draw(st.integers(0, scores.size - 1))
    step = 1e-5
    numeric = []
    for i in range(scores.size):
        up, down = scores.copy(), scores.copy()
        up[i] += step
        down[i] -= step
        numeric.append((cross_entropy(list(up), target) - cross_entropy(list(down), target)) / (2 * step))
    np.testing.assert_allclose(score_gradient(scores, target), numeric, atol=1e-6)


def test_score_gradient_is_batched_over_leading_axes():
    rng = np.random.default_rng(4)
    scores = rng.normal(size=(2, 3, 5))
    target = rng.integers(0, 5, size=(2, 3))
    result = score_gradient(scores, target)
    for i, j in itertools.product(range(2), range(3)):
        expected = loop_softmax(list(scores[i, j]))
        expected[target[i, j]] -= 1.0
        np.testing.assert_allclose(result[i, j], expected, rtol=1e-12, atol=1e-15)


def test_score_gradient_rows_sum_to_zero():
    scores = np.random.default_rng(6).normal(0, 8, size=(10, 64))
    target = np.arange(10)
    np.testing.assert_allclose(score_gradient(scores, target).sum(axis=-1), 0.0, atol=1e-12)


@pytest.mark.parametrize(
    "scores, target",
    [([1.0, 2.0], 1.0), ([1.0, 2.0], 2), ([1.0, 2.0], -1), ([[1.0, 2.0]], [0, 1]), ([[1.0, 2.0]], 0)],
)
def test_score_gradient_rejects_a_target_that_is_not_one_index_per_row(scores, target):
    with pytest.raises(ValueError, match="^target must"):
        score_gradient(scores, target)


def test_gradient_residual_does_not_vanish_and_stays_below_sqrt_two():
    norms, missed = gradient_residual_trials(64, 64, 200, 1.0, np.random.default_rng(7))
    assert np.all(norms <= math.sqrt(2) + 1e-12)
    assert norms[missed].mean() > 1.0


@pytest.mark.parametrize("d", [1, 3, 9])
def test_unit_variance_scale_makes_the_coin_model_variance_one(d):
    _, variance = mean_and_variance(coin_dot_products(d) / unit_variance_scale(d))
    assert variance == pytest.approx(1.0)


def test_unit_variance_scale_rejects_d_k_zero():
    with pytest.raises(ValueError, match="^d_k must"):
        unit_variance_scale(0)


def test_answer_weights_unscaled_is_the_softmax_of_the_blog_scores():
    np.testing.assert_allclose(answer_weights_unscaled, loop_softmax([14.0, 10.0, 12.0]), rtol=1e-12)


def test_answer_weights_scaled_divides_the_blog_scores_by_eight_first():
    np.testing.assert_allclose(answer_weights_scaled, loop_softmax([14 / 8, 10 / 8, 12 / 8]), rtol=1e-12)


def test_answer_worked_example_is_the_softmax_of_the_l3_scores():
    np.testing.assert_allclose(answer_worked_example, loop_softmax([3.2, 0.1, -2.5, 0.4]), rtol=1e-12)


def test_answer_culprit_is_one_of_four_letters_naming_the_growing_gap():
    assert sorted(CULPRIT_CHOICES) == ["A", "B", "C", "D"]
    assert answer_culprit in CULPRIT_CHOICES
    assert "gap" in CULPRIT_CHOICES[answer_culprit]
