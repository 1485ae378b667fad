# Misconception: the causal mask is off by one: it hides the diagonal, so no position attends to itself.
# base: model
# kind: misconception
# %% causal_mask
def causal_mask(n):
    """True where a position may attend: the positions before it."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    return np.tril(np.ones((n, n), dtype=bool), k=-1)
