# Misconception: the heads are not scaled by their own sqrt(d_head) but by sqrt(d_model) of the whole input.
# base: model
# kind: misconception
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """Multi-head self-attention."""
    X = np.asarray(X, dtype=float)
    d_model = X.shape[-1]
    W_q, W_k, W_v, W_o = (np.asarray(W, dtype=float) for W in (W_q, W_k, W_v, W_o))
    if d_model % n_heads:
        raise ValueError("n_heads must divide d_model")
    d_head = d_model // n_heads
    heads, all_weights = [], []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = X @ W_q[:, cols], X @ W_k[:, cols], X @ W_v[:, cols]
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model)  # the width of X
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        heads.append(weights @ v)
        all_weights.append(weights)
    return np.concatenate(heads, axis=-1) @ W_o, np.stack(all_weights, axis=-3)
