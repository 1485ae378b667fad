# Misconception: dividing the scores by d_k instead of sqrt(d_k), in the scale and in the worked answer.
# base: model
# kind: misconception
# %% answer_weights_scaled
numbers = my_numbers["answer_weights_scaled"]
answer_weights_scaled = softmax(np.array(numbers["scores"]) / numbers["d_k"])  # divided by d_k
# %% unit_variance_scale
def unit_variance_scale(d_k):
    """The divisor that normalises the scores."""
    if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or d_k < 1:
        raise ValueError(f"d_k must be a positive integer; got {d_k!r}")
    return float(d_k)
