"""Assignment 02_softmax: what σ = 8 does to softmax, and what really goes wrong (L3 §3-5, Blog tables).

Unscaled scores at d_k = 64 have σ = 8, so softmax saturates: almost all weight lands on one key
and the entropy collapses. The gradient of cross-entropy, p - y, does not vanish; what grows is the
gap between the top two scores, which a fixed learning-rate step cannot close. Dividing by sqrt(d_k)
restores unit variance.
"""
from __future__ import annotations

import numpy as np

from solutions.validation import as_axis, as_float_array, as_generator, as_positive_int, as_real, float_or_array
from solutions.variance import dot_variance_theory
from solutions.variants import CULPRIT_OPTIONS, LESSON_NUMBERS

#: Absolute slack allowed when checking that probabilities sum to one.
PROBABILITY_SUM_TOLERANCE = 1e-6


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax exp(x - max) / sum exp(x - max) along ``axis``.

    x: finite array-like with at least one dimension, any shape (e.g. [..., n]).
    Returns float64 weights of the same shape, non-negative, summing to one along ``axis``.
    Subtracting the maximum keeps exp() <= 1, so inputs such as 1e4 or -1e308 stay finite.
    """
    x = as_float_array(x, "x", min_ndim=1)
    axis = as_axis(axis, x.ndim)
    # For spans above ~1.8e308 the difference overflows to -inf, whose exp() is exactly 0.
    with np.errstate(over="ignore"):
        shifted = x - x.max(axis=axis, keepdims=True)  # [...] <= 0
    weights = np.exp(shifted)
    return weights / weights.sum(axis=axis, keepdims=True)


def entropy(p, axis: int = -1) -> float | np.ndarray:
    """Shannon entropy -sum p·log p in nats along ``axis``, with 0·log 0 = 0.

    p: non-negative probabilities summing to one along ``axis`` (within 1e-6), shape [..., n].
    Returns a float for 1-D input, else a float64 array of the remaining shape [...];
    values lie in [0, log n].
    """
    p = as_float_array(p, "p", min_ndim=1)
    axis = as_axis(axis, p.ndim)
    if np.any(p < 0):
        raise ValueError("p must contain non-negative probabilities; normalise scores with softmax first.")
    sums = p.sum(axis=axis)
    if np.any(np.abs(sums - 1.0) > PROBABILITY_SUM_TOLERANCE):
        raise ValueError(f"p must sum to 1 along axis {axis}; pass the softmax weights, not raw scores.")
    log_p = np.log(np.where(p > 0, p, 1.0))  # log 1 = 0 makes 0·log 0 = 0
    return float_or_array(np.maximum(-(p * log_p).sum(axis=axis), 0.0))


def _scores_of_random_keys(
    d_k: int, n_keys: int, n_trials: int, scale: float, rng: np.random.Generator
) -> np.ndarray:
    """Scores q·k / scale of one N(0, I) query against n_keys N(0, I) keys, per trial.

    Draws q with one ``rng.standard_normal((n_trials, d_k))`` call, then the keys with one call of
    shape (n_trials, n_keys, d_k). Returns [n_trials, n_keys].
    """
    q = rng.standard_normal((n_trials, d_k))  # [n_trials, d_k]
    keys = rng.standard_normal((n_trials, n_keys, d_k))  # [n_trials, n_keys, d_k]
    return (keys @ q[:, :, None])[:, :, 0] / scale  # [n_trials, n_keys]


def _experiment_arguments(d_k, n_keys, n_trials, scale, rng):
    return (
        as_positive_int(d_k, "d_k"),
        as_positive_int(n_keys, "n_keys"),
        as_positive_int(n_trials, "n_trials"),
        as_real(scale, "scale", minimum=0.0, strict=True),
        as_generator(rng),
    )


def saturation_trials(
    d_k: int, n_keys: int, n_trials: int, scale: float, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Per-trial results of the saturation experiment (L3 §3, P2).

    Each trial scores one query against n_keys keys (all components N(0, 1)), divides by ``scale``
    and applies softmax over the keys. Returns float64 arrays of shape [n_trials] under
    ``max_weight`` (largest weight), ``entropy`` (nats) and ``gap`` (top1 - top2 score, after
    scaling). n_keys must be at least 2 so that a gap exists.
    """
    d_k, n_keys, n_trials, scale, rng = _experiment_arguments(d_k, n_keys, n_trials, scale, rng)
    if n_keys < 2:
        raise ValueError(f"n_keys must be at least 2 so that a top1 - top2 gap exists; got {n_keys}.")
    scores = _scores_of_random_keys(d_k, n_keys, n_trials, scale, rng)  # [n_trials, n_keys]
    weights = softmax(scores)
    top_two = np.sort(scores, axis=-1)[:, -2:]  # [n_trials, 2]
    return {
        "max_weight": weights.max(axis=-1),
        "entropy": entropy(weights),
        "gap": top_two[:, 1] - top_two[:, 0],
    }


def saturation_experiment(
    d_k: int, n_keys: int, n_trials: int, scale: float, rng: np.random.Generator
) -> dict[str, float]:
    """Means over trials of ``saturation_trials``: keys ``max_weight``, ``entropy`` (nats), ``gap``.

    At d_k = 64 with 64 keys, scale = 1 gives about 0.79, 0.59 nat and 2.95; scale = 8 gives
    about 0.11, 3.68 nat and 0.37 (uniform weights would have entropy log 64 = 4.16 nat).
    """
    trials = saturation_trials(d_k, n_keys, n_trials, scale, rng)
    return {name: float(values.mean()) for name, values in trials.items()}


def score_gradient(scores, target) -> np.ndarray:
    """∂L/∂s of the cross-entropy L = -log softmax(s)[target]: softmax(s) - onehot(target).

    scores: finite array-like [..., n]; target: integer class indices in [0, n) of shape [...]
    (a plain int for 1-D scores). Returns float64 [..., n]; every row sums to zero.
    """
    scores = as_float_array(scores, "scores", min_ndim=1)
    target = np.asarray(target)
    if target.dtype.kind not in "iu":
        raise ValueError(f"target must hold integer class indices; got dtype {target.dtype}.")
    if target.shape != scores.shape[:-1]:
        raise ValueError(
            f"target must have the leading shape of scores {scores.shape[:-1]} (one index per row); "
            f"got shape {target.shape}."
        )
    n_classes = scores.shape[-1]
    if np.any(target < 0) or np.any(target >= n_classes):
        raise ValueError(f"target must index the last axis of scores: 0 <= target < {n_classes}.")
    gradient = softmax(scores)  # [..., n]
    index = target[..., None].astype(np.intp)  # [..., 1]
    np.put_along_axis(gradient, index, np.take_along_axis(gradient, index, axis=-1) - 1.0, axis=-1)
    return gradient


def gradient_residual_trials(
    d_k: int, n_keys: int, n_trials: int, scale: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """‖p - y‖ per trial for a random target (L3 §4, P3): the gradient does not vanish.

    Scores as in ``saturation_trials`` (query drawn first, then keys), then one target per trial
    from ``rng.integers(0, n_keys, n_trials)``. Returns (norms [n_trials], missed [n_trials]) where
    ``missed`` marks the trials whose argmax is not the target.
    """
    d_k, n_keys, n_trials, scale, rng = _experiment_arguments(d_k, n_keys, n_trials, scale, rng)
    scores = _scores_of_random_keys(d_k, n_keys, n_trials, scale, rng)  # [n_trials, n_keys]
    target = rng.integers(0, n_keys, size=n_trials)  # [n_trials]
    norms = np.linalg.norm(score_gradient(scores, target), axis=-1)  # [n_trials]
    return norms, scores.argmax(axis=-1) != target


def unit_variance_scale(d_k: int) -> float:
    """The divisor c with Var(q·k / c) = 1 for unit-variance components: σ(q·k) = sqrt(d_k)."""
    return float(np.sqrt(dot_variance_theory(d_k)))


def weights_scaled(scores, d_k: int) -> np.ndarray:
    """Softmax of ``scores`` divided by sqrt(d_k) (Blog, L3 §5)."""
    return softmax(np.asarray(scores, dtype=np.float64) / unit_variance_scale(d_k))


#: The multiple-choice options for "what actually goes wrong at σ = 8" (L3 §4), in the lesson's order.
CULPRIT_CHOICES = dict(zip("ABCD", LESSON_NUMBERS["answer_culprit"]["options"]))


def culprit_letter(options) -> str:
    """The letter of the right option of "what goes wrong at σ = 8" in the order ``options`` lists them.

    L3 §4: ‖p - y‖ stays near 1.3 (below sqrt 2) while the top1 - top2 gap grows with σ.
    """
    return "ABCD"[list(options).index(CULPRIT_OPTIONS["gap"])]


def option_letter(options, key: str) -> str:
    """The letter under which ``options`` lists the option ``key`` of ``CULPRIT_OPTIONS``."""
    return "ABCD"[list(options).index(CULPRIT_OPTIONS[key])]


#: Softmax of the Blog's scores [14, 10, 12]: about [0.867, 0.016, 0.117].
answer_weights_unscaled = softmax(LESSON_NUMBERS["answer_weights_unscaled"]["scores"])

#: The same scores divided by sqrt(64) = 8: about [0.419, 0.254, 0.326] (the last is 0.32650 rounded down).
answer_weights_scaled = weights_scaled(**LESSON_NUMBERS["answer_weights_scaled"])

#: L3 §3 worked example softmax(3.2, 0.1, -2.5, 0.4): about (0.90, 0.041, 0.003, 0.055).
answer_worked_example = softmax(LESSON_NUMBERS["answer_worked_example"]["scores"])

#: The lesson's order of the options: B.
answer_culprit = culprit_letter(LESSON_NUMBERS["answer_culprit"]["options"])
