# Misconception: entropy measured in bits (log base 2) where the lesson uses nats.
# Its saturation_experiment computes the entropy of the weights inline, so only `entropy` is wrong.
# base: model
# kind: misconception
# %% entropy
def entropy(p, axis=-1):
    """Entropy of p along `axis`, with 0·log 0 = 0."""
    p = np.asarray(p, dtype=float)
    if p.ndim == 0 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("p must be a non-empty array of non-negative probabilities")
    if np.any(np.abs(p.sum(axis=axis) - 1) > 1e-6):
        raise ValueError("p must sum to one")
    terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    h = -terms.sum(axis=axis)
    return float(h) if np.ndim(h) == 0 else h
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Mean largest weight, entropy (nats) and top-two gap of softmax(q·k / scale) over random keys."""
    for name, value, smallest in (("d_k", d_k, 1), ("n_keys", n_keys, 2), ("n_trials", n_trials, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < smallest:
            raise ValueError(f"{name} must be an integer >= {smallest}; got {value!r}")
    if isinstance(scale, bool) or not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a positive number; got {scale!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    q = rng.standard_normal((n_trials, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    scores = np.einsum("tkd,td->tk", keys, q) / scale
    weights = softmax(scores)
    nats = -np.sum(weights * np.log(np.where(weights > 0, weights, 1.0)), axis=-1)
    top_two = np.sort(scores, axis=-1)[:, -2:]
    return {"max_weight": float(weights.max(axis=-1).mean()), "entropy": float(nats.mean()),
            "gap": float(np.mean(top_two[:, 1] - top_two[:, 0]))}
