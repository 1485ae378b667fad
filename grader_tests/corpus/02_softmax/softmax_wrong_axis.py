# Misconception: softmax normalised over the first axis (over queries instead of keys).
# The model answer's saturation_experiment and score_gradient call this softmax and inherit the mistake.
# base: model
# kind: misconception
# %% softmax
def softmax(x, axis=-1):
    """Stable softmax."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or x.size == 0:
        raise ValueError("x must be a non-empty array")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
