# An independent correct solution built from small helpers of its own (validation, reshaping),
# apply_along_axis for softmax, and explicit one-hot rows for the gradient.
# base: blank
# kind: correct
# %% softmax
def require_positive_int(name, value, least=1):
    """Raise ValueError unless value is an int (not a bool) >= least."""
    if type(value) is bool or not float(value).is_integer() or value < least:
        raise ValueError(f"{name}: expected an integer >= {least}, got {value!r}")
    return int(value)


def as_real_array(name, values):
    """A finite float64 array with at least one entry and one axis."""
    result = np.array(values, dtype=float)
    if result.shape == () or result.size == 0:
        raise ValueError(f"{name}: expected a non-empty array")
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{name}: expected finite values")
    return result


def stable_softmax_1d(row):
    """Softmax of one row."""
    centred = row - row.max()
    powers = np.exp(centred)
    return powers / powers.sum()


def softmax(x, axis=-1):
    """apply_along_axis of the one-row softmax."""
    data = as_real_array("x", x)
    return np.apply_along_axis(stable_softmax_1d, axis, data)
# %% answer_worked_example
answer_worked_example = softmax([3.2, 0.1, -2.5, 0.4])
# %% answer_weights_unscaled
answer_weights_unscaled = softmax([14.0, 10.0, 12.0])
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.divide([14.0, 10.0, 12.0], 8))
# %% entropy
def entropy_1d(row):
    """Entropy of one distribution."""
    if abs(row.sum() - 1.0) > 1e-6:
        raise ValueError("p: a slice does not sum to one")
    nonzero = row[row > 0]
    return float(-np.dot(nonzero, np.log(nonzero)))


def entropy(p, axis=-1):
    """apply_along_axis of the one-row entropy."""
    data = as_real_array("p", p)
    if np.any(data < 0):
        raise ValueError("p: expected non-negative probabilities")
    values = np.apply_along_axis(entropy_1d, axis, data)
    return float(values) if data.ndim == 1 else values
# %% saturation_experiment
def one_trial(d_k, n_keys, scale, rng):
    """(max weight, entropy, gap) of one random query against n_keys keys."""
    query = rng.standard_normal(d_k)
    keys = rng.standard_normal((n_keys, d_k))
    logits = keys.dot(query) / scale
    weights = softmax(logits)
    first, second = np.sort(logits)[::-1][:2]
    return weights.max(), entropy(weights), first - second


def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Means of one_trial over n_trials trials."""
    d_k = require_positive_int("d_k", d_k)
    n_keys = require_positive_int("n_keys", n_keys, least=2)
    n_trials = require_positive_int("n_trials", n_trials)
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale: expected a positive number, got {scale!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng: expected a numpy.random.Generator")
    trials = np.array([one_trial(d_k, n_keys, scale, rng) for _ in range(n_trials)])
    means = trials.mean(axis=0)
    return {"max_weight": float(means[0]), "entropy": float(means[1]), "gap": float(means[2])}
# %% score_gradient
def score_gradient(scores, target):
    """softmax minus the one-hot rows of target."""
    probabilities = softmax(scores)
    classes = np.array(target)
    if not np.issubdtype(classes.dtype, np.integer):
        raise ValueError("target: expected integer class indices")
    if classes.shape != probabilities.shape[:-1]:
        raise ValueError("target: expected one index per row of scores")
    width = probabilities.shape[-1]
    if ((classes < 0) | (classes >= width)).any():
        raise ValueError(f"target: indices must lie in [0, {width})")
    one_hot_rows = np.eye(width)[classes]
    return probabilities - one_hot_rows
# %% answer_culprit
answer_culprit = "B"
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """sqrt(d_k) as a float."""
    return float(np.sqrt(require_positive_int("d_k", d_k)))
