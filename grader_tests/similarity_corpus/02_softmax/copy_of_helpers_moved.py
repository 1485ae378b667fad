# A copy of helper_functions with its helpers renamed and defined in another order, the checks of
# saturation_experiment moved, docstrings rewritten and comments added.
# copied from: helper_functions
# base: blank
# kind: correct
# %% softmax
def to_array(label, v):
    """Finite float array."""
    out = np.array(v, dtype=float)
    if out.shape == () or out.size == 0:
        raise ValueError(f"{label}: expected a non-empty array")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{label}: expected finite values")
    return out


def row_softmax(r):
    """One row."""
    c = r - r.max()  # largest entry becomes 0
    pw = np.exp(c)
    return pw / pw.sum()


def check_int(label, v, least=1):
    """Integer check."""
    if type(v) is bool or not float(v).is_integer() or v < least:
        raise ValueError(f"{label}: expected an integer >= {least}, got {v!r}")
    return int(v)


def softmax(x, axis=-1):
    """Softmax along axis."""
    arr = to_array("x", x)
    return np.apply_along_axis(row_softmax, axis, arr)
# %% answer_worked_example
answer_worked_example = softmax([3.2, 0.1, -2.5, 0.4])
# %% answer_weights_unscaled
answer_weights_unscaled = softmax([14.0, 10.0, 12.0])
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.divide([14.0, 10.0, 12.0], 8))
# %% entropy
def row_entropy(r):
    """One row."""
    if abs(r.sum() - 1.0) > 1e-6:
        raise ValueError("p: a slice does not sum to one")
    nz = r[r > 0]  # 0 log 0 = 0
    return float(-np.dot(nz, np.log(nz)))


def entropy(p, axis=-1):
    """Entropy along axis."""
    arr = to_array("p", p)
    if np.any(arr < 0):
        raise ValueError("p: expected non-negative probabilities")
    h = np.apply_along_axis(row_entropy, axis, arr)
    return float(h) if arr.ndim == 1 else h
# %% saturation_experiment
def trial(d_k, n_keys, scale, rng):
    """One trial."""
    q = rng.standard_normal(d_k)
    k = rng.standard_normal((n_keys, d_k))
    s = k.dot(q) / scale
    w = softmax(s)
    a, b = np.sort(s)[::-1][:2]
    return w.max(), entropy(w), a - b


def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Average over trials."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng: expected a numpy.random.Generator")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale: expected a positive number, got {scale!r}")
    n_trials = check_int("n_trials", n_trials)
    d_k = check_int("d_k", d_k)
    n_keys = check_int("n_keys", n_keys, least=2)
    res = np.array([trial(d_k, n_keys, scale, rng) for _ in range(n_trials)])
    avg = res.mean(axis=0)
    return {"max_weight": float(avg[0]), "entropy": float(avg[1]), "gap": float(avg[2])}
# %% score_gradient
def score_gradient(scores, target):
    """Gradient."""
    sm = softmax(scores)
    t = np.array(target)
    if not np.issubdtype(t.dtype, np.integer):
        raise ValueError("target: expected integer class indices")
    if t.shape != sm.shape[:-1]:
        raise ValueError("target: expected one index per row of scores")
    n = sm.shape[-1]
    if ((t < 0) | (t >= n)).any():
        raise ValueError(f"target: indices must lie in [0, {n})")
    return sm - np.eye(n)[t]
# %% answer_culprit
answer_culprit = "B"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """sqrt(d_k)."""
    return float(np.sqrt(check_int("d_k", d_k)))
