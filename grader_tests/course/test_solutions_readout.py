"""Specification of the reference for 03_readout: exponentials, normalisation, the read-out, retrieval."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import solutions.readout as readout_module
from solutions import (
    AB_BETA,
    AB_SCORES,
    answer_ab_exp,
    answer_ab_ratio,
    answer_ab_weights,
    answer_beta_equiv,
    capacity_search,
    exp_weights,
    normalize_rows,
    relative_weight,
    retrieval_accuracy,
    retrieval_capacity,
    softmax_readout,
)
from solutions.capacity_at_scale import streamed_softmax_retrieval


def loop_readout(K, V, x, beta):
    """f(x) = sum_i w_i V_i with w = softmax(beta K x), by explicit loops."""
    scores = [beta * sum(K[i][j] * x[j] for j in range(len(x))) for i in range(len(K))]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    weights = [e / sum(exps) for e in exps]
    output = [sum(weights[i] * V[i][c] for i in range(len(V))) for c in range(len(V[0]))]
    return output, weights


def loop_cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_exp_weights_matches_math_exp_elementwise():
    scores = [[-1.0, 0.0], [0.25, 2.0]]
    expected = [[math.exp(3.0 * s) for s in row] for row in scores]
    np.testing.assert_allclose(exp_weights(scores, 3.0), expected, rtol=1e-14)


def test_exp_weights_of_a_scalar_score_is_a_python_float():
    assert type(exp_weights(0.5, 2.0)) is float


def test_exp_weights_refuses_an_exponent_that_overflows_float64():
    with pytest.raises(ValueError, match="^scores and beta"):
        exp_weights([1.0, 800.0], 1.0)


@pytest.mark.parametrize("s_target, s_other, beta", [(1.0, 0.6, 4.0), (0.0, 2.0, 0.5), (-3.0, -3.5, 10.0)])
def test_relative_weight_is_the_ratio_of_the_exponentials(s_target, s_other, beta):
    expected = math.exp(beta * s_other) / math.exp(beta * s_target)
    assert relative_weight(s_target, s_other, beta) == pytest.approx(expected, rel=1e-12)


def test_relative_weight_broadcasts_array_scores():
    others = np.array([0.0, 0.5, 1.0])
    expected = [math.exp(2.0 * (o - 1.0)) for o in others]
    np.testing.assert_allclose(relative_weight(1.0, others, 2.0), expected, rtol=1e-14)


def test_relative_weight_names_scores_that_do_not_broadcast():
    with pytest.raises(ValueError, match="^s_other must broadcast"):
        relative_weight([1.0, 2.0], [1.0, 2.0, 3.0], 1.0)


def test_normalize_rows_gives_unit_rows_pointing_the_same_way():
    X = np.array([[3.0, 4.0], [-1.0, 0.0], [1e-300, 1e-300], [1e300, -1e300]])
    result = normalize_rows(X)
    for row, original in zip(result, X):
        assert math.hypot(*row) == pytest.approx(1.0)
        assert loop_cosine(row, original / abs(original).max()) == pytest.approx(1.0)


def test_normalize_rows_names_the_zero_rows():
    with pytest.raises(ValueError, match=r"^X has all-zero rows \[1\]"):
        normalize_rows([[1.0, 2.0], [0.0, 0.0]])


@pytest.mark.parametrize("X", [[1.0, 2.0], [[1.0, float("nan")]], [[[1.0]]]])
def test_normalize_rows_rejects_input_that_is_not_a_finite_matrix(X):
    with pytest.raises(ValueError, match="^X must"):
        normalize_rows(X)


def test_softmax_readout_matches_a_loop_implementation():
    rng = np.random.default_rng(0)
    K, V, x = rng.normal(size=(5, 3)), rng.normal(size=(5, 2)), rng.normal(size=3)
    output, weights = softmax_readout(K, V, x, 2.5)
    expected_output, expected_weights = loop_readout(K.tolist(), V.tolist(), x.tolist(), 2.5)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    K=hnp.arrays(np.float64, (4, 3), elements=st.floats(-1, 1)),
    x=hnp.arrays(np.float64, (3,), elements=st.floats(-1, 1)),
    beta=st.floats(0, 1e6),
)
def test_softmax_readout_is_finite_and_allocates_one_unit_of_weight_for_any_beta(K, x, beta):
    V = np.arange(8.0).reshape(4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        output, weights = softmax_readout(K, V, x, beta)
    assert np.all(np.isfinite(output))
    assert weights.sum() == pytest.approx(1.0)


def test_softmax_readout_with_huge_beta_returns_the_value_of_the_best_key():
    K = np.eye(3)
    V = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    output, _ = softmax_readout(K, V, [0.1, 0.3, 0.2], 1e5)
    np.testing.assert_allclose(output, V[1])


@pytest.mark.parametrize(
    "K, V, x, argument",
    [
        (np.ones((3, 2)), np.ones((4, 2)), np.ones(2), "V"),
        (np.ones((3, 2)), np.ones((3, 2)), np.ones(3), "x"),
        (np.ones(3), np.ones((3, 2)), np.ones(3), "K"),
        (np.ones((3, 2)), np.ones((3, 2)), [1.0, float("inf")], "x"),
    ],
)
def test_softmax_readout_names_the_malformed_argument(K, V, x, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        softmax_readout(K, V, x, 1.0)


@pytest.mark.parametrize("readout", ["softmax", "linear"])
def test_retrieval_accuracy_matches_a_loop_over_the_same_draws(readout):
    n_pairs, d, beta, n_trials = 6, 3, 2.0, 40
    rng = np.random.default_rng(9)
    keys = rng.standard_normal((n_trials, n_pairs, d))
    values = rng.standard_normal((n_trials, n_pairs, d))
    queried = rng.integers(0, n_pairs, size=n_trials)
    successes = 0
    for t in range(n_trials):
        K = [list(row / np.linalg.norm(row)) for row in keys[t]]
        V = [list(row / np.linalg.norm(row)) for row in values[t]]
        x = K[queried[t]]
        if readout == "softmax":
            output, _ = loop_readout(K, V, x, beta)
        else:
            similarities = [sum(a * b for a, b in zip(k, x)) for k in K]
            output = [sum(s * v[c] for s, v in zip(similarities, V)) for c in range(d)]
        cosines = [loop_cosine(output, v) for v in V]
        successes += cosines.index(max(cosines)) == queried[t]
    accuracy = retrieval_accuracy(n_pairs, d, beta, n_trials, np.random.default_rng(9), readout=readout)
    assert accuracy == successes / n_trials



def loop_successes(keys, values, queried, beta, readout):
    """Successes of the trials (unit keys and values [t, n, d], queried [t]) decided one by one."""
    successes = 0
    for K, V, q in zip(keys, values, queried):
        K, V = [list(row) for row in K], [list(row) for row in V]
        if readout == "softmax":
            output, _ = loop_readout(K, V, K[q], beta)
        else:
            similarities = [sum(a * b for a, b in zip(k, K[q])) for k in K]
            output = [sum(s * v[c] for s, v in zip(similarities, V)) for c in range(len(K[0]))]
        cosines = [loop_cosine(output, v) for v in V]
        successes += cosines.index(max(cosines)) == q
    return successes


@pytest.mark.parametrize("readout", ["softmax", "linear"])
def test_retrieval_accuracies_decide_each_number_of_pairs_on_the_first_pairs_of_common_memories(readout):
    n_pairs_each, d, beta, n_trials = (2, 5, 3), 3, 2.0, 40
    rng = np.random.default_rng(4)
    keys = readout_module._random_unit_rows(rng, (n_trials, 5, d))
    values = readout_module._random_unit_rows(rng, (n_trials, 5, d))
    queried = [rng.integers(0, n, size=n_trials) for n in n_pairs_each]
    expected = [loop_successes(keys[:, :n], values[:, :n], q, beta, readout) / n_trials
                for n, q in zip(n_pairs_each, queried)]
    rates = readout_module.retrieval_accuracies(n_pairs_each, d, beta, n_trials, np.random.default_rng(4),
                                                readout=readout)
    assert rates == expected


def test_retrieval_accuracies_of_one_number_of_pairs_is_retrieval_accuracy_draw_for_draw():
    rates = readout_module.retrieval_accuracies((12,), 8, 3.0, 300, np.random.default_rng(5))
    assert rates == [retrieval_accuracy(12, 8, 3.0, 300, np.random.default_rng(5))]


def test_retrieval_accuracies_fall_as_more_pairs_share_the_memory():
    rates = readout_module.retrieval_accuracies((1, 16, 128), 8, 2.0, 400, np.random.default_rng(6))
    assert rates[0] == 1.0 > rates[1] > rates[2]


@pytest.mark.parametrize("n_pairs_each, argument", [((), "n_pairs_each"), ((3, 0), "n_pairs")])
def test_retrieval_accuracies_name_the_bad_argument(n_pairs_each, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        readout_module.retrieval_accuracies(n_pairs_each, 8, 1.0, 10, np.random.default_rng(0))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(1, 5), st.integers(1, 40), st.integers(1, 17)))
def test_random_unit_rows_are_the_draws_divided_by_their_norms_bit_for_bit(seed, shape):
    """The reference's unit rows are exactly rows / np.linalg.norm(rows): every cached expected
    accuracy and every claim stays the same number."""
    rows = np.random.default_rng(seed).standard_normal(shape)
    expected = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    assert np.array_equal(readout_module._random_unit_rows(np.random.default_rng(seed), shape), expected)


def test_retrieval_from_a_single_pair_always_succeeds():
    assert retrieval_accuracy(1, 8, 1.0, 20, np.random.default_rng(0)) == 1.0


def test_softmax_retrieval_beats_linear_retrieval_when_memory_is_crowded():
    softmax_rate = retrieval_accuracy(256, 64, 8.0, 100, np.random.default_rng(1), readout="softmax")
    linear_rate = retrieval_accuracy(256, 64, 8.0, 100, np.random.default_rng(1), readout="linear")
    assert softmax_rate > linear_rate


@pytest.mark.parametrize(
    "args, kwargs, argument",
    [
        ((0, 8, 1.0, 10), {}, "n_pairs"),
        ((4, 0, 1.0, 10), {}, "d"),
        ((4, 8, float("nan"), 10), {}, "beta"),
        ((4, 8, 1.0, 0), {}, "n_trials"),
        ((4, 8, 1.0, 10), {"readout": "cosine"}, "readout"),
    ],
)
def test_retrieval_accuracy_names_the_bad_argument(args, kwargs, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        retrieval_accuracy(*args, np.random.default_rng(0), **kwargs)


def brute_force_capacity(accuracy_of, threshold, max_pairs):
    """The largest n <= max_pairs whose accuracy reaches threshold, trying every n (for monotone curves)."""
    return max(n for n in range(1, max_pairs + 1) if accuracy_of(n) >= threshold)


@settings(max_examples=200, deadline=None)
@given(
    drops=st.lists(st.floats(0.0, 0.2), min_size=1, max_size=80),
    threshold=st.floats(0.05, 1.0),
    max_pairs=st.integers(1, 100),
)
def test_capacity_search_equals_trying_every_n_on_any_falling_accuracy_curve(drops, threshold, max_pairs):
    # A deterministic accuracy curve that starts at 1 for one pair and never rises, as retrieval does.
    curve = np.clip(1.0 - np.concatenate([[0.0], np.cumsum(drops)]), 0.0, 1.0)

    def accuracy_of(n):
        return float(curve[min(n - 1, curve.size - 1)])

    def fake_accuracy(n_pairs, d, beta, n_trials, rng, readout="softmax"):
        return accuracy_of(n_pairs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(readout_module, "retrieval_accuracy", fake_accuracy)
        capacity, measured = capacity_search(8, 1.0, 10, np.random.default_rng(0), threshold=threshold,
                                             max_pairs=max_pairs)
    assert capacity == brute_force_capacity(accuracy_of, threshold, max_pairs)
    assert len(measured) <= 2 * math.ceil(math.log2(max_pairs)) + 2  # a gallop and a bisection, not a scan


@pytest.mark.parametrize("readout, beta", [("linear", 1.0), ("softmax", 4.0), ("softmax", 2.0)])
def test_capacity_was_measured_at_the_threshold_and_one_more_pair_below_it(readout, beta):
    capacity, measured = capacity_search(8, beta, 300, np.random.default_rng(3), readout=readout, max_pairs=512)
    assert 1 <= capacity < 512
    assert measured[capacity] >= 0.9 > measured[capacity + 1]


def test_capacity_agrees_with_an_independent_loop_estimate_of_the_accuracy_around_it():
    capacity = retrieval_capacity(8, 4.0, 500, np.random.default_rng(4))
    rng = np.random.default_rng(5)

    def loop_accuracy(n_pairs, n_trials=3000):
        successes = 0
        for _ in range(n_trials):
            K = [list(row / np.linalg.norm(row)) for row in rng.standard_normal((n_pairs, 8))]
            V = [list(row / np.linalg.norm(row)) for row in rng.standard_normal((n_pairs, 8))]
            queried = int(rng.integers(n_pairs))
            output, _ = loop_readout(K, V, K[queried], 4.0)
            cosines = [loop_cosine(output, v) for v in V]
            successes += cosines.index(max(cosines)) == queried
        return successes / n_trials

    # 500 trials per measured accuracy: the capacity's accuracy lies within ~6 standard errors of 0.9.
    assert loop_accuracy(capacity) >= 0.9 - 0.08
    assert loop_accuracy(capacity + 1) <= 0.9 + 0.08


def test_capacity_is_max_pairs_when_every_tried_memory_is_retrieved():
    assert retrieval_capacity(16, 8.0, 100, np.random.default_rng(6), max_pairs=48) == 48


def test_softmax_capacity_at_d_64_and_beta_8_exceeds_the_linear_capacity_many_times():
    linear = retrieval_capacity(64, 8.0, 200, np.random.default_rng(7), readout="linear")
    softmax = retrieval_capacity(64, 8.0, 200, np.random.default_rng(7), max_pairs=1024)
    assert 100 < linear < 400
    assert softmax == 1024


def test_capacity_returns_a_python_int():
    assert type(retrieval_capacity(8, 2.0, 50, np.random.default_rng(8))) is int


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"max_pairs": 0}, "max_pairs"),
        ({"readout": "cosine"}, "readout"),
        ({"d": 0}, "d"),
        ({"n_trials": 2.5}, "n_trials"),
    ],
)
def test_capacity_names_the_bad_argument(kwargs, argument):
    arguments = {"d": 8, "beta": 2.0, "n_trials": 10, "rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(ValueError, match=f"^{argument} must"):
        retrieval_capacity(**arguments)


def test_answer_ab_exp_exponentiates_the_ab_scores_with_beta_four():
    np.testing.assert_allclose(answer_ab_exp, [math.exp(4 * 1.0), math.exp(4 * 0.6)], rtol=1e-14)


def test_ab_example_constants_are_target_one_other_point_six_and_beta_four():
    assert (AB_SCORES, AB_BETA) == ((1.0, 0.6), 4.0)


def test_answer_ab_ratio_is_b_over_a_after_exponentiation():
    assert answer_ab_ratio == pytest.approx(math.exp(4 * 0.6) / math.exp(4 * 1.0), rel=1e-14)


def test_answer_ab_weights_normalise_the_exponentials():
    exps = [math.exp(4 * 1.0), math.exp(4 * 0.6)]
    np.testing.assert_allclose(answer_ab_weights, [e / sum(exps) for e in exps], rtol=1e-14)


def test_answer_beta_equiv_turns_cosines_into_sqrt_dk_scaled_scores():
    rng = np.random.default_rng(3)
    q, k = (8.0 * v / np.linalg.norm(v) for v in rng.normal(size=(2, 64)))  # length sqrt(64)
    scaled_score = sum(a * b for a, b in zip(q, k)) / math.sqrt(64)
    assert answer_beta_equiv * loop_cosine(q, k) == pytest.approx(scaled_score)


# ---- the streamed experiment behind "the softmax capacity at d = 64, β = 8 lies in the millions" ----


def _direct_retrieval_on_the_same_draws(n_pairs, d, beta, seed, chunk):
    """The same trial as streamed_softmax_retrieval, with every key and value held at once."""
    sizes = [min(chunk, n_pairs - start) for start in range(0, n_pairs, chunk)]
    seeds = np.random.SeedSequence(seed).spawn(2 * len(sizes))

    def rows(child, size):
        vectors = np.random.default_rng(child).standard_normal((size, d))
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    K = np.concatenate([rows(s, size) for s, size in zip(seeds[:len(sizes)], sizes)])
    V = np.concatenate([rows(s, size) for s, size in zip(seeds[len(sizes):], sizes)])
    output, _ = softmax_readout(K, V, K[0], beta)
    return int(np.argmax(V @ output)) == 0


@pytest.mark.parametrize("seed", range(40))
def test_streamed_retrieval_decides_each_trial_as_the_whole_memory_at_once_does(seed):
    assert streamed_softmax_retrieval(50, 6, 3.0, seed, chunk=7) == _direct_retrieval_on_the_same_draws(50, 6, 3.0, seed, 7)


def test_streamed_retrieval_succeeds_as_often_as_retrieval_accuracy_predicts():
    trials = 600
    rate = sum(streamed_softmax_retrieval(64, 8, 4.0, [5, t], chunk=20) for t in range(trials)) / trials
    expected = retrieval_accuracy(64, 8, 4.0, 8000, np.random.default_rng(11))
    assert abs(rate - expected) < 5 * math.sqrt(expected * (1 - expected) / trials) + 0.01
