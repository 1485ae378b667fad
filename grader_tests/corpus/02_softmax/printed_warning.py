# Fault: a correct softmax that prints a warning to stderr, called on large logits in its own cell.
# base: model
# kind: fault
# %% softmax
import sys


def softmax(x, axis=-1):
    """Stable softmax that complains about large logits."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a non-empty array of finite numbers")
    if np.abs(x).max() > 100:
        print("Warning: large logits; subtracting the maximum to avoid overflow", file=sys.stderr)
    shifted = x - x.max(axis=axis, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=axis, keepdims=True)


print("naive exp(1000) =", np.exp(np.float64(1000)))  # RuntimeWarning: overflow, printed to stderr
print("stable softmax:", softmax([1000.0, 0.0]))
