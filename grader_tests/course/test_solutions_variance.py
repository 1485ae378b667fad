"""Specification of the reference for 01_variance: coin model, variance additivity, Monte Carlo."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solutions import (
    answer_sigma_divide_dk,
    answer_std_ratio,
    answer_var_component4,
    coin_dot_products,
    dot_product_samples,
    dot_variance_mc,
    dot_variance_theory,
    expansion_counts,
    mean_and_variance,
)


def enumerate_coin_dot_products(d, q_size=1.0, k_size=1.0):
    """Every outcome of q·k when q_i = ±q_size and k_i = ±k_size with independent fair signs."""
    values = []
    for q_signs in itertools.product((1, -1), repeat=d):
        for k_signs in itertools.product((1, -1), repeat=d):
            values.append(sum(q * q_size * k * k_size for q, k in zip(q_signs, k_signs)))
    return values


def population_moments(values):
    """Mean and population variance by explicit summation."""
    values = list(values)
    mean = sum(values) / len(values)
    return mean, sum((v - mean) ** 2 for v in values) / len(values)


@pytest.mark.parametrize("d", [1, 2, 3, 6])
def test_coin_dot_products_are_every_sign_pattern_of_the_products(d):
    expected = sorted(sum(signs) for signs in itertools.product((1, -1), repeat=d))
    assert sorted(coin_dot_products(d).tolist()) == expected


def test_coin_dot_products_has_two_to_the_d_float64_values():
    values = coin_dot_products(5)
    assert values.shape == (32,)
    assert values.dtype == np.float64


@pytest.mark.parametrize("d", [1, 2, 4, 8])
def test_coin_model_variance_equals_d_because_variances_add(d):
    # Each product is ±1 (variance 1); d independent products add to variance d.
    mean, variance = mean_and_variance(coin_dot_products(d))
    assert mean == pytest.approx(0.0, abs=1e-12)
    assert variance == pytest.approx(d)


def test_mean_and_variance_matches_explicit_sums_and_uses_ddof_0():
    values = [3.0, -1.5, 2.25, 7.0, 0.0]
    expected_mean, expected_variance = population_moments(values)
    mean, variance = mean_and_variance(values)
    assert mean == pytest.approx(expected_mean)
    assert variance == pytest.approx(expected_variance)


def test_mean_and_variance_returns_python_floats():
    mean, variance = mean_and_variance(np.arange(4))
    assert type(mean) is float and type(variance) is float


def test_mean_and_variance_counts_every_entry_of_a_2d_input():
    table = [[1.0, 2.0], [3.0, 10.0]]
    assert mean_and_variance(table) == pytest.approx(population_moments([1.0, 2.0, 3.0, 10.0]))


@pytest.mark.parametrize("d", [1, 2, 3, 7])
def test_expansion_counts_match_the_enumerated_index_pairs(d):
    pairs = list(itertools.product(range(d), repeat=2))
    diagonal = sum(1 for i, j in pairs if i == j)
    cross = sum(1 for i, j in pairs if i != j)
    assert expansion_counts(d) == (diagonal, cross)


@pytest.mark.parametrize("d, q_size, k_size", [(1, 1.0, 1.0), (2, 2.0, 0.5), (3, 2.0, 2.0), (4, 1.5, 3.0)])
def test_dot_variance_theory_equals_the_exact_variance_of_scaled_coins(d, q_size, k_size):
    _, exact_variance = population_moments(enumerate_coin_dot_products(d, q_size, k_size))
    assert dot_variance_theory(d, var_q=q_size**2, var_k=k_size**2) == pytest.approx(exact_variance)


def test_dot_product_samples_draws_q_then_k_from_the_generator():
    d_k, n_samples, var_q, var_k = 3, 4, 2.0, 0.5
    rng = np.random.default_rng(11)
    q = rng.normal(0.0, math.sqrt(var_q), size=(n_samples, d_k))
    k = rng.normal(0.0, math.sqrt(var_k), size=(n_samples, d_k))
    expected = [sum(q[s, i] * k[s, i] for i in range(d_k)) for s in range(n_samples)]
    samples = dot_product_samples(d_k, n_samples, np.random.default_rng(11), var_q=var_q, var_k=var_k)
    np.testing.assert_allclose(samples, expected, rtol=1e-12)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    d_k=st.integers(1, 32),
    n_samples=st.integers(2000, 6000),
    var_q=st.floats(0.25, 4.0),
    var_k=st.floats(0.25, 4.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_dot_variance_mc_lies_within_six_standard_errors_of_the_theory(d_k, n_samples, var_q, var_k, seed):
    theory = dot_variance_theory(d_k, var_q, var_k)
    # Var(q·k) has fourth moment (3 d² + 6 d)(var_q var_k)², so the estimate's standard error is:
    standard_error = var_q * var_k * math.sqrt((2 * d_k**2 + 6 * d_k) / n_samples)
    estimate = dot_variance_mc(d_k, n_samples, np.random.default_rng(seed), var_q=var_q, var_k=var_k)
    assert abs(estimate - theory) <= 6 * standard_error


def test_dot_variance_mc_is_reproducible_from_the_generator_seed():
    first = dot_variance_mc(16, 500, np.random.default_rng(3))
    second = dot_variance_mc(16, 500, np.random.default_rng(3))
    assert first == second


def test_dot_variance_mc_leaves_the_global_random_state_alone():
    np.random.seed(1234)
    before = np.random.get_state()[1].copy()
    dot_variance_mc(8, 100, np.random.default_rng(0))
    np.testing.assert_array_equal(np.random.get_state()[1], before)


def test_answer_std_ratio_is_the_ratio_of_square_roots_of_the_dimensions():
    assert answer_std_ratio == pytest.approx(math.sqrt(64) / math.sqrt(4))


def test_answer_var_component4_adds_64_products_of_variance_4_times_4():
    assert answer_var_component4 == pytest.approx(sum(4.0 * 4.0 for _ in range(64)))


def test_answer_sigma_divide_dk_divides_sigma_8_by_64():
    assert answer_sigma_divide_dk == pytest.approx(math.sqrt(sum(1.0 for _ in range(64))) / 64)


@pytest.mark.parametrize("bad_d", [0, -3, 2.0, True, "4", 21])
def test_coin_dot_products_rejects_a_d_that_is_not_a_small_positive_integer(bad_d):
    with pytest.raises(ValueError, match="^d must"):
        coin_dot_products(bad_d)


@pytest.mark.parametrize("bad_d", [0, -1, 1.5])
def test_expansion_counts_rejects_non_positive_d(bad_d):
    with pytest.raises(ValueError, match="^d must"):
        expansion_counts(bad_d)


@pytest.mark.parametrize("values", [[], [1.0, float("nan")], [1.0, float("inf")], ["a", "b"], [[1.0], [2.0, 3.0]]])
def test_mean_and_variance_rejects_empty_non_finite_or_non_numeric_values(values):
    with pytest.raises(ValueError, match="^values"):
        mean_and_variance(values)


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"d_k": 0}, "d_k"),
        ({"d_k": 4, "var_q": -1.0}, "var_q"),
        ({"d_k": 4, "var_k": float("nan")}, "var_k"),
    ],
)
def test_dot_variance_theory_names_the_bad_argument(kwargs, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        dot_variance_theory(**kwargs)


@pytest.mark.parametrize(
    "args, argument",
    [
        ((0, 10, np.random.default_rng(0)), "d_k"),
        ((4, 0, np.random.default_rng(0)), "n_samples"),
        ((4, 10, 0), "rng"),
        ((4, 10, np.random.RandomState(0)), "rng"),
    ],
)
def test_dot_variance_mc_names_the_bad_argument(args, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        dot_variance_mc(*args)
