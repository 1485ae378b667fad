"""Known wrong implementations of the student API, for naming a misconception in feedback.

Each wrong implementation takes the same arguments as the function it imitates, computes what a student who
holds the misconception would compute, and never warns (overflow simply yields inf or nan).
The first docstring line of each one states the mistake. What feedback says about each one, and
which check compares against it, is declared in each assignment's checks file (``WRONG_ANSWERS`` of
``source/<id>/checks.py``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from solutions.attention import multi_head_attention, scaled_dot_product_attention
from solutions.saturation import entropy, saturation_experiment, softmax
from solutions.validation import as_axis, as_float_array, as_positive_int, as_real
from solutions.variance import dot_variance_theory, mean_and_variance


def softmax_without_max_subtraction(x, axis: int = -1) -> np.ndarray:
    """Softmax as exp(x) / sum exp(x) without subtracting the maximum, so large inputs overflow to nan."""
    x = as_float_array(x, "x", min_ndim=1)
    axis = as_axis(axis, x.ndim)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(x)
        return weights / weights.sum(axis=axis, keepdims=True)


def softmax_over_first_axis(x, axis: int = -1) -> np.ndarray:
    """Softmax normalised over axis 0 whatever ``axis`` says, i.e. over queries instead of keys in 2-D input."""
    return softmax(x, axis=0)


def entropy_in_bits(p, axis: int = -1) -> float | np.ndarray:
    """Entropy with log base 2 (bits) instead of the natural log (nats)."""
    return entropy(p, axis=axis) / np.log(2.0)


def _query_rescaled(Q, factor_of_d_k: Callable[[int], float]) -> np.ndarray:
    """Q multiplied by a factor of its width d_k, which rescales every score by the same factor."""
    Q = as_float_array(Q, "Q", min_ndim=2)
    return Q * factor_of_d_k(Q.shape[-1])


def attention_divided_by_d_k(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Attention with scores divided by d_k instead of sqrt(d_k), which flattens the weights."""
    return scaled_dot_product_attention(_query_rescaled(Q, lambda d_k: 1.0 / np.sqrt(d_k)), K, V, mask)


def attention_unscaled(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Attention with raw scores Q Kᵀ, not divided by sqrt(d_k), which saturates the softmax."""
    return scaled_dot_product_attention(_query_rescaled(Q, np.sqrt), K, V, mask)


def causal_mask_strictly_lower(n: int) -> np.ndarray:
    """Causal mask that also hides the diagonal, so no position may attend to itself."""
    n = as_positive_int(n, "n")
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


def multi_head_attention_scaled_by_d_model(X, W_q, W_k, W_v, W_o, n_heads: int, mask=None):
    """Multi-head attention dividing each head's scores by sqrt(d_model) instead of sqrt(d_head)."""
    n_heads = as_positive_int(n_heads, "n_heads")
    # Shrinking W_q by sqrt(d_head / d_model) turns the division by sqrt(d_head) into one by sqrt(d_model).
    shrink = np.sqrt(1.0 / n_heads)
    W_q = as_float_array(W_q, "W_q", ndim=2) * shrink
    return multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=mask)


def mean_and_variance_sample(values) -> tuple[float, float]:
    """Mean and sample variance (ddof=1) instead of the population variance (ddof=0)."""
    values = as_float_array(values, "values").ravel()
    mean = float(values.mean())
    if values.size < 2:
        return mean, float("nan")
    return mean, float(((values - mean) ** 2).sum() / (values.size - 1))


def relative_weight_without_exponent(s_target, s_other, beta: float) -> float | np.ndarray:
    """The raw score ratio s_other / s_target, forgetting to exponentiate (0.6 for the A/B example)."""
    s_target = as_float_array(s_target, "s_target")
    s_other = as_float_array(s_other, "s_other")
    as_real(beta, "beta")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = s_other / s_target
    return float(ratio) if ratio.ndim == 0 else ratio


def dot_variance_theory_component_variance_once(d_k: int, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """Var(q·k) taken as d_k times one component variance (their mean) instead of d_k·var_q·var_k."""
    d_k = as_positive_int(d_k, "d_k")
    var_q = as_real(var_q, "var_q", minimum=0.0)
    var_k = as_real(var_k, "var_k", minimum=0.0)
    return float(d_k * (var_q + var_k) / 2.0)


# ---- variance --------------------------------------------------------------------------------


def coin_distinct_values(d: int) -> np.ndarray:
    """The d + 1 distinct values -d, -d + 2, ..., d, each listed once instead of once per outcome."""
    d = int(d)
    return np.arange(-d, d + 1, 2, dtype=np.float64)  # [d + 1]


def mean_and_standard_deviation(values) -> tuple[float, float]:
    """(mean, standard deviation) instead of (mean, variance)."""
    mean, variance = mean_and_variance(values)
    return mean, float(np.sqrt(variance))


def expansion_counts_unordered_pairs(d: int) -> tuple[int, int]:
    """Cross terms counted once per unordered pair {i, j}: (d, d(d - 1)/2) instead of (d, d² - d)."""
    d = int(d)
    return d, d * (d - 1) // 2


def expansion_counts_all_cross(d: int) -> tuple[int, int]:
    """All d² terms counted as cross terms: (d, d²)."""
    d = int(d)
    return d, d * d


def dot_standard_deviation_theory(d_k: int, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """σ(q·k) = sqrt(d_k·var_q·var_k) instead of the variance."""
    return float(np.sqrt(dot_variance_theory(d_k, var_q, var_k)))


def dot_variance_mc_reports_std(d_k: int, n_samples: int, rng, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """What reporting the samples' standard deviation instead of their variance approaches: sqrt(d_k·var_q·var_k)."""
    return dot_standard_deviation_theory(d_k, var_q, var_k)


def dot_variance_mc_variance_as_scale(d_k: int, n_samples: int, rng, var_q: float = 1.0,
                                      var_k: float = 1.0) -> float:
    """What passing the variances as the scale (standard deviation) of rng.normal approaches: d_k·var_q²·var_k²."""
    return dot_variance_theory(d_k, var_q**2, var_k**2)


# ---- softmax --------------------------------------------------------------------------------


def softmax_global_max(x, axis: int = -1) -> np.ndarray:
    """Softmax subtracting the whole array's maximum instead of each slice's, so a slice far below it gives 0/0 = nan."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        weights = np.exp(x - x.max())
        return weights / weights.sum(axis=axis, keepdims=True)


def softmax_without_keepdims(x, axis: int = -1) -> np.ndarray:
    """Softmax dividing by sums taken without keepdims, so broadcasting divides along the wrong axis (square input only)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(x - x.max(axis=axis, keepdims=True))
        return weights / weights.sum(axis=axis)


def entropy_nan_at_zero(p, axis: int = -1) -> float | np.ndarray:
    """-sum p·log p without the convention 0·log 0 = 0, so any zero probability gives 0·(-inf) = nan."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -(p * np.log(p)).sum(axis=axis)
    return float(value) if value.ndim == 0 else value


def entropy_without_minus(p, axis: int = -1) -> float | np.ndarray:
    """sum p·log p without the minus sign, which is never positive."""
    value = -np.asarray(entropy(p, axis=axis))
    return float(value) if value.ndim == 0 else value


def saturation_unscaled(d_k: int, n_keys: int, n_trials: int, scale: float, rng) -> dict[str, float]:
    """The experiment with the scores never divided by ``scale``."""
    return saturation_experiment(d_k, n_keys, n_trials, 1.0, rng)


def saturation_gap_before_scaling(d_k: int, n_keys: int, n_trials: int, scale: float, rng) -> dict[str, float]:
    """The experiment with the top1 - top2 gap measured on the raw scores, before dividing by ``scale``."""
    result = saturation_experiment(d_k, n_keys, n_trials, scale, rng)
    return {**result, "gap": result["gap"] * float(scale)}


def _one_hot(scores, target) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    return (np.arange(scores.shape[-1]) == np.asarray(target)[..., None]).astype(np.float64)  # [..., n]


def score_gradient_flipped_sign(scores, target) -> np.ndarray:
    """onehot(target) - softmax(s): the gradient of +log p, which points uphill in the loss."""
    return _one_hot(scores, target) - softmax(scores)


def score_gradient_without_softmax(scores, target) -> np.ndarray:
    """s - onehot(target): the raw scores in place of the probabilities softmax(s)."""
    return np.asarray(scores, dtype=np.float64) - _one_hot(scores, target)


def score_gradient_without_max_subtraction(scores, target) -> np.ndarray:
    """softmax(s) - onehot(target) with a softmax that does not subtract the maximum (nan for large scores)."""
    return softmax_without_max_subtraction(scores) - _one_hot(scores, target)


def scale_d_k(d_k: int) -> float:
    """d_k itself as the divisor, which makes σ(q·k / d_k) = 1/sqrt(d_k)."""
    return float(d_k)


def scale_reciprocal(d_k: int) -> float:
    """1/sqrt(d_k): the factor to multiply by, given where the divisor is asked for."""
    return float(1.0 / np.sqrt(d_k))


# ---- readout --------------------------------------------------------------------------------


def _floats(*arrays):
    return (np.asarray(a, dtype=np.float64) for a in arrays)


def exp_weights_without_beta(scores, beta):
    """exp(s): the sharpness β is left out of the exponent."""
    (scores,) = _floats(scores)
    return np.exp(scores)


def exp_weights_beta_as_temperature(scores, beta):
    """exp(s / β): β used as a temperature (dividing) instead of a sharpness (multiplying)."""
    (scores,) = _floats(scores)
    with np.errstate(all="ignore"):
        return np.exp(scores / float(beta))


def relative_weight_inverted(s_target, s_other, beta):
    """exp(β(s_target − s_other)): the target relative to the other entry instead of the reverse."""
    s_target, s_other = _floats(s_target, s_other)
    return np.exp(float(beta) * (s_target - s_other))


def relative_weight_without_beta(s_target, s_other, beta):
    """exp(s_other − s_target): the sharpness β is left out."""
    s_target, s_other = _floats(s_target, s_other)
    return np.exp(s_other - s_target)


def normalize_columns(X):
    """Each column scaled to unit length instead of each row."""
    (X,) = _floats(X)
    with np.errstate(all="ignore"):
        return X / np.linalg.norm(X, axis=0, keepdims=True)


def normalize_rows_by_abs_sum(X):
    """Each row divided by the sum of its absolute entries (L1) instead of its Euclidean length."""
    (X,) = _floats(X)
    with np.errstate(all="ignore"):
        return X / np.abs(X).sum(axis=1, keepdims=True)


def softmax_readout_without_beta(K, V, x, beta):
    """Vᵀ softmax(K x): the sharpness β is left out of the scores."""
    K, V, x = _floats(K, V, x)
    weights = softmax(K @ x)  # [n]
    return V.T @ weights, weights


def softmax_readout_unnormalised(K, V, x, beta):
    """Vᵀ exp(β K x): the exponentials are used as weights without dividing by their sum."""
    K, V, x = _floats(K, V, x)
    with np.errstate(all="ignore"):
        weights = np.exp(float(beta) * (K @ x))  # [n]
        return V.T @ weights, weights


# ---- attention --------------------------------------------------------------------------------


def attention_fully_masked_row_uniform(Q, K, V, mask=None):
    """Masked scores replaced by a large negative number, so a fully masked row gets uniform weights."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # [..., n_q, n_k]
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    weights = softmax(scores)
    return weights @ V, weights


def attention_masked_after_softmax(Q, K, V, mask=None):
    """The mask applied to the weights after softmax, without renormalising the allowed ones."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    weights = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))  # [..., n_q, n_k]
    if mask is not None:
        weights = np.where(mask, weights, 0.0)
    return weights @ V, weights


def causal_mask_upper(n):
    """True on and above the diagonal: each position attends to the future instead of the past."""
    return np.triu(np.ones((int(n), int(n)), dtype=bool))


def multi_head_attention_unscaled(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """Multi-head attention whose heads use raw scores, not divided by sqrt(d_head)."""
    d_model = np.shape(X)[-1]
    # Growing W_q by sqrt(d_head) cancels the division by sqrt(d_head).
    W_q = np.asarray(W_q, dtype=np.float64) * np.sqrt(d_model // int(n_heads))
    return multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=mask)


def multi_head_attention_without_output_projection(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """The concatenated heads returned as they are, without multiplying by W_o."""
    d_model = np.shape(X)[-1]
    return multi_head_attention(X, W_q, W_k, W_v, np.eye(d_model), n_heads, mask=mask)


def describe(mistake: Callable) -> str:
    """The mistake a wrong implementation makes: the first line of its docstring."""
    return (mistake.__doc__ or mistake.__name__).strip().splitlines()[0]
