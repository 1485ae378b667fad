# The A/B answers and β worked out for the lesson's numbers (s_A = 1.0, s_B = 0.6, β = 4, d_k = 64) and
# typed in, instead of computed from this student's own numbers (my_numbers).
# base: model
# kind: misconception
# %% answer_ab_exp
answer_ab_exp = np.array([54.598150033144236, 11.023176380641601])
# %% answer_ab_ratio
answer_ab_ratio = 0.20189651799465538
# %% answer_ab_weights
answer_ab_weights = np.array([0.832018385133924, 0.16798161486607552])
# %% answer_beta_equiv
answer_beta_equiv = 8.0
