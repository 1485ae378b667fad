# Misconception: Var(q·k) with component variance 4 answered as 4·d_k = 256 instead of 4·4·d_k.
# base: model
# kind: misconception
# %% answer_var_component4
answer_var_component4 = 4 * 64  # each of the 64 terms has variance 4
