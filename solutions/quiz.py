"""Every quiz answer as a function of its item's numbers (``solutions.variants``).

``quiz_answer("answer_ab_ratio", {"s_a": 1.0, "s_b": 0.6, "beta": 4.0})`` is the reference value of
that item for those numbers; the lesson's numbers give the constants ``solutions.answer_*``.
"""
from __future__ import annotations

from solutions.attention import unit_score_init_std
from solutions.readout import ab_exponentials, ab_ratio, ab_weights, equivalent_beta
from solutions.saturation import culprit_letter, softmax, weights_scaled
from solutions.variance import sigma_divided_by_d_k, std_ratio, variance_with_component_variance
from solutions.variants import LESSON_NUMBERS, numbers_for

#: item -> function of its numbers (keyword arguments named as in ``my_numbers[item]``).
QUIZ_ANSWERS = {
    "answer_std_ratio": std_ratio,
    "answer_var_component4": variance_with_component_variance,
    "answer_sigma_divide_dk": sigma_divided_by_d_k,
    "answer_worked_example": lambda scores: softmax(scores),
    "answer_weights_unscaled": lambda scores, d_k: softmax(scores),  # d_k: for the scaled item of the same example
    "answer_weights_scaled": weights_scaled,
    "answer_culprit": culprit_letter,
    "answer_ab_exp": ab_exponentials,
    "answer_ab_ratio": ab_ratio,
    "answer_ab_weights": ab_weights,
    "answer_beta_equiv": equivalent_beta,
    "answer_init_std": unit_score_init_std,
}


def quiz_answer(item: str, numbers: dict | None = None):
    """The reference answer of ``item`` for ``numbers`` (default: the lesson's)."""
    return QUIZ_ANSWERS[item](**(LESSON_NUMBERS[item] if numbers is None else numbers))


def student_answer(item: str, student: str | None):
    """The reference answer of ``item`` for ``student``'s numbers (the lesson's for None)."""
    return quiz_answer(item, numbers_for(student)[item])
