# Misconception: Var(q·k) with component variance v answered as v·d_k instead of v·v·d_k.
# base: model
# kind: misconception
# %% answer_var_component4
numbers = my_numbers["answer_var_component4"]
answer_var_component4 = numbers["component_variance"] * numbers["d_k"]  # each term has variance v
