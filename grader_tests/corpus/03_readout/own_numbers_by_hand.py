# A correct student who works every quiz answer out by hand from their own numbers (my_numbers), with
# the math module instead of the functions of Part 1.
# base: model
# kind: correct
# %% answer_ab_exp
import math

ab = my_numbers["answer_ab_exp"]
answer_ab_exp = np.array([math.exp(ab["beta"] * ab["s_a"]), math.exp(ab["beta"] * ab["s_b"])])
# %% answer_ab_ratio
ab = my_numbers["answer_ab_ratio"]
answer_ab_ratio = math.exp(ab["beta"] * ab["s_b"]) / math.exp(ab["beta"] * ab["s_a"])
# %% answer_ab_weights
total = answer_ab_exp[0] + answer_ab_exp[1]
answer_ab_weights = np.array([answer_ab_exp[0] / total, answer_ab_exp[1] / total])
# %% answer_beta_equiv
d_k = my_numbers["answer_beta_equiv"]["d_k"]
answer_beta_equiv = d_k / math.sqrt(d_k)
