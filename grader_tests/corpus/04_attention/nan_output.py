# Fault: masked scores are set to -inf before a max-subtracting softmax, so a fully masked row becomes
# (-inf) - (-inf) = nan and its weights and output are nan.
# base: model
# kind: fault
# %% scaled_dot_product_attention
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    if K.shape[-1] != Q.shape[-1]:
        raise ValueError("K must have the same width d_k as Q")
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
