# An independent correct solution: vectorised, softmax through log-sum-exp, entropy with np.where,
# the gradient through put_along_axis, one matrix product for every trial.
# base: blank
# kind: correct
# %% softmax
def _finite_array(values, label):
    """values as a float64 array with at least one axis and only finite entries."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{label} must be numeric") from None
    if array.ndim < 1 or array.size < 1:
        raise ValueError(f"{label} needs at least one axis and one entry")
    if np.isnan(array).any() or np.isinf(array).any():
        raise ValueError(f"{label} must not hold nan or inf")
    return array


def softmax(x, axis=-1):
    """exp(x - logsumexp(x)) along axis."""
    logits = _finite_array(x, "x")
    peak = np.amax(logits, axis=axis, keepdims=True)
    with np.errstate(over="ignore"):
        log_norm = peak + np.log(np.sum(np.exp(logits - peak), axis=axis, keepdims=True))
    return np.exp(logits - log_norm)
# %% answer_worked_example
answer_worked_example = softmax(np.array([3.2, 0.1, -2.5, 0.4]))
# %% answer_weights_unscaled
answer_weights_unscaled = softmax(np.array([14.0, 10.0, 12.0]))
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.array([14.0, 10.0, 12.0]) / 8.0)
# %% entropy
def entropy(p, axis=-1):
    """-sum p log p with 0 log 0 = 0."""
    probs = _finite_array(p, "p")
    if probs.min() < 0:
        raise ValueError("p must be non-negative")
    totals = probs.sum(axis=axis)
    if not np.all(np.isclose(totals, 1.0, rtol=0.0, atol=1e-6)):
        raise ValueError("every slice of p must sum to one")
    safe = np.where(probs > 0, probs, 1.0)
    h = -(probs * np.log(safe)).sum(axis=axis)
    return h.item() if h.ndim == 0 else h
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """All trials at once: queries [t, d], keys [t, n, d]."""
    checks = {"d_k": (d_k, 1), "n_keys": (n_keys, 2), "n_trials": (n_trials, 1)}
    for label, (value, minimum) in checks.items():
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
            raise ValueError(f"{label} must be an integer of at least {minimum}")
    if not np.isscalar(scale) or not np.isfinite(scale) or not scale > 0:
        raise ValueError("scale must be a positive finite number")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    queries = rng.standard_normal((n_trials, 1, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    scores = np.squeeze(queries @ np.swapaxes(keys, -1, -2), axis=1) / scale
    weights = softmax(scores)
    best_two = np.partition(scores, n_keys - 2, axis=-1)[:, -2:]
    return {"max_weight": float(np.mean(np.amax(weights, axis=-1))),
            "entropy": float(np.mean(entropy(weights))),
            "gap": float(np.mean(best_two.max(axis=-1) - best_two.min(axis=-1)))}
# %% score_gradient
def score_gradient(scores, target):
    """softmax(scores) with one subtracted at each target."""
    grad = softmax(scores).copy()
    index = np.asarray(target)
    if not np.issubdtype(index.dtype, np.integer):
        raise ValueError("target must be an integer index")
    if index.shape != grad.shape[:-1]:
        raise ValueError("target must match the leading shape of scores")
    if index.size and (index.min() < 0 or index.max() >= grad.shape[-1]):
        raise ValueError("target is out of range")
    picked = np.expand_dims(index, -1)
    np.put_along_axis(grad, picked, np.take_along_axis(grad, picked, axis=-1) - 1.0, axis=-1)
    return grad
# %% answer_culprit
answer_culprit = "B"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """sqrt(d_k)."""
    if not isinstance(d_k, (int, np.integer)) or isinstance(d_k, bool) or d_k <= 0:
        raise ValueError("d_k must be a positive integer")
    return float(d_k) ** 0.5
