"""Assignment 04_attention: scaled dot-product and multi-head attention (AM13, Blog "三件事").

Attention scores every query against every key, divides by sqrt(d_k) so the scores keep unit
variance, turns each row into weights with softmax and averages the values with them. A boolean
mask says which keys a query may attend to; a query that may attend to nothing gets zero weights
and a zero output instead of nan.
"""
from __future__ import annotations

import numpy as np

from solutions.saturation import softmax
from solutions.validation import as_bool_array, as_float_array, as_generator, as_positive_int, as_real
from solutions.variance import mean_and_variance
from solutions.variants import LESSON_NUMBERS


def _broadcast_leading(shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """Broadcast the batch shapes of several arguments, naming them if they clash."""
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        names = list(shapes)
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        subject = ", ".join(names[:-1]) + " and " + names[-1]
        raise ValueError(f"{subject} must have broadcastable leading (batch) axes; got {listed}.") from None


def checked_mask(mask, score_shape: tuple[int, ...]) -> np.ndarray:
    """The boolean ``mask`` after checking it broadcasts to ``score_shape`` (..., n_q, n_k) unchanged."""
    mask = as_bool_array(mask, "mask")
    try:
        broadcast = np.broadcast_shapes(mask.shape, score_shape)
    except ValueError:
        broadcast = None
    if broadcast != tuple(score_shape):
        raise ValueError(
            f"mask must broadcast to the score shape {tuple(score_shape)} (..., n_q, n_k); got shape {mask.shape}."
        )
    return mask


def masked_softmax(scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Softmax over the last axis of finite ``scores`` [..., n_k] restricted to ``mask`` (True = allowed).

    Masked entries get weight exactly 0; a row with no allowed entry gets all-zero weights. No
    nan or floating-point warning is produced. Returns float64 [..., n_k].
    """
    if mask is None:
        return softmax(scores)
    allowed = np.broadcast_to(mask, scores.shape)
    row_max = np.max(np.where(allowed, scores, -np.inf), axis=-1, keepdims=True)  # [..., 1]
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)  # fully masked rows: any finite shift
    with np.errstate(over="ignore"):
        shifted = np.where(allowed, scores - row_max, -np.inf)  # [..., n_k] <= 0, -inf where masked
    unnormalised = np.exp(shifted)
    total = unnormalised.sum(axis=-1, keepdims=True)  # >= 1 unless the row is fully masked
    return np.divide(unnormalised, total, out=np.zeros_like(unnormalised), where=total > 0)


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q Kᵀ / sqrt(d_k)) V over the last two axes, batched over broadcast leading axes.

    Q: queries [..., n_q, d_k]; K: keys [..., n_k, d_k]; V: values [..., n_k, d_v];
    mask: optional boolean array broadcastable to [..., n_q, n_k], True = may attend.
    Returns (output [..., n_q, d_v], weights [..., n_q, n_k]); a fully masked row has all-zero
    weights and an all-zero output.
    """
    Q = as_float_array(Q, "Q", min_ndim=2)
    K = as_float_array(K, "K", min_ndim=2)
    V = as_float_array(V, "V", min_ndim=2)
    d_k = Q.shape[-1]
    if K.shape[-1] != d_k:
        raise ValueError(f"K must have the query width d_k = {d_k} in its last axis; got shape {K.shape}.")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(f"V must have one row per key (n_k = {K.shape[-2]}); got shape {V.shape}.")
    batch = _broadcast_leading({"Q": Q.shape[:-2], "K": K.shape[:-2], "V": V.shape[:-2]})
    with np.errstate(over="ignore", invalid="ignore"):
        scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # [..., n_q, d_k] x [..., d_k, n_k]
    if not np.all(np.isfinite(scores)):
        raise ValueError("Q and K are too large: their dot products overflow float64; rescale them.")
    if mask is not None:
        mask = checked_mask(mask, scores.shape)
    weights = masked_softmax(scores, mask)  # [..., n_q, n_k]
    output = weights @ V  # [..., n_q, n_k] x [..., n_k, d_v] -> [..., n_q, d_v]
    return output, np.broadcast_to(weights, batch + weights.shape[-2:]).copy()


def causal_mask(n: int) -> np.ndarray:
    """Boolean [n, n] mask, True on and below the diagonal: position i may attend to 0..i."""
    n = as_positive_int(n, "n")
    return np.tril(np.ones((n, n), dtype=bool))


def _split_heads(projected: np.ndarray, n_heads: int) -> np.ndarray:
    """[..., n, d_model] -> [..., n_heads, n, d_head], head h taking columns h·d_head:(h+1)·d_head."""
    *leading, n, d_model = projected.shape
    heads = projected.reshape(*leading, n, n_heads, d_model // n_heads)  # [..., n, h, d_head]
    return np.swapaxes(heads, -2, -3)  # [..., h, n, d_head]


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head self-attention, each head scaled by its own sqrt(d_head).

    X: inputs [..., n, d_model]; W_q, W_k, W_v, W_o: [d_model, d_model]; n_heads divides d_model;
    mask: optional boolean array broadcastable to [..., n, n] (shared by all heads).
    The projections X W_q, X W_k, X W_v are split into n_heads consecutive column blocks of width
    d_head = d_model / n_heads, attended separately, concatenated in head order and multiplied by W_o.
    Returns (output [..., n, d_model], weights [..., n_heads, n, n]).
    """
    X = as_float_array(X, "X", min_ndim=2)
    d_model = X.shape[-1]
    projections = {}
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        W = as_float_array(W, name, ndim=2)
        if W.shape != (d_model, d_model):
            raise ValueError(f"{name} must have shape (d_model, d_model) = {(d_model, d_model)}; got {W.shape}.")
        projections[name] = W
    n_heads = as_positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
        raise ValueError(f"n_heads must divide d_model = {d_model} evenly; got {n_heads}. Choose one of {divisors}.")
    n = X.shape[-2]
    if mask is not None:
        mask = checked_mask(mask, X.shape[:-2] + (n, n))
        if mask.ndim >= 2:
            mask = mask[..., None, :, :]  # [..., 1, n, n]: the same mask for every head
    queries = _split_heads(X @ projections["W_q"], n_heads)  # [..., h, n, d_head]
    keys = _split_heads(X @ projections["W_k"], n_heads)
    values = _split_heads(X @ projections["W_v"], n_heads)
    heads, weights = scaled_dot_product_attention(queries, keys, values, mask)  # [..., h, n, d_head]
    concatenated = np.swapaxes(heads, -2, -3).reshape(X.shape)  # [..., n, h, d_head] -> [..., n, d_model]
    return concatenated @ projections["W_o"], weights  # [..., n, d_model], [..., h, n, n]


def projected_score_variance_theory(d_model: int, d_k: int, init_std: float) -> float:
    """Expected Var((x W_q)·(x' W_k)) = d_k·(d_model·init_std²)² for x, x' ~ N(0, I), weights ~ N(0, init_std²).

    Each projected component has variance d_model·init_std², and d_k such products add up.
    """
    d_model = as_positive_int(d_model, "d_model")
    d_k = as_positive_int(d_k, "d_k")
    init_std = as_real(init_std, "init_std", minimum=0.0)
    return float(d_k * (d_model * init_std**2) ** 2)


def projected_score_variance(
    d_model: int, d_k: int, init_std: float, n_samples: int, rng: np.random.Generator
) -> float:
    """Monte-Carlo variance of unscaled scores (x W_q)·(x' W_k) at initialisation (Blog).

    Draws, in this order, W_q and W_k [d_model, d_k] ~ N(0, init_std²) once (one initialisation),
    then n_samples pairs x, x' [n_samples, d_model] ~ N(0, I). Returns the population variance of
    the n_samples scores; its expectation is ``projected_score_variance_theory``.
    """
    d_model = as_positive_int(d_model, "d_model")
    d_k = as_positive_int(d_k, "d_k")
    init_std = as_real(init_std, "init_std", minimum=0.0)
    n_samples = as_positive_int(n_samples, "n_samples")
    rng = as_generator(rng)
    W_q = rng.normal(0.0, init_std, size=(d_model, d_k))
    W_k = rng.normal(0.0, init_std, size=(d_model, d_k))
    x = rng.standard_normal((n_samples, d_model))
    x_other = rng.standard_normal((n_samples, d_model))
    scores = np.einsum("sk,sk->s", x @ W_q, x_other @ W_k)  # [n_samples]
    return mean_and_variance(scores)[1]


def unit_score_init_std(d_model: int, d_k: int) -> float:
    """The init_std giving unscaled score variance d_k: Var = d_k·(d_model·init_std²)², so 1/sqrt(d_model)."""
    return float((d_k / projected_score_variance_theory(d_model, d_k, 1.0)) ** 0.25)


#: The init_std giving unscaled score variance d_k at d_model = 512, d_k = 64: 1/sqrt(512).
answer_init_std = unit_score_init_std(**LESSON_NUMBERS["answer_init_std"])
