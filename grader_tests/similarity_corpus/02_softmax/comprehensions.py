# An independent correct solution in plain Python: lists and comprehensions over the rows of the
# last axis (the axis is moved there first), math instead of numpy inside the rows.
# base: blank
# kind: correct
# %% softmax
import math


def softmax(x, axis=-1):
    """Row by row with lists; the result is reshaped back."""
    data = np.asarray(x, dtype=float)
    if data.ndim == 0 or data.size == 0 or not np.isfinite(data).all():
        raise ValueError("x must be a non-empty array of finite numbers")
    last = np.moveaxis(data, axis, -1)
    rows = last.reshape(-1, last.shape[-1]).tolist()
    result = []
    for row in rows:
        biggest = max(row)
        terms = [math.exp(value - biggest) for value in row]
        norm = math.fsum(terms)
        result.append([term / norm for term in terms])
    return np.moveaxis(np.array(result).reshape(last.shape), -1, axis)
# %% answer_worked_example
answer_worked_example = softmax([3.2, 0.1, -2.5, 0.4])
# %% answer_weights_unscaled
answer_weights_unscaled = softmax([14, 10, 12])
# %% answer_weights_scaled
answer_weights_scaled = softmax([value / 8 for value in (14, 10, 12)])
# %% entropy
def entropy(p, axis=-1):
    """Entropy row by row, skipping zeros."""
    data = np.asarray(p, dtype=float)
    if data.ndim == 0 or data.size == 0 or not np.isfinite(data).all() or (data < 0).any():
        raise ValueError("p must be a non-empty array of non-negative numbers")
    last = np.moveaxis(data, axis, -1)
    rows = last.reshape(-1, last.shape[-1]).tolist()
    if any(abs(math.fsum(row) - 1.0) > 1e-6 for row in rows):
        raise ValueError("p must sum to one along axis")
    values = [-math.fsum(value * math.log(value) for value in row if value > 0) for row in rows]
    if data.ndim == 1:
        return values[0]
    return np.array(values).reshape(last.shape[:-1])
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Trial by trial with lists."""
    if min(d_k, n_trials) < 1 or n_keys < 2 or not scale > 0:
        raise ValueError("need d_k, n_trials >= 1, n_keys >= 2 and scale > 0")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    tops, ents, gaps = [], [], []
    for _ in range(n_trials):
        query = rng.standard_normal(d_k)
        scores = [float(np.dot(rng.standard_normal(d_k), query)) / scale for _ in range(n_keys)]
        weights = softmax(scores)
        tops.append(float(max(weights)))
        ents.append(entropy(weights))
        high, second = sorted(scores, reverse=True)[:2]
        gaps.append(high - second)
    return {"max_weight": math.fsum(tops) / n_trials, "entropy": math.fsum(ents) / n_trials,
            "gap": math.fsum(gaps) / n_trials}
# %% score_gradient
def score_gradient(scores, target):
    """p - y with a one-hot list per row."""
    probs = softmax(scores)
    labels = np.asarray(target)
    if labels.dtype.kind not in "iu" or labels.shape != probs.shape[:-1]:
        raise ValueError("target must be integers, one per row of scores")
    n = probs.shape[-1]
    flat = probs.reshape(-1, n).tolist()
    out = []
    for row, label in zip(flat, labels.reshape(-1).tolist()):
        if not 0 <= label < n:
            raise ValueError("target out of range")
        out.append([value - (1.0 if j == label else 0.0) for j, value in enumerate(row)])
    return np.array(out).reshape(probs.shape)
# %% answer_culprit
answer_culprit = "B"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """math.sqrt(d_k)."""
    if isinstance(d_k, bool) or d_k != int(d_k) or d_k < 1:
        raise ValueError("d_k must be a positive integer")
    return math.sqrt(d_k)
