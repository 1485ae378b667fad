# Fault: the solution cell raises (a misspelt name) before it reaches the function definition.
# base: model
# kind: fault
# %% mean_and_variance
print("coin model, d = 2:", mean_and_varience([2, 0, 0, -2]))


def mean_and_variance(values):
    """Population mean and variance (ddof=0)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0 or not np.all(np.isfinite(values)):
        raise ValueError("values must be a non-empty array of finite numbers")
    return float(values.mean()), float(values.var())
