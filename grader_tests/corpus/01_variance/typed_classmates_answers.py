# Copied answers: the three quick answers typed from a classmate's notebook (the student loops_float32),
# whose numbers are not this student's, so none of them fits.
# base: model
# kind: misconception
# %% answer_std_ratio
answer_std_ratio = 2.8284271247461903
# %% answer_var_component4
answer_var_component4 = 1152.0
# %% answer_sigma_divide_dk
answer_sigma_divide_dk = 0.2
