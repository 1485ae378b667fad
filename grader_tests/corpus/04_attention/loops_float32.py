# An independent correct solution: loops over the batch, the rows and the heads, its own names,
# float32 converted first, no library softmax.
# base: blank
# kind: correct
# %% scaled_dot_product_attention
import math


def _allowed_softmax(logits, allowed):
    """Softmax of one row over its allowed entries; an all-masked row gets zero weights."""
    picked = [z for z, ok in zip(logits, allowed) if ok]
    if not picked:
        return np.zeros(len(logits))
    top = max(picked)
    exps = [math.exp(z - top) if ok else 0.0 for z, ok in zip(logits, allowed)]
    total = sum(exps)
    return np.array([e / total for e in exps])


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V, one batch entry and one query row at a time."""
    queries, keys, vals = (np.array(a, dtype=np.float64) for a in (Q, K, V))
    if min(queries.ndim, keys.ndim, vals.ndim) < 2:
        raise ValueError("Q, K and V need at least two axes")
    if keys.shape[-1] != queries.shape[-1]:
        raise ValueError("K must be as wide as Q (the same d_k)")
    if vals.shape[-2] != keys.shape[-2]:
        raise ValueError("V must have one row per key")
    n_q, width = queries.shape[-2:]
    n_k, d_v = vals.shape[-2:]
    batch = np.broadcast_shapes(queries.shape[:-2], keys.shape[:-2], vals.shape[:-2])
    queries = np.broadcast_to(queries, batch + (n_q, width))
    keys = np.broadcast_to(keys, batch + (n_k, width))
    vals = np.broadcast_to(vals, batch + (n_k, d_v))
    if mask is None:
        allowed = np.ones(batch + (n_q, n_k), dtype=bool)
    else:
        if np.asarray(mask).dtype != bool:
            raise ValueError("mask must be boolean")
        allowed = np.broadcast_to(mask, batch + (n_q, n_k))
    out = np.zeros(batch + (n_q, d_v))
    attn = np.zeros(batch + (n_q, n_k))
    for b in np.ndindex(*batch):
        for i in range(n_q):
            logits = [float(queries[b][i] @ keys[b][j]) / math.sqrt(width) for j in range(n_k)]
            attn[b][i] = _allowed_softmax(logits, allowed[b][i])
            for j in range(n_k):
                out[b][i] += attn[b][i][j] * vals[b][j]
    return out, attn
# %% causal_mask
def causal_mask(n):
    """True where key position j <= query position i."""
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return np.array([[j <= i for j in range(int(n))] for i in range(int(n))], dtype=bool)
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """Each head attends on its own slice of the projections, scaled by its own sqrt(d_head)."""
    tokens = np.array(X, dtype=np.float64)
    width = tokens.shape[-1]
    mats = [np.array(W, dtype=np.float64) for W in (W_q, W_k, W_v, W_o)]
    if any(W.shape != (width, width) for W in mats):
        raise ValueError("every weight matrix must be d_model x d_model")
    if isinstance(n_heads, bool) or int(n_heads) != n_heads or n_heads < 1 or width % n_heads:
        raise ValueError(f"n_heads must be a positive divisor of d_model = {width}, got {n_heads!r}")
    size = width // int(n_heads)
    outputs, weights = [], []
    for h in range(int(n_heads)):
        cols = slice(h * size, (h + 1) * size)
        out, attn = scaled_dot_product_attention(tokens @ mats[0][:, cols], tokens @ mats[1][:, cols],
                                                 tokens @ mats[2][:, cols], mask=mask)
        outputs.append(out)
        weights.append(attn)
    return np.concatenate(outputs, axis=-1) @ mats[3], np.stack(weights, axis=-3)
# %% projected_score_variance
def projected_score_variance(d_model, d_k, init_std, n_samples, rng):
    """Variance of raw scores over n_samples pairs (x, x'), one initialisation, pair by pair."""
    for label, count in (("d_model", d_model), ("d_k", d_k), ("n_samples", n_samples)):
        if isinstance(count, bool) or int(count) != count or count < 1:
            raise ValueError(f"{label} must be a positive integer, got {count!r}")
    if not (math.isfinite(init_std) and init_std >= 0):
        raise ValueError("init_std must be a finite number >= 0")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    project_q = init_std * rng.standard_normal((d_model, d_k))
    project_k = init_std * rng.standard_normal((d_model, d_k))
    scores = []
    for _ in range(int(n_samples)):
        left, right = rng.standard_normal(d_model), rng.standard_normal(d_model)
        scores.append(float((left @ project_q) @ (right @ project_k)))
    centre = sum(scores) / len(scores)
    return sum((s - centre) ** 2 for s in scores) / len(scores)
# %% answer_init_std
answer_init_std = my_numbers["answer_init_std"]["d_model"] ** -0.5
