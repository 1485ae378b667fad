"""Specification of the known wrong implementations used to name a student's misconception."""
import inspect
import math
import warnings

import numpy as np
import pytest

import solutions
from grader.checks import assignment_checks
from solutions import misconceptions as wrong


def typical_inputs():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(4, 16)), rng.normal(size=(6, 16)), rng.normal(size=(6, 3))
    X = rng.normal(size=(5, 8))
    W = tuple(rng.normal(size=(8, 8)) for _ in range(4))
    return {
        "softmax_without_max_subtraction": ((np.array([[800.0, 790.0, 780.0]]),), solutions.softmax),
        "softmax_over_first_axis": ((rng.normal(size=(3, 4)),), solutions.softmax),
        "entropy_in_bits": (([0.2, 0.3, 0.5],), solutions.entropy),
        "attention_divided_by_d_k": ((Q, K, V), solutions.scaled_dot_product_attention),
        "attention_unscaled": ((Q, K, V), solutions.scaled_dot_product_attention),
        "causal_mask_strictly_lower": ((4,), solutions.causal_mask),
        "multi_head_attention_scaled_by_d_model": ((X, *W, 2), solutions.multi_head_attention),
        "mean_and_variance_sample": (([1.0, 2.0, 3.0, 4.0],), solutions.mean_and_variance),
        "relative_weight_without_exponent": ((1.0, 0.6, 4.0), solutions.relative_weight),
        "dot_variance_theory_component_variance_once": ((64, 4.0, 4.0), solutions.dot_variance_theory),
    }


# The wrong implementations of ``solutions.misconceptions`` that this file specifies (the registry that names them
# in feedback, ``grader.checks.misconceptions``, is tested with the checks).
WRONG_IMPLEMENTATIONS = {
    "softmax": (wrong.softmax_without_max_subtraction, wrong.softmax_over_first_axis),
    "entropy": (wrong.entropy_in_bits,),
    "scaled_dot_product_attention": (wrong.attention_divided_by_d_k, wrong.attention_unscaled),
    "causal_mask": (wrong.causal_mask_strictly_lower,),
    "multi_head_attention": (wrong.multi_head_attention_scaled_by_d_model,),
    "mean_and_variance": (wrong.mean_and_variance_sample,),
    "relative_weight": (wrong.relative_weight_without_exponent,),
    "dot_variance_theory": (wrong.dot_variance_theory_component_variance_once,),
}
ALL_WRONG_IMPLEMENTATIONS = [mistake for listed in WRONG_IMPLEMENTATIONS.values() for mistake in listed]


def same_result(a, b):
    """Equal up to rounding, part by part for tuples; nan never equals anything."""
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_result(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))


@pytest.mark.parametrize("mistake", ALL_WRONG_IMPLEMENTATIONS, ids=lambda v: v.__name__)
def test_every_wrong_implementation_differs_from_the_correct_function_on_a_typical_input(mistake):
    args, correct = typical_inputs()[mistake.__name__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not same_result(mistake(*args), correct(*args))


@pytest.mark.parametrize("name", sorted(WRONG_IMPLEMENTATIONS))
def test_wrong_implementations_take_the_same_parameters_as_the_function_they_imitate(name):
    expected = list(inspect.signature(getattr(solutions, name)).parameters)
    for mistake in WRONG_IMPLEMENTATIONS[name]:
        assert list(inspect.signature(mistake).parameters) == expected


@pytest.mark.parametrize("mistake", ALL_WRONG_IMPLEMENTATIONS, ids=lambda v: v.__name__)
def test_every_wrong_implementation_states_its_mistake_in_a_one_line_docstring(mistake):
    assert mistake.__doc__ and "\n" not in mistake.__doc__.strip()
    assert wrong.describe(mistake) == mistake.__doc__.strip()


def test_wrong_implementations_are_listed_under_names_of_the_student_api():
    api = {name for names in assignment_checks().values() for name in names}
    assert set(WRONG_IMPLEMENTATIONS) <= api


def test_raw_ratio_wrong_implementation_gives_point_six_for_the_ab_example():
    assert wrong.relative_weight_without_exponent(1.0, 0.6, 4.0) == pytest.approx(0.6 / 1.0)


def test_softmax_over_first_axis_normalises_each_column():
    x = np.random.default_rng(1).normal(size=(3, 4))
    np.testing.assert_allclose(wrong.softmax_over_first_axis(x).sum(axis=0), 1.0)


def test_entropy_in_bits_of_a_fair_coin_is_one():
    assert wrong.entropy_in_bits([0.5, 0.5]) == pytest.approx(1.0)


def loop_weights(Q, K, divisor):
    """Row-wise softmax of Q Kᵀ / divisor by explicit loops."""
    rows = []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k)) / divisor for k in K]
        exps = [math.exp(s - max(scores)) for s in scores]
        rows.append([e / sum(exps) for e in exps])
    return rows


@pytest.mark.parametrize(
    "mistake, divisor_of_d_k",
    [(wrong.attention_divided_by_d_k, lambda d_k: d_k), (wrong.attention_unscaled, lambda d_k: 1.0)],
)
def test_attention_wrong_implementations_divide_the_scores_by_their_stated_divisor(mistake, divisor_of_d_k):
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(3, 9)), rng.normal(size=(4, 9)), rng.normal(size=(4, 2))
    _, weights = mistake(Q, K, V)
    np.testing.assert_allclose(weights, loop_weights(Q.tolist(), K.tolist(), divisor_of_d_k(9)), rtol=1e-10)


def test_multi_head_wrong_implementation_divides_each_head_by_sqrt_d_model():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 8))
    W_q, W_k, W_v, W_o = (rng.normal(size=(8, 8)) for _ in range(4))
    _, weights = wrong.multi_head_attention_scaled_by_d_model(X, W_q, W_k, W_v, W_o, 2)
    for h, columns in enumerate((slice(0, 4), slice(4, 8))):
        expected = loop_weights((X @ W_q[:, columns]).tolist(), (X @ W_k[:, columns]).tolist(), math.sqrt(8))
        np.testing.assert_allclose(weights[h], expected, rtol=1e-10)


def test_strict_causal_mask_hides_the_diagonal_too():
    assert wrong.causal_mask_strictly_lower(3).tolist() == [[j < i for j in range(3)] for i in range(3)]


def test_sample_variance_wrong_implementation_divides_by_n_minus_one():
    values = [1.0, 2.0, 3.0, 4.0]
    mean = sum(values) / 4
    assert wrong.mean_and_variance_sample(values) == pytest.approx((mean, sum((v - mean) ** 2 for v in values) / 3))
