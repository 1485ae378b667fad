# Parts 1 and 2 done in the student's own vectorised style, the rest left as released.
# base: blank
# kind: partial
# %% coin_dot_products
def coin_dot_products(d):
    """All 2**d values of q·k in the coin model."""
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1 or d > 20:
        raise ValueError("d must be an integer from 1 to 20")
    signs = np.array(np.meshgrid(*[[1.0, -1.0]] * d, indexing="ij")).reshape(d, -1)  # [d, 2**d]
    return signs.sum(axis=0)
# %% mean_and_variance
def mean_and_variance(values):
    """Population mean and variance."""
    values = np.asarray(values, dtype=float)
    if values.size == 0 or not np.isfinite(values).all():
        raise ValueError("values must be a non-empty array of finite numbers")
    return float(np.mean(values)), float(np.var(values))
# %% expansion_counts
def expansion_counts(d):
    """Diagonal and cross terms of (q·k)²."""
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
        raise ValueError("d must be a positive integer")
    return int(d), int(d) ** 2 - int(d)
