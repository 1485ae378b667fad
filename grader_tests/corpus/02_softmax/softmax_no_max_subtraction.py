# Misconception: softmax written literally, without subtracting the maximum; large logits overflow to nan.
# The model answer's score_gradient calls this softmax, so it inherits the overflow.
# base: model
# kind: misconception
# %% softmax
def softmax(x, axis=-1):
    """softmax(x) = exp(x) / sum(exp(x)) along `axis`."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or x.size == 0:
        raise ValueError("x must be a non-empty array")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
