# Fault: the read-out uses a name that is never defined (a typo), so every call raises NameError.
# base: model
# kind: fault
# %% softmax_readout
def softmax_readout(K, V, x, beta):
    """f(x) = V^T softmax(beta K x)."""
    K, V, x = (np.asarray(a, dtype=float) for a in (K, V, x))
    if K.ndim != 2 or V.shape[0] != K.shape[0] or x.shape != (K.shape[1],):
        raise ValueError("K, V and x have incompatible shapes")
    scores = betta * (K @ x)
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return V.T @ weights, weights
