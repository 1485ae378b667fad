"""Reference numerics for the course: the lessons' mathematics, imported by the grader only.

Every function and quiz answer of the student API of the four assignments is importable from
here (``from solutions import softmax, answer_culprit``); each assignment's checks file,
``source/<id>/checks.py``, lists its student API. The known wrong implementations live in
``solutions.misconceptions``; ``python -m solutions.repro`` recomputes the lessons' claims.
"""
from solutions.attention import (
    answer_init_std,
    causal_mask,
    multi_head_attention,
    projected_score_variance,
    projected_score_variance_theory,
    scaled_dot_product_attention,
)
from solutions.readout import (
    AB_BETA,
    AB_SCORES,
    DEFAULT_MAX_PAIRS,
    ab_normaliser,
    answer_ab_exp,
    answer_ab_ratio,
    answer_ab_weights,
    answer_beta_equiv,
    capacity_search,
    equivalent_beta,
    exp_weights,
    normalize_rows,
    relative_weight,
    retrieval_accuracy,
    retrieval_capacity,
    softmax_readout,
)
from solutions.saturation import (
    CULPRIT_CHOICES,
    answer_culprit,
    answer_weights_scaled,
    answer_weights_unscaled,
    answer_worked_example,
    entropy,
    gradient_residual_trials,
    saturation_experiment,
    saturation_trials,
    score_gradient,
    softmax,
    unit_variance_scale,
)
from solutions.variance import (
    answer_sigma_divide_dk,
    answer_std_ratio,
    answer_var_component4,
    coin_dot_products,
    dot_product_samples,
    dot_variance_mc,
    dot_variance_theory,
    expansion_counts,
    mean_and_variance,
)

__all__ = [
    "AB_BETA", "AB_SCORES", "CULPRIT_CHOICES", "DEFAULT_MAX_PAIRS", "ab_normaliser", "answer_ab_exp",
    "answer_ab_ratio", "answer_ab_weights", "answer_beta_equiv", "answer_culprit", "answer_init_std",
    "answer_sigma_divide_dk", "answer_std_ratio", "answer_var_component4", "answer_weights_scaled",
    "answer_weights_unscaled", "answer_worked_example", "capacity_search", "causal_mask", "coin_dot_products",
    "dot_product_samples", "dot_variance_mc", "dot_variance_theory", "entropy", "equivalent_beta",
    "exp_weights", "expansion_counts", "gradient_residual_trials", "mean_and_variance",
    "multi_head_attention", "normalize_rows", "projected_score_variance", "projected_score_variance_theory",
    "relative_weight", "retrieval_accuracy", "retrieval_capacity", "saturation_experiment",
    "saturation_trials", "scaled_dot_product_attention", "score_gradient", "softmax", "softmax_readout",
    "unit_variance_scale",
]
