"""Assignment 01_variance: why unscaled dot products spread like sqrt(d_k) (L3 §1-2, §7; Blog "方差证明").

A score q·k = sum_i q_i k_i adds d_k independent products. Each product has variance var_q·var_k,
and variances of independent terms add, so Var(q·k) = d_k·var_q·var_k and the standard deviation
grows like sqrt(d_k). The coin model (硬币模型) makes every product ±1 with probability ½.
"""
from __future__ import annotations

import numpy as np

from solutions.variants import LESSON_NUMBERS
from solutions.validation import as_float_array, as_generator, as_positive_int, as_real

#: Largest d for which ``coin_dot_products`` enumerates the 2**d outcomes (about a million values).
MAX_COIN_DIMENSION = 20


def coin_dot_products(d: int) -> np.ndarray:
    """All 2**d equally likely values of q·k in the coin model.

    d: number of components, 1 <= d <= MAX_COIN_DIMENSION.
    Returns a float64 array of shape (2**d,): outcome m has product i equal to -1 when bit i of m
    is set and +1 otherwise, so its value is d - 2·popcount(m).
    """
    d = as_positive_int(d, "d", maximum=MAX_COIN_DIMENSION)
    outcomes = np.arange(2**d)  # [2**d]
    minus_ones = np.zeros(2**d, dtype=np.int64)
    for bit in range(d):
        minus_ones += (outcomes >> bit) & 1
    return (d - 2 * minus_ones).astype(np.float64)  # [2**d]


def mean_and_variance(values) -> tuple[float, float]:
    """Population mean and variance (ddof=0) of every entry of ``values``.

    values: non-empty array-like of finite numbers, any shape (all entries count equally).
    Returns (mean, variance) as Python floats, in the units of ``values`` and their square.
    """
    values = as_float_array(values, "values")
    mean = float(values.mean())
    return mean, float(((values - mean) ** 2).mean())


def expansion_counts(d: int) -> tuple[int, int]:
    """Numbers of (diagonal, cross) terms when (q·k)² = (sum_i q_i k_i)² is multiplied out.

    d: number of components >= 1. Returns (d, d² - d): the d squares q_i² k_i² and the d² - d
    ordered pairs i != j, whose expectations vanish for independent zero-mean components.
    """
    d = as_positive_int(d, "d")
    return d, d * d - d


def dot_variance_theory(d_k: int, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """Var(q·k) = d_k·var_q·var_k for independent zero-mean components.

    d_k: number of components >= 1; var_q, var_k: variance of every component of q and of k (>= 0).
    """
    d_k = as_positive_int(d_k, "d_k")
    var_q = as_real(var_q, "var_q", minimum=0.0)
    var_k = as_real(var_k, "var_k", minimum=0.0)
    return float(d_k * var_q * var_k)


def dot_product_samples(
    d_k: int, n_samples: int, rng: np.random.Generator, var_q: float = 1.0, var_k: float = 1.0
) -> np.ndarray:
    """n_samples independent draws of q·k with Gaussian components.

    Draws q then k, each as one ``rng.normal`` call of shape (n_samples, d_k), with standard
    deviations sqrt(var_q) and sqrt(var_k). Returns a float64 array of shape (n_samples,).
    """
    d_k = as_positive_int(d_k, "d_k")
    n_samples = as_positive_int(n_samples, "n_samples")
    rng = as_generator(rng)
    var_q = as_real(var_q, "var_q", minimum=0.0)
    var_k = as_real(var_k, "var_k", minimum=0.0)
    q = rng.normal(0.0, np.sqrt(var_q), size=(n_samples, d_k))  # [n_samples, d_k]
    k = rng.normal(0.0, np.sqrt(var_k), size=(n_samples, d_k))  # [n_samples, d_k]
    return np.einsum("sd,sd->s", q, k)  # [n_samples]


def dot_variance_mc(
    d_k: int, n_samples: int, rng: np.random.Generator, var_q: float = 1.0, var_k: float = 1.0
) -> float:
    """Monte-Carlo estimate of Var(q·k): population variance of ``dot_product_samples``.

    Its standard error is about sqrt((2·d_k² + 6·d_k)/n_samples)·var_q·var_k, since the fourth
    moment of q·k is 3·d_k² + 6·d_k times (var_q·var_k)².
    """
    samples = dot_product_samples(d_k, n_samples, rng, var_q=var_q, var_k=var_k)
    return mean_and_variance(samples)[1]


def std_ratio(d_k_small: int, d_k_large: int) -> float:
    """σ(q·k) at d_k_large over σ at d_k_small, unit components (L3 §1): sqrt(d_k_large / d_k_small)."""
    return float(np.sqrt(dot_variance_theory(d_k_large) / dot_variance_theory(d_k_small)))


def variance_with_component_variance(d_k: int, component_variance: float) -> float:
    """Var(q·k) when every component of q and of k has variance ``component_variance`` (L3 §7)."""
    return dot_variance_theory(d_k, var_q=component_variance, var_k=component_variance)


def sigma_divided_by_d_k(d_k: int) -> float:
    """σ of q·k / d_k with unit components (L3 §7): sqrt(d_k) / d_k, far below 1."""
    return float(np.sqrt(dot_variance_theory(d_k)) / d_k)


#: σ(q·k) at d_k = 64 over σ at d_k = 4 (L3 §1, the lesson's numbers): sqrt(64/4) = 4.
answer_std_ratio = std_ratio(**LESSON_NUMBERS["answer_std_ratio"])

#: Var(q·k) at d_k = 64 when every component of q and k has variance 4 (L3 §7): 64·4·4 = 1024.
answer_var_component4 = variance_with_component_variance(**LESSON_NUMBERS["answer_var_component4"])

#: σ of q·k / d_k at d_k = 64 with unit components (L3 §7): 8 / 64 = 0.125, far below 1.
answer_sigma_divide_dk = sigma_divided_by_d_k(**LESSON_NUMBERS["answer_sigma_divide_dk"])
