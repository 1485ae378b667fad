# Copies only two cells of comprehensions (softmax and entropy, renamed, with comments and a moved
# statement) and writes the rest itself, vectorised.
# copied from: comprehensions
# base: blank
# kind: correct
# %% softmax
import math


def softmax(x, axis=-1):
    """Softmax with lists."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0 or arr.size == 0 or not np.isfinite(arr).all():
        raise ValueError("x must be a non-empty array of finite numbers")
    moved = np.moveaxis(arr, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1]).tolist()
    out = []
    for line in lines:
        mx = max(line)  # for stability
        ex = [math.exp(v - mx) for v in line]
        tot = math.fsum(ex)
        out.append([e / tot for e in ex])
    return np.moveaxis(np.array(out).reshape(moved.shape), -1, axis)
# %% answer_worked_example
answer_worked_example = softmax(np.array([3.2, 0.1, -2.5, 0.4]))
# %% answer_weights_unscaled
answer_weights_unscaled = softmax(np.array([14.0, 10.0, 12.0]))
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.array([14.0, 10.0, 12.0]) / np.sqrt(64))
# %% entropy
def entropy(p, axis=-1):
    """Entropy, zeros skipped."""
    arr = np.asarray(p, dtype=float)
    if arr.ndim == 0 or arr.size == 0 or not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("p must be a non-empty array of non-negative numbers")
    moved = np.moveaxis(arr, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1]).tolist()
    if any(abs(math.fsum(line) - 1.0) > 1e-6 for line in lines):
        raise ValueError("p must sum to one along axis")
    # 0 * log 0 is taken as 0
    hs = [-math.fsum(v * math.log(v) for v in line if v > 0) for line in lines]
    if arr.ndim == 1:
        return hs[0]
    return np.array(hs).reshape(moved.shape[:-1])
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Vectorised over trials."""
    if d_k < 1 or n_trials < 1 or n_keys < 2 or scale <= 0 or not isinstance(rng, np.random.Generator):
        raise ValueError("bad arguments")
    q = rng.standard_normal((n_trials, d_k))
    k = rng.standard_normal((n_trials, n_keys, d_k))
    s = np.einsum("tnd,td->tn", k, q) / scale
    w = softmax(s, axis=-1)
    top = np.sort(s, axis=-1)
    return {"max_weight": float(np.mean(w.max(-1))), "entropy": float(np.mean(entropy(w, axis=-1))),
            "gap": float(np.mean(top[:, -1] - top[:, -2]))}
# %% score_gradient
def score_gradient(scores, target):
    """p minus one-hot."""
    p = softmax(scores)
    t = np.asarray(target)
    if t.dtype.kind not in "iu" or t.shape != p.shape[:-1] or (t < 0).any() or (t >= p.shape[-1]).any():
        raise ValueError("bad target")
    return p - (np.arange(p.shape[-1]) == t[..., None])
# %% answer_culprit
answer_culprit = "B"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """sqrt."""
    if isinstance(d_k, bool) or d_k < 1 or int(d_k) != d_k:
        raise ValueError("d_k must be a positive integer")
    return float(np.sqrt(d_k))
