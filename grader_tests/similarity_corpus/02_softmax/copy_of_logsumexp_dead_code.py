# A copy of logsumexp_vectorised with dead code inserted (an unused helper, unused variables, a
# branch that never runs), lines split and merged, comments, and its names changed.
# copied from: logsumexp_vectorised
# base: blank
# kind: correct
# %% softmax
def _debug(*args):
    """Never called."""
    return None


def _checked(v, name):
    """v as a finite float64 array."""
    try:
        arr = np.asarray(v,
                         dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric") from None
    if arr.ndim < 1 or arr.size < 1:
        raise ValueError(f"{name} needs at least one axis and one entry")
    if np.isnan(arr).any() or np.isinf(arr).any():
        raise ValueError(f"{name} must not hold nan or inf")
    return arr


def softmax(x, axis=-1):
    """Stable softmax."""
    verbose = False
    a = _checked(x, "x")
    m = np.amax(a, axis=axis, keepdims=True)
    if verbose:
        _debug(m)
    with np.errstate(over="ignore"):
        lse = m + np.log(np.sum(np.exp(a - m),
                                axis=axis, keepdims=True))  # log of the normaliser
    return np.exp(a - lse)
# %% answer_worked_example
answer_worked_example = softmax(np.array([3.2, 0.1, -2.5, 0.4]))
# %% answer_weights_unscaled
answer_weights_unscaled = softmax(np.array([14.0, 10.0, 12.0]))
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.array([14.0, 10.0, 12.0]) / 8.0)
# %% entropy
def entropy(p, axis=-1):
    """Entropy in nats."""
    dist = _checked(p, "p")
    if dist.min() < 0: raise ValueError("p must be non-negative")
    s = dist.sum(axis=axis)
    unused = s.shape
    if not np.all(np.isclose(s, 1.0, rtol=0.0, atol=1e-6)):
        raise ValueError("every slice of p must sum to one")
    ok = np.where(dist > 0, dist, 1.0)
    # log(1) = 0 where p = 0
    out = -(dist * np.log(ok)).sum(axis=axis)
    return out.item() if out.ndim == 0 else out
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Every trial in one go."""
    limits = {"d_k": (d_k, 1), "n_keys": (n_keys, 2), "n_trials": (n_trials, 1)}
    for nm, (val, lo) in limits.items():
        if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or val < lo:
            raise ValueError(f"{nm} must be an integer of at least {lo}")
    if not np.isscalar(scale) or not np.isfinite(scale) or not scale > 0:
        raise ValueError("scale must be a positive finite number")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    qs = rng.standard_normal((n_trials, 1, d_k)); ks = rng.standard_normal((n_trials, n_keys, d_k))
    sc = np.squeeze(qs @ np.swapaxes(ks, -1, -2), axis=1) / scale
    w = softmax(sc)
    two = np.partition(sc, n_keys - 2, axis=-1)[:, -2:]
    if False:
        print(two)
    return {"max_weight": float(np.mean(np.amax(w, axis=-1))),
            "entropy": float(np.mean(entropy(w))),
            "gap": float(np.mean(two.max(axis=-1) - two.min(axis=-1)))}
# %% score_gradient
def score_gradient(scores, target):
    """p - onehot(target)."""
    g = softmax(scores).copy()
    idx = np.asarray(target)
    if not np.issubdtype(idx.dtype, np.integer):
        raise ValueError("target must be an integer index")
    if idx.shape != g.shape[:-1]:
        raise ValueError("target must match the leading shape of scores")
    if idx.size and (idx.min() < 0 or idx.max() >= g.shape[-1]):
        raise ValueError("target is out of range")
    col = np.expand_dims(idx, -1)
    np.put_along_axis(g, col, np.take_along_axis(g, col, axis=-1) - 1.0, axis=-1)
    return g
# %% answer_culprit
answer_culprit = "B"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """Square root."""
    if not isinstance(d_k, (int, np.integer)) or isinstance(d_k, bool) or d_k <= 0:
        raise ValueError("d_k must be a positive integer")
    return float(d_k) ** 0.5
