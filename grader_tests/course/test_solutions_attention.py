"""Specification of the reference for 04_attention: masked scaled dot-product and multi-head attention."""
import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from solutions import (
    answer_init_std,
    causal_mask,
    multi_head_attention,
    projected_score_variance,
    projected_score_variance_theory,
    scaled_dot_product_attention,
)

FAST = settings(max_examples=40, deadline=None)


def loop_attention(Q, K, V, mask=None):
    """Attention of 2-D lists by explicit loops; a row with no allowed key gets zeros."""
    d_k, n_k, d_v = len(Q[0]), len(K), len(V[0])
    outputs, weights = [], []
    for i, query in enumerate(Q):
        allowed = [j for j in range(n_k) if mask is None or mask[i][j]]
        row = [0.0] * n_k
        if allowed:
            scores = {j: sum(query[c] * K[j][c] for c in range(d_k)) / math.sqrt(d_k) for j in allowed}
            top = max(scores.values())
            total = sum(math.exp(s - top) for s in scores.values())
            for j in allowed:
                row[j] = math.exp(scores[j] - top) / total
        weights.append(row)
        outputs.append([sum(row[j] * V[j][c] for j in range(n_k)) for c in range(d_v)])
    return outputs, weights


def loop_batched_attention(Q, K, V, mask=None):
    """loop_attention for every index of the broadcast leading axes."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Qb = np.broadcast_to(Q, batch + Q.shape[-2:])
    Kb = np.broadcast_to(K, batch + K.shape[-2:])
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    Mb = None if mask is None else np.broadcast_to(mask, batch + (Q.shape[-2], K.shape[-2]))
    outputs = np.empty(batch + (Q.shape[-2], V.shape[-1]))
    weights = np.empty(batch + (Q.shape[-2], K.shape[-2]))
    for index in itertools.product(*(range(n) for n in batch)):
        m = None if Mb is None else Mb[index].tolist()
        outputs[index], weights[index] = loop_attention(
            Qb[index].tolist(), Kb[index].tolist(), Vb[index].tolist(), m
        )
    return outputs, weights


def random_mask(rng, shape):
    mask = rng.random(shape) < 0.6
    mask[..., 0, :] = False  # one fully masked query row
    return mask


@pytest.mark.parametrize(
    "q_shape, k_shape, v_shape, mask_shape",
    [
        ((3, 4), (5, 4), (5, 2), None),
        ((2, 3, 4), (2, 5, 4), (2, 5, 2), (3, 5)),
        ((2, 1, 3, 4), (1, 2, 5, 4), (2, 2, 5, 6), (2, 1, 3, 5)),
    ],
)
def test_attention_matches_a_loop_implementation_with_broadcasting_and_masks(
    q_shape, k_shape, v_shape, mask_shape
):
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=q_shape), rng.normal(size=k_shape), rng.normal(size=v_shape)
    mask = None if mask_shape is None else random_mask(rng, mask_shape)
    output, weights = scaled_dot_product_attention(Q, K, V, mask)
    expected_output, expected_weights = loop_batched_attention(Q, K, V, mask)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12, atol=1e-14)


qkv_side = st.integers(1, 5)


@FAST
@given(n=qkv_side, d=qkv_side, data=st.data())
def test_causal_attention_puts_zero_weight_on_future_positions(n, d, data):
    Q, K, V = (data.draw(hnp.arrays(np.float64, (n, d), elements=st.floats(-10, 10))) for _ in range(3))
    _, weights = scaled_dot_product_attention(Q, K, V, causal_mask(n))
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    assert np.all(weights[future] == 0.0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)


@FAST
@given(n_q=qkv_side, n_k=qkv_side, d=qkv_side, data=st.data())
def test_masked_attention_never_produces_nan_and_fully_masked_rows_are_zero(n_q, n_k, d, data):
    Q = data.draw(hnp.arrays(np.float64, (n_q, d), elements=st.floats(-1e3, 1e3)))
    K = data.draw(hnp.arrays(np.float64, (n_k, d), elements=st.floats(-1e3, 1e3)))
    V = data.draw(hnp.arrays(np.float64, (n_k, 2), elements=st.floats(-1e3, 1e3)))
    mask = data.draw(hnp.arrays(np.bool_, (n_q, n_k)))
    with warnings.catch_warnings(), np.errstate(divide="raise", over="raise", invalid="raise"):
        warnings.simplefilter("error")
        output, weights = scaled_dot_product_attention(Q, K, V, mask)
    assert np.all(np.isfinite(output)) and np.all(np.isfinite(weights))
    assert np.all(weights[~mask] == 0.0)
    blocked = ~mask.any(axis=-1)
    assert np.all(output[blocked] == 0.0)
    np.testing.assert_allclose(weights.sum(axis=-1), np.where(blocked, 0.0, 1.0))


def test_a_fully_masked_row_gets_zero_weights_and_zero_output_without_warnings():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 5))
    mask = np.array([[False] * 4, [True, False, True, False]])
    with warnings.catch_warnings(), np.errstate(divide="raise", over="raise", invalid="raise"):
        warnings.simplefilter("error")
        output, weights = scaled_dot_product_attention(Q, K, V, mask)
    assert np.all(weights[0] == 0.0) and np.all(output[0] == 0.0)


def test_attention_weights_have_the_broadcast_batch_shape():
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(2, 5, 6))
    output, weights = scaled_dot_product_attention(Q, K, V)
    assert (output.shape, weights.shape) == ((2, 3, 6), (2, 3, 5))


@pytest.mark.parametrize(
    "Q, K, V, argument",
    [
        (np.ones(4), np.ones((5, 4)), np.ones((5, 2)), "Q"),
        (np.ones((3, 4)), np.ones((5, 3)), np.ones((5, 2)), "K"),
        (np.ones((3, 4)), np.ones((5, 4)), np.ones((4, 2)), "V"),
        (np.ones((3, 0)), np.ones((5, 0)), np.ones((5, 2)), "Q"),
        (np.full((3, 4), np.nan), np.ones((5, 4)), np.ones((5, 2)), "Q"),
        (np.ones((2, 3, 4)), np.ones((3, 5, 4)), np.ones((5, 2)), "Q, K and V"),
    ],
)
def test_attention_names_the_malformed_argument(Q, K, V, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        scaled_dot_product_attention(Q, K, V)


@pytest.mark.parametrize(
    "mask", [np.ones((3, 5), dtype=int), np.ones((3, 4), dtype=bool), np.ones((2, 3, 5), dtype=bool)]
)
def test_attention_rejects_a_mask_that_is_not_boolean_or_does_not_broadcast_to_the_scores(mask):
    with pytest.raises(ValueError, match="^mask must"):
        scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), mask)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask_allows_exactly_the_positions_on_and_before_the_query(n):
    expected = [[j <= i for j in range(n)] for i in range(n)]
    mask = causal_mask(n)
    assert mask.dtype == np.bool_
    assert mask.tolist() == expected


@pytest.mark.parametrize("n", [0, -2, 3.0])
def test_causal_mask_rejects_a_length_that_is_not_a_positive_integer(n):
    with pytest.raises(ValueError, match="^n must"):
        causal_mask(n)


def loop_multi_head(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """Per batch row and head: slice the weight columns of the head, attend by loops, concatenate."""
    d_head = X.shape[-1] // n_heads
    outputs, weights = [], []
    for x in X:
        head_outputs, head_weights = [], []
        for h in range(n_heads):
            columns = slice(h * d_head, (h + 1) * d_head)
            q, k, v = ((x @ W[:, columns]).tolist() for W in (W_q, W_k, W_v))
            out, w = loop_attention(q, k, v, mask)
            head_outputs.append(np.array(out))
            head_weights.append(w)
        outputs.append(np.concatenate(head_outputs, axis=-1) @ W_o)
        weights.append(head_weights)
    return np.array(outputs), np.array(weights)


@pytest.mark.parametrize("n_heads, use_mask", [(1, False), (2, True), (4, False)])
def test_multi_head_attention_matches_per_head_loops(n_heads, use_mask):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2, 5, 8))
    W_q, W_k, W_v, W_o = (rng.normal(size=(8, 8)) / math.sqrt(8) for _ in range(4))
    mask = causal_mask(5) if use_mask else None
    output, weights = multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=mask)
    loop_mask = None if mask is None else mask.tolist()
    expected_output, expected_weights = loop_multi_head(X, W_q, W_k, W_v, W_o, n_heads, loop_mask)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(output, expected_output, rtol=1e-10, atol=1e-12)


def test_multi_head_attention_with_one_head_is_attention_of_the_projections_then_w_o():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(6, 4))
    W_q, W_k, W_v, W_o = (rng.normal(size=(4, 4)) for _ in range(4))
    expected, _ = scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)
    output, weights = multi_head_attention(X, W_q, W_k, W_v, W_o, 1)
    np.testing.assert_allclose(output, expected @ W_o, rtol=1e-12)
    assert weights.shape == (1, 6, 6)


def test_multi_head_attention_accepts_a_per_batch_mask():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2, 3, 4))
    W = [rng.normal(size=(4, 4)) for _ in range(4)]
    mask = np.array([causal_mask(3), np.ones((3, 3), dtype=bool)])
    _, weights = multi_head_attention(X, *W, 2, mask=mask)
    assert np.all(weights[0][:, ~causal_mask(3)] == 0.0)
    assert np.all(weights[1] > 0.0)


@pytest.mark.parametrize("n_heads", [3, 0, 2.0])
def test_multi_head_attention_rejects_n_heads_that_do_not_divide_d_model(n_heads):
    W = np.eye(4)
    with pytest.raises(ValueError, match="^n_heads must"):
        multi_head_attention(np.ones((3, 4)), W, W, W, W, n_heads)


def test_multi_head_attention_names_a_projection_of_the_wrong_shape():
    W = np.eye(4)
    with pytest.raises(ValueError, match="^W_k must"):
        multi_head_attention(np.ones((3, 4)), W, np.eye(3), W, W, 2)


def test_projected_score_variance_draws_weights_once_then_input_pairs():
    d_model, d_k, init_std, n_samples = 3, 2, 0.7, 5
    rng = np.random.default_rng(6)
    W_q = rng.normal(0.0, init_std, size=(d_model, d_k))
    W_k = rng.normal(0.0, init_std, size=(d_model, d_k))
    x, x_other = rng.standard_normal((n_samples, d_model)), rng.standard_normal((n_samples, d_model))
    scores = []
    for s in range(n_samples):
        q = [sum(x[s, i] * W_q[i, c] for i in range(d_model)) for c in range(d_k)]
        k = [sum(x_other[s, i] * W_k[i, c] for i in range(d_model)) for c in range(d_k)]
        scores.append(sum(a * b for a, b in zip(q, k)))
    mean = sum(scores) / n_samples
    expected = sum((s - mean) ** 2 for s in scores) / n_samples
    result = projected_score_variance(d_model, d_k, init_std, n_samples, np.random.default_rng(6))
    assert result == pytest.approx(expected)


def test_projected_score_variance_grows_with_the_fourth_power_of_init_std():
    small = projected_score_variance(32, 8, 0.1, 500, np.random.default_rng(7))
    large = projected_score_variance(32, 8, 0.2, 500, np.random.default_rng(7))
    assert large == pytest.approx(2.0**4 * small, rel=1e-10)


@settings(max_examples=8, deadline=None, derandomize=True)
@given(
    d_model=st.integers(64, 256), d_k=st.integers(8, 64), init_std=st.floats(0.02, 0.2), seed=st.integers(0, 2**32 - 1)
)
def test_projected_score_variance_lies_within_six_standard_errors_of_the_theory(d_model, d_k, init_std, seed):
    n_samples = 4000
    theory = d_k * (d_model * init_std**2) ** 2  # d_k products of two components of variance d_model·init_std²
    # Relative error: sampling of the scores plus the spread of one draw of the weights.
    relative_error = math.sqrt((2 + 6 / d_k) / n_samples + 4 / (d_k * d_model) + 1 / d_model**2)
    estimate = projected_score_variance(d_model, d_k, init_std, n_samples, np.random.default_rng(seed))
    assert abs(estimate - theory) <= 6 * relative_error * theory


def test_projected_score_variance_theory_is_d_k_products_of_projected_variances():
    expected = sum((512 * 0.1**2) ** 2 for _ in range(64))
    assert projected_score_variance_theory(512, 64, 0.1) == pytest.approx(expected)


def test_answer_init_std_gives_unit_variance_projections_and_score_variance_d_k():
    assert 512 * answer_init_std**2 == pytest.approx(1.0)
    assert projected_score_variance_theory(512, 64, answer_init_std) == pytest.approx(64.0)


@pytest.mark.parametrize(
    "args, argument",
    [
        ((0, 8, 0.1, 10), "d_model"), ((8, 0, 0.1, 10), "d_k"),
        ((8, 8, -0.1, 10), "init_std"), ((8, 8, 0.1, 0), "n_samples"),
    ],
)
def test_projected_score_variance_names_the_bad_argument(args, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        projected_score_variance(*args, np.random.default_rng(0))
