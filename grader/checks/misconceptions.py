"""The one registry of known wrong answers: check name -> the misconceptions its feedback can name.

Grading reads it (each check module passes ``wrong_answers("<name>")`` to its :class:`Check`) and
so do the tests (every entry must fail its check and be named; every entry's feedback must be free
of answers). A wrong *function* is a variant from ``solutions.misconceptions`` (the mathematics of
the mistake, same signature as the API function); a wrong *quiz value* is a function of the item's numbers (the student's ``my_numbers[item]``) giving the
wrong value for those numbers.

Wording rules (tested by ``grader_tests/checks/test_feedback_is_answer_free.py``): each explanation names
the mistake and its consequence in plain words, for a student who will reread the lesson section
given; it never states a quiz item's expected value, nor an expression or a one-step instruction
("take its square root", "divide by 8") that yields it.
"""
from __future__ import annotations

import numpy as np

import solutions
from grader.checks.api import Misconception
from solutions import misconceptions as variant
from solutions.quiz import quiz_answer
from solutions.saturation import option_letter
from solutions.variants import LESSON_NUMBERS


def _quiz(item: str, numbers):
    return quiz_answer(item, numbers)


def _rounded(item: str, printed: np.ndarray):
    """The wrong value "typed the rounded numbers": the lesson's printed values for the lesson's numbers,
    else the student's own weights rounded to 3 decimals."""
    def rounded(numbers):
        if numbers == LESSON_NUMBERS[item]:
            return printed
        return np.round(quiz_answer(item, numbers), 3)
    return rounded


_ROUNDED = ("you typed the lesson's rounded numbers; the answer is graded to a relative 1e-6, so let your "
            "own function compute every digit")

KNOWN_WRONG_ANSWERS: dict[str, tuple[Misconception, ...]] = {
    # ---- 01_variance ---------------------------------------------------------------------------
    "coin_dot_products": (
        Misconception("distinct values only", "you listed each distinct value of q·k once, but the coin model has "
                      "2**d equally likely outcomes and middle values occur many times, so mean and variance "
                      "need every outcome", "L3 §7", variant.coin_distinct_values),
    ),
    "mean_and_variance": (
        Misconception("sample variance (ddof=1)", "you divided by n - 1 (the sample variance, ddof=1), but the "
                      "values are the whole population, so the variance divides by n (ddof=0)", "L3 §7",
                      variant.mean_and_variance_sample),
        Misconception("standard deviation instead of variance", "the second number you returned is the standard "
                      "deviation (np.std), not the variance", "L3 §7", variant.mean_and_standard_deviation),
    ),
    "expansion_counts": (
        Misconception("unordered pairs", "you counted each pair {i, j} once, but (q·k)² holds both "
                      "q_i k_i·q_j k_j and q_j k_j·q_i k_i, so every pair of different indices gives two cross "
                      "terms", "Blog 方差证明", variant.expansion_counts_unordered_pairs),
        Misconception("squares counted as cross terms", "you counted every product as a cross term, but the "
                      "squares q_i² k_i² (i = j) are the diagonal terms", "Blog 方差证明",
                      variant.expansion_counts_all_cross),
    ),
    "dot_variance_theory": (
        Misconception("one component variance", "you multiplied d_k by a single component variance, but each "
                      "product q_i k_i involves one component of q and one of k, and both variances matter",
                      "L3 §7", variant.dot_variance_theory_component_variance_once),
        Misconception("standard deviation instead of variance", "the number you returned is the standard "
                      "deviation σ of q·k; the function asks for its variance", "L3 §2",
                      variant.dot_standard_deviation_theory),
    ),
    "dot_variance_mc": (
        Misconception("standard deviation instead of variance", "your estimate is the standard deviation of the "
                      "samples (np.std) rather than their variance (np.var), so it grows like sqrt(d_k) instead "
                      "of d_k", "L3 §1", variant.dot_variance_mc_reports_std),
        Misconception("variance passed as scale", "you passed a variance as the scale of rng.normal, which is a "
                      "standard deviation, so the components have the wrong variance", "L3 §2",
                      variant.dot_variance_mc_variance_as_scale),
    ),
    "answer_std_ratio": (
        Misconception("variance ratio", "your number compares the variances of q·k at the two sizes; the question "
                      "asks how its standard deviation σ changes, and σ does not grow like the variance",
                      "L3 §1", lambda n: n["d_k_large"] / n["d_k_small"]),
    ),
    "answer_var_component4": (
        Misconception("variance 4 counted once", "your number lets the component variance act on only one "
                      "side of each product q_i k_i; reread how the variance of a product of two independent "
                      "zero-mean components is built", "L3 §7",
                      lambda n: n["d_k"] * n["component_variance"]),
        Misconception("unit components", "your number is the variance for unit-variance components; here every "
                      "component of q and of k has that variance, which changes the variance of every product",
                      "L3 §7", lambda n: float(n["d_k"])),
        Misconception("variance taken as a standard deviation", "your number treats the component variance as "
                      "a standard deviation and squares it once more, "
                      "so every product q_i k_i gets a variance far larger than its two components give it; reread "
                      "what a component's variance already measures", "L3 §7",
                      lambda n: float(n["d_k"] * n["component_variance"] ** 4)),
    ),
    "answer_sigma_divide_dk": (
        Misconception("dividing by d_k normalises", "dividing by d_k does not give unit spread: only a divisor "
                      "equal to σ(q·k) does, and d_k is not σ(q·k)", "L3 §7", lambda n: 1.0),
        Misconception("unscaled sigma", "your number is σ of the raw scores q·k, before any division; the "
                      "question asks about the scores after dividing by d_k", "L3 §7", lambda n: float(np.sqrt(n["d_k"]))),
        Misconception("variance instead of sigma", "your number measures the spread of q·k / d_k in squared "
                      "units (a variance), not as the standard deviation σ the question asks for", "L3 §7",
                      lambda n: 1.0 / n["d_k"]),
    ),
    # ---- 02_softmax ----------------------------------------------------------------------------
    "softmax": (
        Misconception("no max subtraction", "your weights equal softmax without subtracting the maximum: exp of "
                      "a large logit overflows to inf (and of a very negative one underflows to 0), so the "
                      "division gives nan", "L3 §3", variant.softmax_without_max_subtraction),
        Misconception("wrong axis", "your softmax normalises over the first axis, so in a batch each column "
                      "sums to one instead of each row (each query's weights over its keys)", "L3 §3",
                      variant.softmax_over_first_axis),
        Misconception("sums without keepdims", "you divided by sums taken without keepdims=True, so "
                      "broadcasting divides along the wrong axis; it runs only on square input", "L3 §3",
                      variant.softmax_without_keepdims),
        Misconception("maximum of the whole array", "you subtracted the maximum of the whole array instead of "
                      "each row's, so a row far below it underflows to 0/0 = nan", "L3 §3",
                      variant.softmax_global_max),
    ),
    "entropy": (
        Misconception("entropy in bits", "your entropy is in bits (log base 2); the lesson measures it in nats, "
                      "with the natural log", "L3 §3", variant.entropy_in_bits),
        Misconception("0·log 0 not handled", "a zero probability makes p·log p = 0·(-inf) = nan; by convention "
                      "0·log 0 = 0, so zero entries must contribute nothing", "L3 §3", variant.entropy_nan_at_zero),
        Misconception("missing minus sign", "you returned the sum of p·log p, which is never positive; entropy "
                      "carries a minus sign", "L3 §3", variant.entropy_without_minus),
    ),
    "saturation_experiment": (
        Misconception("scale ignored", "your scores are never divided by scale, so every run looks like the "
                      "unscaled one; dividing by the scale is what brings the weights back from saturation",
                      "L3 §5", variant.saturation_unscaled),
        Misconception("gap before scaling", "your gap is measured on the raw scores; the contract asks for the "
                      "top1 - top2 gap after dividing by scale, the gap softmax actually sees", "L3 §4",
                      variant.saturation_gap_before_scaling),
    ),
    "score_gradient": (
        Misconception("flipped sign", "your gradient has the opposite sign: it is the gradient of +log p, which "
                      "points uphill in the loss -log p", "L3 §4", variant.score_gradient_flipped_sign),
        Misconception("scores instead of probabilities", "you subtracted the one-hot target from the raw scores; "
                      "the gradient uses the probabilities softmax(s)", "L3 §4",
                      variant.score_gradient_without_softmax),
        Misconception("no max subtraction", "your softmax does not subtract the maximum, so large scores overflow "
                      "and the gradient is nan", "L3 §3", variant.score_gradient_without_max_subtraction),
    ),
    "unit_variance_scale": (
        Misconception("divide by d_k", "you divide by d_k, which is Var(q·k); the divisor has to match the "
                      "spread σ(q·k), not the variance, or the scores shrink far below unit spread", "L3 §7",
                      variant.scale_d_k),
        Misconception("multiplier instead of divisor", "you returned the factor to multiply q·k by; the "
                      "contract asks for the divisor c in q·k / c", "L3 §5", variant.scale_reciprocal),
    ),
    "answer_worked_example": (
        Misconception("rounded lesson values", _ROUNDED, "L3 §3",
                      _rounded("answer_worked_example", np.array([0.90, 0.041, 0.003, 0.055]))),
    ),
    "answer_weights_unscaled": (
        Misconception("scaled weights", "these are the weights after scaling the scores; this answer asks for "
                      "the weights of the unscaled scores", "Blog",
                      lambda n: _quiz("answer_weights_scaled", n)),
        Misconception("rounded lesson values", _ROUNDED, "Blog",
                      _rounded("answer_weights_unscaled", np.array([0.867, 0.016, 0.117]))),
    ),
    "answer_weights_scaled": (
        Misconception("divided by d_k", "your weights come from scores divided by d_k, which flattens them too "
                      "much; reread which divisor gives unit-variance scores", "L3 §5",
                      lambda n: solutions.softmax(np.asarray(n["scores"]) / n["d_k"])),
        Misconception("unscaled weights", "these are the weights of the raw scores; this answer asks for the "
                      "weights after the scaling of L3 §5", "Blog",
                      lambda n: solutions.softmax(n["scores"])),
        Misconception("rounded lesson values", _ROUNDED, "Blog",
                      _rounded("answer_weights_scaled", np.array([0.419, 0.254, 0.326]))),
    ),
    "answer_culprit": (
        Misconception("vanishing gradient", "the gradient p - y does not vanish at σ = 8: on the rows the model "
                      "gets wrong, ‖p - y‖ stays close to its largest possible value", "L3 §4",
                      lambda n: option_letter(n["options"], "vanish")),
        Misconception("overflow", "a stable softmax does not overflow at σ = 8 (the scores are only tens), so "
                      "nothing becomes nan", "L3 §3", lambda n: option_letter(n["options"], "overflow")),
        Misconception("values", "the spread of the scores does not change V at all, so V cannot be what goes "
                      "wrong at σ = 8", "L3 §4", lambda n: option_letter(n["options"], "values")),
    ),
    # ---- 03_readout ----------------------------------------------------------------------------
    "exp_weights": (
        Misconception("beta left out", "your weights equal exp(s): without the sharpness β the exponentials "
                      "stretch score differences far less", "AR07/b0", variant.exp_weights_without_beta),
        Misconception("beta as a temperature", "your weights equal exp(s / β): dividing by β flattens the scores "
                      "where multiplying by the sharpness β should stretch them", "AR07/b0",
                      variant.exp_weights_beta_as_temperature),
    ),
    "relative_weight": (
        Misconception("ratio before exponentiating", "your value is the raw score ratio s_other / s_target: the "
                      "scores were never exponentiated, so the weights keep the flat ratio of the scores",
                      "AR07/b1", variant.relative_weight_without_exponent),
        Misconception("ratio inverted", "your value is the target relative to the other entry, the reverse of "
                      "the weight the function asks for", "AR07/b1", variant.relative_weight_inverted),
        Misconception("beta left out", "your value leaves the sharpness β out, so the exponential does not "
                      "stretch the score difference", "AR07/b1", variant.relative_weight_without_beta),
    ),
    "normalize_rows": (
        Misconception("columns instead of rows", "your columns have unit length, not your rows: the norm was taken "
                      "over axis 0 instead of axis 1", "AM13", variant.normalize_columns),
        Misconception("divided by the sum", "your rows are divided by the sum of their absolute entries, so their "
                      "Euclidean length is below one", "AM13", variant.normalize_rows_by_abs_sum),
    ),
    "softmax_readout": (
        Misconception("beta left out", "your read-out leaves the sharpness β out of the scores, so the weights "
                      "stay nearly uniform over the keys", "AM13", variant.softmax_readout_without_beta),
        Misconception("not normalised", "your weights are exponentials that were never divided by their sum, so "
                      "they do not allocate one unit of weight among the keys", "AR07/b1",
                      variant.softmax_readout_unnormalised),
    ),
    "answer_ab_exp": (
        Misconception("beta left out", "your values leave the sharpness β out of the exponentials", "AR07/b0",
                      lambda n: np.exp(np.array([n["s_a"], n["s_b"]]))),
    ),
    "answer_ab_ratio": (
        Misconception("ratio before exponentiating", "your number is the ratio of the raw scores; the question "
                      "asks for the ratio of the weights after exponentiating, and exponentials stretch ratios",
                      "AR07/b1", lambda n: n["s_b"] / n["s_a"]),
        Misconception("ratio inverted", "your number compares the weights the other way round (A relative to B); "
                      "reread which entry the question puts on top", "AR07/b1",
                      lambda n: 1.0 / _quiz("answer_ab_ratio", n)),
    ),
    "answer_ab_weights": (
        Misconception("normalised before exponentiating", "your weights normalise the raw scores directly, "
                      "skipping the exponentials that stretch their ratio", "AR07/b1",
                      lambda n: np.array([n["s_a"], n["s_b"]]) / (n["s_a"] + n["s_b"])),
        Misconception("beta left out", "your weights leave the sharpness β out, so they stay close to even",
                      "AR07/b1", lambda n: solutions.softmax(np.array([n["s_a"], n["s_b"]]))),
    ),
    "answer_beta_equiv": (
        Misconception("beta = d_k", "your number is d_k itself; reread how the lengths of q and k and the "
                      "divisor combine into the factor in front of the cosine", "AM13", lambda n: float(n["d_k"])),
        Misconception("the divisor, not beta", "your number is the factor applied to the raw scores q·k; β "
                      "multiplies the cosine of unit vectors instead", "AM13",
                      lambda n: 1.0 / np.sqrt(n["d_k"])),
    ),
    # ---- 04_attention --------------------------------------------------------------------------
    "scaled_dot_product_attention": (
        Misconception("divided by d_k", "your weights come from scores divided by d_k: that shrinks the score "
                      "spread far below 1, so the weights come out too flat", "L3 §5",
                      variant.attention_divided_by_d_k),
        Misconception("no scaling", "your weights come from unscaled scores, whose spread grows with d_k, so the "
                      "softmax saturates onto one key", "L3 §5", variant.attention_unscaled),
        Misconception("fully masked row made uniform", "your fully masked row gets uniform weights: filling "
                      "masked scores with a large negative number lets a row with no allowed key attend to all of "
                      "them, where the contract asks for zero weights and a zero output", "04 Part 1, masks (course extension)",
                      variant.attention_fully_masked_row_uniform),
        Misconception("masked after softmax", "your masked weights were zeroed after softmax without "
                      "renormalising, so each row's allowed weights no longer sum to one", "04 Part 1, masks (course extension)",
                      variant.attention_masked_after_softmax),
    ),
    "causal_mask": (
        Misconception("off by one", "your mask is False on the diagonal: a causal mask lets each position attend "
                      "to itself as well as to the earlier ones", "04 Part 2 (course extension)", variant.causal_mask_strictly_lower),
        Misconception("future instead of past", "your mask is True above the diagonal, letting each position "
                      "attend to later positions and hiding the earlier ones", "04 Part 2 (course extension)", variant.causal_mask_upper),
    ),
    "multi_head_attention": (
        Misconception("heads scaled by sqrt(d_model)", "your heads divide their scores by √d_model instead of "
                      "their own √d_head, which shrinks each head's score spread below 1 and flattens its "
                      "weights", "L3 §5, per head (04 Part 3)", variant.multi_head_attention_scaled_by_d_model),
        Misconception("heads not scaled", "your heads use raw scores, not divided by √d_head, so their softmax "
                      "saturates as d_head grows", "L3 §5", variant.multi_head_attention_unscaled),
        Misconception("no output projection", "your output is the concatenated heads without the final "
                      "multiplication by W_o", "04 Part 3 (course extension)", variant.multi_head_attention_without_output_projection),
    ),
    "answer_init_std": (
        Misconception("variance instead of standard deviation", "your number is a variance of the weights, "
                      "while init_std is a standard deviation (the `scale` of rng.normal)", "L3 §1–2 and the Blog's 方差证明 (04 Part 4)",
                      lambda n: 1.0 / n["d_model"]),
        Misconception("normalised by d_k", "your number is set by d_k; reread which dimension the sum inside "
                      "each projected component runs over", "L3 §1–2 and the Blog's 方差证明 (04 Part 4)",
                      lambda n: 1.0 / np.sqrt(n["d_k"])),
    ),
}


def wrong_answers(check_name: str) -> tuple[Misconception, ...]:
    """The known wrong answers of ``check_name`` (empty when none are registered)."""
    return KNOWN_WRONG_ANSWERS.get(check_name, ())
