# Misconception: the sample variance (ddof=1) where the population variance (ddof=0) was asked.
# base: model
# kind: misconception
# %% mean_and_variance
def mean_and_variance(values):
    """Mean and variance of `values`."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        raise ValueError("values must not be empty")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite")
    return float(np.mean(values)), float(np.var(values, ddof=1))  # the unbiased estimator
