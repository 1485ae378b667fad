# An independent correct solution: explicit loops, its own names, float32 converted first, no library softmax.
# base: blank
# kind: correct
# %% exp_weights
import math


def exp_weights(scores, beta):
    """exp(beta * s) for every score, one entry at a time."""
    grid = np.array(scores, dtype=np.float64)  # float32, lists and plain floats become float64
    sharpness = float(beta)
    if not (np.isfinite(grid).all() and math.isfinite(sharpness)):
        raise ValueError("scores and beta must be finite")
    flat = [math.exp(sharpness * s) for s in grid.ravel()]  # OverflowError is not expected for these inputs
    if grid.ndim == 0:
        return flat[0]
    return np.array(flat).reshape(grid.shape)
# %% relative_weight
def relative_weight(s_target, s_other, beta):
    """exp(beta * (s_other - s_target)), pair by pair over the broadcast shape."""
    target = np.array(s_target, dtype=np.float64)
    other = np.array(s_other, dtype=np.float64)
    if not (np.isfinite(target).all() and np.isfinite(other).all() and math.isfinite(beta)):
        raise ValueError("s_target, s_other and beta must be finite")
    try:
        pairs = np.broadcast(target, other)
    except ValueError:
        raise ValueError("s_target and s_other do not broadcast together") from None
    ratios = [math.exp(beta * (o - t)) for t, o in pairs]
    if pairs.shape == ():
        return ratios[0]
    return np.array(ratios).reshape(pairs.shape)
# %% answer_ab_exp
ab = my_numbers["answer_ab_exp"]
answer_ab_exp = np.array([math.exp(ab["beta"] * ab["s_a"]), math.exp(ab["beta"] * ab["s_b"])])
# %% answer_ab_ratio
answer_ab_ratio = math.exp(ab["beta"] * (ab["s_b"] - ab["s_a"]))
# %% answer_ab_weights
answer_ab_weights = answer_ab_exp / (answer_ab_exp[0] + answer_ab_exp[1])
# %% normalize_rows
def normalize_rows(X):
    """Each row divided by its length, row by row (divided by its largest entry first, so nothing overflows)."""
    matrix = np.array(X, dtype=np.float64)
    if matrix.ndim != 2 or matrix.size == 0 or not np.isfinite(matrix).all():
        raise ValueError("X must be a non-empty 2-D array of finite numbers")
    unit = np.empty_like(matrix)
    for i, row in enumerate(matrix):
        largest = max(abs(v) for v in row)
        if largest == 0:
            raise ValueError(f"row {i} of X is all zeros and has no direction")
        scaled = row / largest
        unit[i] = scaled / math.sqrt(sum(v * v for v in scaled))
    return unit
# %% softmax_readout
def softmax_readout(K, V, x, beta):
    """V^T softmax(beta K x) with explicit sums."""
    keys, vals, query = (np.array(a, dtype=np.float64) for a in (K, V, x))
    if keys.ndim != 2 or vals.ndim != 2 or query.ndim != 1:
        raise ValueError("K and V must be 2-D and x 1-D")
    if len(vals) != len(keys) or len(query) != keys.shape[1]:
        raise ValueError("K, V and x do not fit together: one value per key, x as wide as a key")
    logits = [beta * sum(k_j * x_j for k_j, x_j in zip(key, query)) for key in keys]
    top = max(logits)
    exps = [math.exp(z - top) for z in logits]
    total = sum(exps)
    weights = np.array([e / total for e in exps])
    readout = np.zeros(vals.shape[1])
    for w, value in zip(weights, vals):
        readout += w * value
    return readout, weights
# %% answer_beta_equiv
answer_beta_equiv = math.sqrt(my_numbers["answer_beta_equiv"]["d_k"])  # |q||k| cos / sqrt(d_k) = d_k cos / sqrt(d_k)
# %% retrieval_accuracy
def retrieval_accuracy(n_pairs, d, beta, n_trials, rng, readout="softmax"):
    """Fraction of memories, built one at a time, that return the queried key's value."""
    for label, count in (("n_pairs", n_pairs), ("d", d), ("n_trials", n_trials)):
        if isinstance(count, bool) or int(count) != count or count < 1:
            raise ValueError(f"{label} must be a positive integer, got {count!r}")
    if readout not in ("softmax", "linear"):
        raise ValueError(f"readout must be 'softmax' or 'linear', got {readout!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    hits = 0
    for _ in range(int(n_trials)):
        keys = normalize_rows(rng.standard_normal((n_pairs, d)))
        values = normalize_rows(rng.standard_normal((n_pairs, d)))
        asked = int(rng.integers(n_pairs))
        cosines = keys @ keys[asked]
        if readout == "softmax":
            sharpened = np.exp(beta * (cosines - cosines.max()))
            recalled = values.T @ (sharpened / sharpened.sum())
        else:
            recalled = values.T @ cosines
        hits += int(np.argmax(values @ recalled) == asked)
    return hits / n_trials
# %% retrieval_capacity
def retrieval_capacity(d, beta, n_trials, rng, readout="softmax", threshold=0.9, max_pairs=4096):
    """Double the number of pairs while retrieval succeeds often enough, then halve the gap until it closes."""
    if not (0.0 < float(threshold) <= 1.0):
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    if isinstance(max_pairs, bool) or int(max_pairs) != max_pairs or max_pairs < 1:
        raise ValueError(f"max_pairs must be a positive integer, got {max_pairs!r}")

    def rate(n):  # every trial at once, so the search stays fast
        keys = rng.standard_normal((n_trials, n, d))
        keys /= np.sqrt((keys**2).sum(axis=2, keepdims=True))
        vals = rng.standard_normal((n_trials, n, d))
        vals /= np.sqrt((vals**2).sum(axis=2, keepdims=True))
        asked = rng.integers(0, n, size=n_trials)
        cos = np.matmul(keys, keys[np.arange(n_trials), asked][:, :, None])[:, :, 0]
        if readout == "softmax":
            w = np.exp(beta * (cos - cos.max(axis=1, keepdims=True)))
            w /= w.sum(axis=1, keepdims=True)
        elif readout == "linear":
            w = cos
        else:
            raise ValueError(f"readout must be 'softmax' or 'linear', got {readout!r}")
        recalled = np.matmul(w[:, None, :], vals)[:, 0, :]
        return np.mean(np.matmul(vals, recalled[:, :, None])[:, :, 0].argmax(axis=1) == asked)

    good, bad = 1, None
    while bad is None:
        trying = min(good * 2, max_pairs)
        if trying == good:
            return int(good)
        if rate(trying) >= threshold:
            good = trying
        else:
            bad = trying
    while bad > good + 1:
        middle = (good + bad) // 2
        if rate(middle) >= threshold:
            good = middle
        else:
            bad = middle
    return int(good)
