# Parts 1 and 2 done in the student's own style; multi-head attention and the initialisation left as released.
# base: blank
# kind: partial
# %% scaled_dot_product_attention
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    if K.shape[-1] != Q.shape[-1]:
        raise ValueError("K must have the same d_k as Q")
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    allowed = np.ones(scores.shape, dtype=bool) if mask is None else np.broadcast_to(mask, scores.shape)
    peak = np.max(np.where(allowed, scores, -np.inf), axis=-1, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    e = np.where(allowed, np.exp(np.where(allowed, scores - peak, 0.0)), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights @ V, weights
# %% causal_mask
def causal_mask(n):
    """Lower-triangular boolean mask."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError("n must be a positive integer")
    return np.tril(np.ones((n, n), dtype=bool))
