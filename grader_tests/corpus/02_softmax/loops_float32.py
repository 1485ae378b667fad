# An independent correct solution: explicit loops over slices, its own names, float32 converted first,
# no library softmax.
# base: blank
# kind: correct
# %% softmax
import math


def _rows_along(array, axis):
    """The array with `axis` moved last and flattened to rows [m, n], and how to undo that."""
    moved = np.moveaxis(array, axis, -1)
    return moved.reshape(-1, moved.shape[-1]), lambda rows: np.moveaxis(rows.reshape(moved.shape), -1, axis)


def softmax(x, axis=-1):
    """Stable softmax along `axis`, one slice at a time."""
    logits = np.array(x, dtype=np.float64)  # float32 and lists become float64
    if logits.ndim == 0 or logits.size == 0:
        raise ValueError("x must be a non-empty array with at least one dimension")
    if not np.isfinite(logits).all():
        raise ValueError("x must hold finite numbers only")
    rows, restore = _rows_along(logits, axis)
    result = np.empty_like(rows)
    for r, row in enumerate(rows):
        peak = max(row)
        exps = [math.exp(value - peak) for value in row]  # every exponent <= 0: no overflow
        normaliser = sum(exps)
        for c, e in enumerate(exps):
            result[r, c] = e / normaliser
    return restore(result)
# %% answer_worked_example
answer_worked_example = softmax(my_numbers["answer_worked_example"]["scores"])
# %% answer_weights_unscaled
answer_weights_unscaled = softmax(my_numbers["answer_weights_unscaled"]["scores"])
# %% answer_weights_scaled
root = math.sqrt(my_numbers["answer_weights_scaled"]["d_k"])
answer_weights_scaled = softmax([s / root for s in my_numbers["answer_weights_scaled"]["scores"]])
# %% entropy
def entropy(p, axis=-1):
    """Entropy in nats along `axis`, skipping zero probabilities (0·log 0 = 0)."""
    probabilities = np.array(p, dtype=np.float64)
    if probabilities.ndim == 0 or probabilities.size == 0:
        raise ValueError("p must be a non-empty array")
    if not np.isfinite(probabilities).all() or (probabilities < 0).any():
        raise ValueError("p must hold finite, non-negative probabilities")
    rows, _ = _rows_along(probabilities, axis)
    values = []
    for row in rows:
        if abs(sum(row) - 1.0) > 1e-6:
            raise ValueError("each distribution in p must sum to one")
        values.append(-sum(q * math.log(q) for q in row if q > 0))
    shape = probabilities.shape[:axis % probabilities.ndim] + probabilities.shape[axis % probabilities.ndim + 1:]
    if not shape:
        return float(values[0])
    return np.array(values).reshape(shape)
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Mean largest weight, entropy and top-two gap of softmax(q·k / scale), trial by trial."""
    for label, count, least in (("d_k", d_k, 1), ("n_keys", n_keys, 2), ("n_trials", n_trials, 1)):
        if isinstance(count, bool) or int(count) != count or count < least:
            raise ValueError(f"{label} must be an integer >= {least}, got {count!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    largest, spread, gaps = [], [], []
    for _ in range(int(n_trials)):
        query = rng.standard_normal(int(d_k))
        keys = rng.standard_normal((int(n_keys), int(d_k)))
        scores = keys @ query / scale
        weights = softmax(scores)
        ordered = sorted(scores)
        largest.append(max(weights))
        spread.append(entropy(weights))
        gaps.append(ordered[-1] - ordered[-2])
    return {"max_weight": float(np.mean(largest)), "entropy": float(np.mean(spread)),
            "gap": float(np.mean(gaps))}
# %% score_gradient
def score_gradient(scores, target):
    """p - y for every row of scores, row by row."""
    probabilities = softmax(scores)
    labels = np.asarray(target)
    if labels.dtype.kind not in "iu":
        raise ValueError("target must hold integer class indices")
    if labels.shape != probabilities.shape[:-1]:
        raise ValueError("target must have one index per row of scores")
    n_classes = probabilities.shape[-1]
    rows = probabilities.reshape(-1, n_classes).copy()
    for row, label in zip(rows, labels.reshape(-1)):
        if not 0 <= label < n_classes:
            raise ValueError(f"target must lie in [0, {n_classes})")
        row[label] -= 1.0
    return rows.reshape(probabilities.shape)
# %% answer_culprit
for letter, option in zip("abcd", my_numbers["answer_culprit"]["options"]):
    if "gap" in option:
        answer_culprit = letter  # lower case is accepted
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """sqrt(d_k): dividing by it turns Var(q·k) = d_k into 1."""
    if isinstance(d_k, bool) or int(d_k) != d_k or d_k < 1:
        raise ValueError(f"d_k must be a positive integer, got {d_k!r}")
    return math.sqrt(d_k)
