# Parts 1 and 2 done and a wrong guess at the culprit (the gradient vanishes); the rest left as released.
# base: blank
# kind: partial
# %% softmax
def softmax(x, axis=-1):
    """Stable softmax."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a non-empty array of finite numbers")
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
# %% answer_worked_example
answer_worked_example = softmax(np.array(my_numbers["answer_worked_example"]["scores"]))
# %% answer_weights_unscaled
answer_weights_unscaled = softmax(np.array(my_numbers["answer_weights_unscaled"]["scores"]))
# %% answer_weights_scaled
numbers = my_numbers["answer_weights_scaled"]
answer_weights_scaled = softmax(np.array(numbers["scores"]) / np.sqrt(numbers["d_k"]))
# %% answer_culprit
answer_culprit = "ABCD"[my_numbers["answer_culprit"]["options"].index("the gradient p - y vanishes")]
