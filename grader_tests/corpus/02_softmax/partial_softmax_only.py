# Parts 1 and 2 done and a wrong guess at the culprit (the gradient vanishes); the rest left as released.
# base: blank
# kind: partial
# %% softmax
def softmax(x, axis=-1):
    """Stable softmax."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a non-empty array of finite numbers")
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
# %% answer_worked_example
answer_worked_example = softmax(np.array([3.2, 0.1, -2.5, 0.4]))
# %% answer_weights_unscaled
answer_weights_unscaled = softmax(np.array([14.0, 10.0, 12.0]))
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.array([14.0, 10.0, 12.0]) / 8)
# %% answer_culprit
answer_culprit = "A"
