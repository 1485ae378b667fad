# Fault: a correct solution that prints a debugging line for every trial and a huge table in its cell.
# base: model
# kind: fault
# %% saturation_experiment
def saturation_experiment(d_k, n_keys, n_trials, scale, rng):
    """Mean saturation of softmax over random keys, printing every trial."""
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
    top_two = np.sort(scores, axis=-1)[:, -2:]
    for trial in range(n_trials):
        print(f"trial {trial}: max weight {weights[trial].max():.4f}, gap {top_two[trial, 1] - top_two[trial, 0]:.4f}")
    return {
        "max_weight": float(weights.max(axis=-1).mean()),
        "entropy": float(np.mean(entropy(weights))),
        "gap": float(np.mean(top_two[:, 1] - top_two[:, 0])),
    }


for row in range(20_000):
    print(f"row {row}: {np.sin(row):+.6f}")
