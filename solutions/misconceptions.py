"""Known wrong variants of the student API, for naming a misconception in feedback.

Each variant takes the same arguments as the function it imitates, computes what a student who
holds the misconception would compute, and never warns (overflow simply yields inf or nan).
The first docstring line of each variant states the mistake. ``VARIANTS`` maps each student API
name to its variants.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from solutions.attention import multi_head_attention, scaled_dot_product_attention
from solutions.softmax import entropy, softmax
from solutions.validation import as_axis, as_float_array, as_positive_int, as_real


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


#: Student API name -> the wrong variants a diagnosis may compare against.
VARIANTS: dict[str, tuple[Callable, ...]] = {
    "softmax": (softmax_without_max_subtraction, softmax_over_first_axis),
    "entropy": (entropy_in_bits,),
    "scaled_dot_product_attention": (attention_divided_by_d_k, attention_unscaled),
    "causal_mask": (causal_mask_strictly_lower,),
    "multi_head_attention": (multi_head_attention_scaled_by_d_model,),
    "mean_and_variance": (mean_and_variance_sample,),
    "relative_weight": (relative_weight_without_exponent,),
    "dot_variance_theory": (dot_variance_theory_component_variance_once,),
}


def describe(variant: Callable) -> str:
    """The mistake a variant makes: the first line of its docstring."""
    return (variant.__doc__ or variant.__name__).strip().splitlines()[0]
