# Misconception: the B/A ratio taken on the raw scores (0.6) instead of after exponentiating.
# The model answer's answer_ab_ratio calls this relative_weight, so the quiz answer is 0.6 too.
# base: model
# kind: misconception
# %% relative_weight
def relative_weight(s_target, s_other, beta):
    """How much weight the other entry gets relative to the target."""
    s_target = np.asarray(s_target, dtype=float)
    s_other = np.asarray(s_other, dtype=float)
    if not np.all(np.isfinite(s_target)) or not np.all(np.isfinite(s_other)) or not np.isfinite(beta):
        raise ValueError("s_target, s_other and beta must be finite")
    try:
        ratio = s_other / s_target
    except ValueError:
        raise ValueError("s_target and s_other must broadcast together") from None
    return float(ratio) if ratio.ndim == 0 else ratio
