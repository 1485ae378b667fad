# Misconception: the "scaled" weights of the Blog's example are computed from the raw, unscaled scores.
# base: model
# kind: misconception
# %% answer_weights_scaled
answer_weights_scaled = softmax(np.array(my_numbers["answer_weights_scaled"]["scores"]))  # the scores as they come
