"""Reference numerics for the course: the lessons' mathematics, imported by the grader only.

Every function and quiz answer of the student API of the four assignments is importable from
here (``from solutions import softmax, answer_culprit``). The known wrong variants live in
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

#: The student API of each assignment, in notebook order: functions, then quiz answers.
STUDENT_API = {
    "01_variance": (
        "coin_dot_products", "mean_and_variance", "expansion_counts", "dot_variance_theory",
        "dot_variance_mc", "answer_std_ratio", "answer_var_component4", "answer_sigma_divide_dk",
    ),
    "02_softmax": (
        "softmax", "entropy", "saturation_experiment", "score_gradient", "unit_variance_scale",
        "answer_weights_unscaled", "answer_weights_scaled", "answer_worked_example", "answer_culprit",
    ),
    "03_readout": (
        "exp_weights", "relative_weight", "normalize_rows", "softmax_readout", "retrieval_accuracy",
        "retrieval_capacity", "answer_ab_exp", "answer_ab_ratio", "answer_ab_weights", "answer_beta_equiv",
    ),
    "04_attention": (
        "scaled_dot_product_attention", "causal_mask", "multi_head_attention",
        "projected_score_variance", "answer_init_std",
    ),
}

__all__ = sorted(
    {name for names in STUDENT_API.values() for name in names}
    | {
        "AB_BETA", "AB_SCORES", "CULPRIT_CHOICES", "STUDENT_API", "ab_normaliser", "dot_product_samples",
        "equivalent_beta", "gradient_residual_trials", "projected_score_variance_theory",
        "DEFAULT_MAX_PAIRS", "capacity_search", "saturation_trials",
    }
)
