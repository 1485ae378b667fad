"""Specification of the package surface: the student API's names, signatures, types and randomness."""
import inspect

import numpy as np
import pytest

import solutions
from grader.checks import assignment_checks

EMPTY = inspect.Parameter.empty

# The signatures of the course specification's student API tables.
SPEC_SIGNATURES = {
    "coin_dot_products": [("d", EMPTY)],
    "mean_and_variance": [("values", EMPTY)],
    "expansion_counts": [("d", EMPTY)],
    "dot_variance_theory": [("d_k", EMPTY), ("var_q", 1.0), ("var_k", 1.0)],
    "dot_variance_mc": [("d_k", EMPTY), ("n_samples", EMPTY), ("rng", EMPTY), ("var_q", 1.0), ("var_k", 1.0)],
    "softmax": [("x", EMPTY), ("axis", -1)],
    "entropy": [("p", EMPTY), ("axis", -1)],
    "saturation_experiment": [
        ("d_k", EMPTY), ("n_keys", EMPTY), ("n_trials", EMPTY), ("scale", EMPTY), ("rng", EMPTY)
    ],
    "score_gradient": [("scores", EMPTY), ("target", EMPTY)],
    "unit_variance_scale": [("d_k", EMPTY)],
    "exp_weights": [("scores", EMPTY), ("beta", EMPTY)],
    "relative_weight": [("s_target", EMPTY), ("s_other", EMPTY), ("beta", EMPTY)],
    "normalize_rows": [("X", EMPTY)],
    "softmax_readout": [("K", EMPTY), ("V", EMPTY), ("x", EMPTY), ("beta", EMPTY)],
    "retrieval_accuracy": [
        ("n_pairs", EMPTY), ("d", EMPTY), ("beta", EMPTY), ("n_trials", EMPTY), ("rng", EMPTY), ("readout", "softmax")
    ],
    "retrieval_capacity": [
        ("d", EMPTY), ("beta", EMPTY), ("n_trials", EMPTY), ("rng", EMPTY), ("readout", "softmax"),
        ("threshold", 0.9), ("max_pairs", 4096),
    ],
    "scaled_dot_product_attention": [("Q", EMPTY), ("K", EMPTY), ("V", EMPTY), ("mask", None)],
    "causal_mask": [("n", EMPTY)],
    "multi_head_attention": [
        ("X", EMPTY), ("W_q", EMPTY), ("W_k", EMPTY), ("W_v", EMPTY), ("W_o", EMPTY), ("n_heads", EMPTY), ("mask", None)
    ],
    "projected_score_variance": [
        ("d_model", EMPTY), ("d_k", EMPTY), ("init_std", EMPTY), ("n_samples", EMPTY), ("rng", EMPTY)
    ],
}

ANSWER_TYPES = {
    "answer_std_ratio": float, "answer_var_component4": float, "answer_sigma_divide_dk": float,
    "answer_weights_unscaled": np.ndarray, "answer_weights_scaled": np.ndarray,
    "answer_worked_example": np.ndarray, "answer_culprit": str,
    "answer_ab_exp": np.ndarray, "answer_ab_ratio": float, "answer_ab_weights": np.ndarray,
    "answer_beta_equiv": float, "answer_init_std": float,
}


def test_student_api_lists_every_specified_function_and_answer():
    api = {name for names in assignment_checks().values() for name in names}
    assert api == set(SPEC_SIGNATURES) | set(ANSWER_TYPES)


@pytest.mark.parametrize("name", sorted(SPEC_SIGNATURES))
def test_every_function_has_the_specified_signature(name):
    parameters = inspect.signature(getattr(solutions, name)).parameters.values()
    assert [(p.name, p.default) for p in parameters] == SPEC_SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(set(SPEC_SIGNATURES) | set(ANSWER_TYPES)))
def test_every_api_name_is_exported_from_the_package(name):
    assert name in solutions.__all__
    namespace = {}
    exec(f"from solutions import {name}", namespace)
    assert namespace[name] is getattr(solutions, name)


@pytest.mark.parametrize("name", sorted(ANSWER_TYPES))
def test_every_answer_has_its_type_and_float64_arrays(name):
    value = getattr(solutions, name)
    assert type(value) is ANSWER_TYPES[name]
    if isinstance(value, np.ndarray):
        assert value.dtype == np.float64


RNG_CALLS = {
    "dot_variance_mc": lambda rng: solutions.dot_variance_mc(8, 100, rng),
    "saturation_experiment": lambda rng: solutions.saturation_experiment(8, 4, 10, 1.0, rng),
    "retrieval_accuracy": lambda rng: solutions.retrieval_accuracy(8, 8, 4.0, 10, rng),
    "retrieval_capacity": lambda rng: solutions.retrieval_capacity(8, 4.0, 20, rng, max_pairs=16),
    "projected_score_variance": lambda rng: solutions.projected_score_variance(8, 4, 0.3, 50, rng),
}


@pytest.mark.parametrize("name", sorted(RNG_CALLS))
def test_random_functions_use_only_the_generator_they_are_given(name):
    np.random.seed(7)
    global_state = np.random.get_state()[1].copy()
    first = RNG_CALLS[name](np.random.default_rng(42))
    second = RNG_CALLS[name](np.random.default_rng(42))
    assert first == second
    np.testing.assert_array_equal(np.random.get_state()[1], global_state)


@pytest.mark.parametrize("name", sorted(RNG_CALLS))
def test_random_functions_advance_the_generator_they_are_given(name):
    rng = np.random.default_rng(42)
    before = rng.bit_generator.state["state"]["state"]
    RNG_CALLS[name](rng)
    assert rng.bit_generator.state["state"]["state"] != before


@pytest.mark.parametrize(
    "call",
    [
        lambda: solutions.coin_dot_products(3),
        lambda: solutions.softmax([1, 2]),
        lambda: solutions.score_gradient([1, 2], 0),
        lambda: solutions.exp_weights([1, 2], 1),
        lambda: solutions.normalize_rows([[1, 2]]),
        lambda: solutions.softmax_readout([[1, 0]], [[2, 3]], [1, 0], 1)[0],
        lambda: solutions.scaled_dot_product_attention([[1, 0]], [[1, 0]], [[1, 2]])[0],
        lambda: solutions.multi_head_attention([[1, 0]], *[np.eye(2, dtype=int)] * 4, 1)[0],
    ],
)
def test_array_results_are_float64_even_for_integer_input(call):
    assert call().dtype == np.float64


@pytest.mark.parametrize(
    "call",
    [
        lambda: solutions.dot_variance_theory(4),
        lambda: solutions.dot_variance_mc(4, 10, np.random.default_rng(0)),
        lambda: solutions.unit_variance_scale(4),
        lambda: solutions.relative_weight(1, 0, 2),
        lambda: solutions.retrieval_accuracy(4, 4, 1.0, 5, np.random.default_rng(0)),
        lambda: solutions.projected_score_variance(4, 2, 0.5, 10, np.random.default_rng(0)),
    ],
)
def test_scalar_results_are_python_floats(call):
    assert type(call()) is float
