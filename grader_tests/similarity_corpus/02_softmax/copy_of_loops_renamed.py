# A copy of loops_float32 disguised the usual way: every variable and the helper renamed, comments
# added, independent statements moved, a long line split and two short ones merged.
# copied from: loops_float32
# base: blank
# kind: correct
# %% softmax
import math


def _to_rows(arr, ax):
    """Rows [m, n] of arr with ax moved last; and the inverse."""
    # move the axis to the end so that every row is one distribution
    moved = np.moveaxis(arr, ax, -1)
    return moved.reshape(-1, moved.shape[-1]), lambda r: np.moveaxis(r.reshape(moved.shape), -1, ax)


def softmax(x, axis=-1):
    """Softmax, computed one row at a time."""
    z = np.array(x, dtype=np.float64)
    if z.ndim == 0 or z.size == 0:
        raise ValueError("x must not be empty")
    if not np.isfinite(z).all():
        raise ValueError("x must be finite")
    blocks, back = _to_rows(z, axis)
    out = np.empty_like(blocks)
    for i, vec in enumerate(blocks):
        top = max(vec)  # subtract the max for stability
        ex = [math.exp(v - top) for v in vec]
        denom = sum(ex)
        for j, term in enumerate(ex):
            out[i, j] = term / denom
    return back(out)
# %% answer_worked_example
answer_worked_example = softmax([3.2, 0.1, -2.5, 0.4])
# %% answer_weights_unscaled
answer_weights_unscaled = softmax([14, 10, 12])
# %% answer_weights_scaled
answer_weights_scaled = softmax([14 / 8, 10 / 8, 12 / 8])
# %% entropy
def entropy(p, axis=-1):
    """Entropy in nats; zero probabilities are skipped."""
    probs = np.array(p, dtype=np.float64)
    if probs.ndim == 0 or probs.size == 0:
        raise ValueError("p must not be empty")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise ValueError("p must be finite and non-negative")
    blocks, _ = _to_rows(probs, axis)
    result = []
    for vec in blocks:
        if abs(sum(vec) - 1.0) > 1e-6:
            raise ValueError("p must sum to 1")
        # 0 log 0 = 0: leave out the zeros
        result.append(-sum(w * math.log(w) for w in vec if w > 0))
    new_shape = probs.shape[:axis % probs.ndim] + probs.shape[axis % probs.ndim + 1:]
    if not new_shape:
        return float(result[0])
    return np.array(result).reshape(new_shape)
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Averages over the trials."""
    for what, num, low in (("d_k", d_k, 1), ("n_keys", n_keys, 2), ("n_trials", n_trials, 1)):
        if isinstance(num, bool) or int(num) != num or num < low:
            raise ValueError(f"{what} must be an integer >= {low}, got {num!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a Generator")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be positive, got {scale!r}")
    maxes, ents, diffs = [], [], []
    for _ in range(int(n_trials)):
        q = rng.standard_normal(int(d_k))
        ks = rng.standard_normal((int(n_keys), int(d_k)))
        s = ks @ q / scale
        w = softmax(s)
        srt = sorted(s)
        maxes.append(max(w)); ents.append(entropy(w))
        diffs.append(srt[-1] - srt[-2])
    return {"max_weight": float(np.mean(maxes)),
            "entropy": float(np.mean(ents)),
            "gap": float(np.mean(diffs))}
# %% score_gradient
def score_gradient(scores, target):
    """Gradient p - y, one row at a time."""
    sm = softmax(scores)
    tgt = np.asarray(target)
    if tgt.dtype.kind not in "iu":
        raise ValueError("target must be integers")
    if tgt.shape != sm.shape[:-1]:
        raise ValueError("one target per row of scores")
    k = sm.shape[-1]
    flat = sm.reshape(-1, k).copy()
    for vec, t in zip(flat, tgt.reshape(-1)):
        if not 0 <= t < k:
            raise ValueError(f"target must be in [0, {k})")
        vec[t] -= 1.0  # subtract the one-hot
    return flat.reshape(sm.shape)
# %% answer_culprit
answer_culprit = "b"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """The square root of d_k."""
    if isinstance(d_k, bool) or int(d_k) != d_k or d_k < 1:
        raise ValueError(f"d_k must be a positive integer, got {d_k!r}")
    return math.sqrt(d_k)
