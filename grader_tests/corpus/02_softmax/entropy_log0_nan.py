# Misconception: entropy as -sum(p * log p) without the convention 0·log 0 = 0; a zero probability gives nan.
# base: model
# kind: misconception
# %% entropy
def entropy(p, axis=-1):
    """Entropy of p in nats along `axis`."""
    p = np.asarray(p, dtype=float)
    if p.ndim == 0 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("p must be a non-empty array of non-negative probabilities")
    if np.any(np.abs(p.sum(axis=axis) - 1) > 1e-6):
        raise ValueError("p must sum to one")
    h = -np.sum(p * np.log(p), axis=axis)
    return float(h) if np.ndim(h) == 0 else h
