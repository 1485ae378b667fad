# Parts 1 and 2 done in the student's own style; the rest left as released.
# base: blank
# kind: partial
# %% exp_weights
def exp_weights(scores, beta):
    """exp(beta * scores)."""
    scores = np.asarray(scores, dtype=float)
    if not np.all(np.isfinite(scores)) or not np.isfinite(beta):
        raise ValueError("scores and beta must be finite")
    w = np.exp(beta * scores)
    return float(w) if w.ndim == 0 else w
# %% relative_weight
def relative_weight(s_target, s_other, beta):
    """exp(beta * (s_other - s_target))."""
    s_target = np.asarray(s_target, dtype=float)
    s_other = np.asarray(s_other, dtype=float)
    try:
        diff = s_other - s_target
    except ValueError:
        raise ValueError("s_target and s_other must broadcast") from None
    w = np.exp(beta * diff)
    return float(w) if w.ndim == 0 else w
# %% answer_ab_exp
ab = my_numbers["answer_ab_exp"]
answer_ab_exp = exp_weights([ab["s_a"], ab["s_b"]], ab["beta"])
# %% answer_ab_ratio
answer_ab_ratio = relative_weight(ab["s_a"], ab["s_b"], ab["beta"])
# %% answer_ab_weights
answer_ab_weights = answer_ab_exp / answer_ab_exp.sum()
