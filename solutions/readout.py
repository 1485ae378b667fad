"""Assignment 03_readout: exponentials stretch ratios, softmax allocates (AR07/b0-b2, AM12, AM13).

The read-out f(x) = Vᵀ softmax(β K x) first exponentiates the scores, which turns a difference
of scores into a ratio of weights exp(β·Δs), and then normalises, which allocates one unit of
weight among the keys. With unit-length keys and queries, β plays the role of sqrt(d_k).
"""
from __future__ import annotations

import numpy as np

from solutions.saturation import softmax, unit_variance_scale
from solutions.validation import as_float_array, as_generator, as_positive_int, as_real, float_or_array
from solutions.variants import LESSON_NUMBERS

#: Largest exponent whose exp() is finite in float64 (log of the largest double).
LOG_LARGEST_FLOAT = float(np.log(np.finfo(np.float64).max))

#: The read-outs ``retrieval_accuracy`` can compare.
READOUTS = ("softmax", "linear")

#: Upper bound on the floats per array in one chunk of ``retrieval_accuracy`` trials (16 MiB).
_RETRIEVAL_CHUNK_FLOATS = 2**21


def _exp_checked(exponent: np.ndarray, names: str) -> np.ndarray:
    """exp(exponent), refusing exponents whose exponential is not a finite float64."""
    if np.any(exponent > LOG_LARGEST_FLOAT):
        raise ValueError(
            f"{names} give an exponent above {LOG_LARGEST_FLOAT:.2f}, so exp() overflows float64; "
            f"use smaller scores or beta, or softmax (which subtracts the maximum first)."
        )
    return np.exp(exponent)


def exp_weights(scores, beta: float) -> float | np.ndarray:
    """Unnormalised weights exp(β·s).

    scores: finite array-like, any shape; beta: finite sharpness (dimensionless).
    Returns a float for scalar scores, else float64 of the same shape.
    """
    scores = as_float_array(scores, "scores")
    beta = as_real(beta, "beta")
    with np.errstate(over="ignore"):
        exponent = beta * scores
    return float_or_array(_exp_checked(exponent, "scores and beta"))


def relative_weight(s_target, s_other, beta: float) -> float | np.ndarray:
    """Weight of the other entry relative to the target after exponentiation: exp(β(s_other - s_target)).

    s_target, s_other: finite scores (scalars or broadcastable arrays); beta: finite sharpness.
    Returns a float for scalar input, else a float64 array of the broadcast shape.
    """
    s_target = as_float_array(s_target, "s_target")
    s_other = as_float_array(s_other, "s_other")
    beta = as_real(beta, "beta")
    try:
        np.broadcast_shapes(s_target.shape, s_other.shape)
    except ValueError:
        raise ValueError(
            f"s_other must broadcast against s_target; got shapes {s_other.shape} and {s_target.shape}."
        ) from None
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = beta * (s_other - s_target)
    if np.any(np.isnan(exponent)):
        raise ValueError("s_other - s_target overflows float64, so beta times it is undefined; use smaller scores.")
    return float_or_array(_exp_checked(exponent, "s_other, s_target and beta"))


def normalize_rows(X) -> np.ndarray:
    """Each row of X scaled to unit Euclidean length.

    X: finite array-like [n, d]. Returns float64 [n, d]. Rows are first divided by their largest
    absolute entry, so neither tiny nor huge rows under- or overflow. Raises ValueError for an
    all-zero row, which has no direction.
    """
    X = as_float_array(X, "X", ndim=2)
    peak = np.abs(X).max(axis=1, keepdims=True)  # [n, 1]
    zero_rows = np.flatnonzero(peak[:, 0] == 0)
    if zero_rows.size:
        raise ValueError(f"X has all-zero rows {zero_rows.tolist()}; a zero vector cannot be normalised.")
    rescaled = X / peak
    return rescaled / np.linalg.norm(rescaled, axis=1, keepdims=True)


def softmax_readout(K, V, x, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """f(x) = Vᵀ softmax(β K x), the attention read-out for one query.

    K: keys as rows [n, d]; V: values as rows [n, d_v]; x: query [d]; beta: finite sharpness.
    Returns (output [d_v], weights [n]); the stable softmax keeps large β finite.
    """
    K = as_float_array(K, "K", ndim=2)
    V = as_float_array(V, "V", ndim=2)
    x = as_float_array(x, "x", ndim=1)
    beta = as_real(beta, "beta")
    if V.shape[0] != K.shape[0]:
        raise ValueError(f"V must have one row per key: K has {K.shape[0]} rows, V has {V.shape[0]}.")
    if x.shape[0] != K.shape[1]:
        raise ValueError(f"x must have the key width d = {K.shape[1]}; got length {x.shape[0]}.")
    with np.errstate(over="ignore", invalid="ignore"):
        scores = beta * (K @ x)  # [n]
    if not np.all(np.isfinite(scores)):
        raise ValueError("beta · K x overflows float64; use smaller keys, query or beta.")
    weights = softmax(scores)  # [n]
    return V.T @ weights, weights  # [d_v], [n]


def _random_unit_rows(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Gaussian rows normalised to unit length: uniform directions on the sphere, shape [..., d]."""
    rows = rng.standard_normal(shape)
    # The same numbers as rows / np.linalg.norm(rows, axis=-1, keepdims=True), without its copies:
    # the reference's retrieval runs draw millions of rows per setting.
    lengths = np.sqrt(np.add.reduce(rows * rows, axis=-1, keepdims=True))
    return np.divide(rows, lengths, out=rows)


def _retrieval_successes(
    n_pairs_each: tuple[int, ...], d: int, beta: float, n_trials: int, rng: np.random.Generator, readout: str
) -> list[int]:
    """Successful retrievals in n_trials independent memories (one query each), for each number of
    stored pairs in ``n_pairs_each``.

    Every memory holds max(n_pairs_each) pairs; the count for n pairs uses its first n (the same draws,
    so one simulation gives a run of neighbouring counts for about twice the cost of the largest alone).
    Per chunk the draws are the keys, then the values, then one array of queried indices per entry
    of ``n_pairs_each``, in its order.
    """
    most = max(n_pairs_each)
    successes = [0] * len(n_pairs_each)
    chunk = max(1, _RETRIEVAL_CHUNK_FLOATS // (most * d))
    for start in range(0, n_trials, chunk):
        size = min(chunk, n_trials - start)
        all_keys = _random_unit_rows(rng, (size, most, d))  # [t, most, d]
        all_values = _random_unit_rows(rng, (size, most, d))  # [t, most, d]
        for k, n_pairs in enumerate(n_pairs_each):
            keys, values = all_keys[:, :n_pairs], all_values[:, :n_pairs]  # [t, n, d]
            queried = rng.integers(0, n_pairs, size=size)  # [t]
            query = keys[np.arange(size), queried]  # [t, d]
            scores = (keys @ query[:, :, None])[:, :, 0]  # [t, n]
            weights = softmax(beta * scores) if readout == "softmax" else scores  # [t, n]
            output = (weights[:, None, :] @ values)[:, 0, :]  # [t, d]
            similarity = (values @ output[:, :, None])[:, :, 0]  # [t, n], cosine times |output|
            successes[k] += int(np.count_nonzero(similarity.argmax(axis=-1) == queried))
    return successes


def _retrieval_setting(d, beta, n_trials, rng, readout: str) -> tuple[int, float, int, np.random.Generator]:
    """(d, beta, n_trials, rng) validated, as retrieval_accuracy and capacity_search take them; the
    read-out must be one of READOUTS. Raises ValueError naming the argument."""
    d = as_positive_int(d, "d")
    beta = as_real(beta, "beta")
    n_trials = as_positive_int(n_trials, "n_trials")
    rng = as_generator(rng)
    if readout not in READOUTS:
        raise ValueError(f"readout must be one of {READOUTS}; got {readout!r}.")
    return d, beta, n_trials, rng


def retrieval_accuracy(
    n_pairs: int, d: int, beta: float, n_trials: int, rng: np.random.Generator, readout: str = "softmax"
) -> float:
    """Success rate of associative retrieval from n_pairs stored (key, value) pairs (AR07/b2).

    Each trial stores n_pairs random unit keys and random unit values in R^d, queries with one
    stored key (chosen uniformly) and succeeds when the read-out is closest in cosine to that
    key's value among all stored values. readout="softmax" uses f(x) = Vᵀ softmax(β K x),
    readout="linear" uses f(x) = Vᵀ K x (beta unused). Trials are drawn in chunks of memories:
    keys, then values, then the queried indices. Returns a float in [0, 1].
    """
    n_pairs = as_positive_int(n_pairs, "n_pairs")
    d, beta, n_trials, rng = _retrieval_setting(d, beta, n_trials, rng, readout)
    return _retrieval_successes((n_pairs,), d, beta, n_trials, rng, readout)[0] / n_trials


def retrieval_accuracies(
    n_pairs_each: tuple[int, ...], d: int, beta: float, n_trials: int, rng: np.random.Generator,
    readout: str = "softmax",
) -> list[float]:
    """``retrieval_accuracy`` for each number of stored pairs in ``n_pairs_each``, from common draws.

    Every trial stores max(n_pairs_each) random pairs; the rate for n pairs queries one of the first n
    and compares the read-out with their n values. Each rate is an n_trials-trial estimate with the
    variance of ``retrieval_accuracy``'s; eight neighbouring entries cost about twice the largest
    alone, since drawing the memories is most of the work. With one entry it is
    ``[retrieval_accuracy(...)]``, draw for draw.
    Returns floats in [0, 1], in the order of ``n_pairs_each``.
    """
    n_pairs_each = tuple(as_positive_int(n, "n_pairs") for n in n_pairs_each)
    if not n_pairs_each:
        raise ValueError("n_pairs_each must name at least one number of stored pairs.")
    d, beta, n_trials, rng = _retrieval_setting(d, beta, n_trials, rng, readout)
    return [s / n_trials for s in _retrieval_successes(n_pairs_each, d, beta, n_trials, rng, readout)]


#: Largest number of stored pairs ``retrieval_capacity`` tries unless told otherwise.
DEFAULT_MAX_PAIRS = 4096


def capacity_search(
    d: int, beta: float, n_trials: int, rng: np.random.Generator, readout: str = "softmax",
    threshold: float = 0.9, max_pairs: int = DEFAULT_MAX_PAIRS,
) -> tuple[int, dict[int, float]]:
    """The search behind ``retrieval_capacity``: (capacity, {n_pairs: measured accuracy} in search order).

    Accuracy falls as more pairs share the memory, so the search gallops, then bisects. Each
    measurement is one ``retrieval_accuracy(n_pairs, d, beta, n_trials, rng, readout)`` call with
    fresh trials from ``rng``:
    1. n_pairs = 1, 2, 4, ... (the last step capped at max_pairs) while the accuracy reaches threshold;
    2. if max_pairs reaches it, the capacity is max_pairs (the true capacity may be larger);
    3. otherwise bisect between the last n_pairs that reached the threshold and the first that did
       not, until they are neighbours; the capacity is the one that reached it.
    Every returned capacity c < max_pairs was measured at or above the threshold and c + 1 below it.
    """
    d, beta, n_trials, rng = _retrieval_setting(d, beta, n_trials, rng, readout)
    threshold = as_real(threshold, "threshold", minimum=0.0, strict=True)
    if threshold > 1.0:
        raise ValueError(f"threshold must lie in (0, 1], as an accuracy does; got {threshold}.")
    max_pairs = as_positive_int(max_pairs, "max_pairs")

    measured: dict[int, float] = {}

    def reaches(n_pairs: int) -> bool:
        measured[n_pairs] = retrieval_accuracy(n_pairs, d, beta, n_trials, rng, readout=readout)
        return measured[n_pairs] >= threshold

    # One pair is always retrieved (accuracy 1 >= threshold), so the gallop starts from a success.
    n_pairs = 1
    while reaches(n_pairs):
        if n_pairs == max_pairs:
            return max_pairs, measured
        passed, n_pairs = n_pairs, min(2 * n_pairs, max_pairs)
    failed = n_pairs
    while failed - passed > 1:
        middle = (passed + failed) // 2
        if reaches(middle):
            passed = middle
        else:
            failed = middle
    return passed, measured


def retrieval_capacity(
    d: int, beta: float, n_trials: int, rng: np.random.Generator, readout: str = "softmax",
    threshold: float = 0.9, max_pairs: int = DEFAULT_MAX_PAIRS,
) -> int:
    """Capacity of a read-out (AR07/b2): the largest n_pairs <= max_pairs retrieved with accuracy >= threshold.

    d: key and value dimension; beta: sharpness of the softmax read-out (unused by "linear");
    n_trials: trials per measured accuracy; rng: numpy Generator; readout: "softmax" or "linear";
    threshold: accuracy to reach, in (0, 1]; max_pairs: the largest n_pairs tried.
    Returns a Python int in [1, max_pairs]; max_pairs means "at least max_pairs". The search is
    ``capacity_search``'s gallop-then-bisect, one ``retrieval_accuracy`` call per tried n_pairs.
    """
    return capacity_search(d, beta, n_trials, rng, readout, threshold, max_pairs)[0]


def equivalent_beta(d_k: int) -> float:
    """β matching the 1/sqrt(d_k) scaling when q and k have length sqrt(d_k).

    q·k / sqrt(d_k) = |q||k| cos / sqrt(d_k) = sqrt(d_k) · cos, so β = d_k / sqrt(d_k) = sqrt(d_k).
    """
    return float(d_k / unit_variance_scale(d_k))


def ab_exponentials(s_a: float, s_b: float, beta: float) -> np.ndarray:
    """[exp(β·s_A), exp(β·s_B)] of the two-key example (AR07/b0)."""
    return exp_weights([s_a, s_b], beta)


def ab_ratio(s_a: float, s_b: float, beta: float) -> float:
    """B's weight relative to A's after exponentiation: exp(β(s_B - s_A)) (AR07/b1)."""
    return relative_weight(s_a, s_b, beta)


def ab_weights(s_a: float, s_b: float, beta: float) -> np.ndarray:
    """The allocated weights [w_A, w_B]: the exponentials over their sum (AR07/b1)."""
    exponentials = ab_exponentials(s_a, s_b, beta)
    return exponentials / exponentials.sum()


#: The AR07 example: target A scores 1.0, the other entry B scores 0.6, sharpness β = 4.
AB_SCORES = (LESSON_NUMBERS["answer_ab_exp"]["s_a"], LESSON_NUMBERS["answer_ab_exp"]["s_b"])
AB_BETA = LESSON_NUMBERS["answer_ab_exp"]["beta"]

#: [exp(4·1), exp(4·0.6)] = [54.598150, 11.023176].
answer_ab_exp = ab_exponentials(*AB_SCORES, AB_BETA)

#: B relative to A after exponentiation: exp(-1.6) = 0.2018965.
answer_ab_ratio = ab_ratio(*AB_SCORES, AB_BETA)

#: The normaliser exp(4) + exp(2.4) = 65.621326 (AR07/b1).
ab_normaliser = float(answer_ab_exp.sum())

#: The allocated weights [0.832018385, 0.167981615].
answer_ab_weights = ab_weights(*AB_SCORES, AB_BETA)

#: β that corresponds to dividing by sqrt(64) when |q| = |k| = sqrt(64): 8.0.
answer_beta_equiv = equivalent_beta(LESSON_NUMBERS["answer_beta_equiv"]["d_k"])
