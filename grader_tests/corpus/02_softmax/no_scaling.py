# Misconception: the "scaled" weights of the Blog's example are computed from the raw, unscaled scores.
# base: model
# kind: misconception
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.array([14.0, 10.0, 12.0]))  # the scores as they come
