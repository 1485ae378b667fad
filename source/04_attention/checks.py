"""Hidden checks of assignment 04_attention (``attention.ipynb``; L3 §5, the Blog, AM12, course extensions).

Layout and shared helpers: ``grader.checks.common``; found by ``grader.checks.discovery``.
Attention cases cover batches (leading
axes), masks (causal, broadcast padding, a fully masked row), large scores, d_k = 1 and float32
input; ``projected_score_variance`` is stochastic, so its judge compares it with the theory
d_k·(d_model·init_std²)² within the statistical band derived below.
"""
from __future__ import annotations

import numpy as np

import solutions
from grader.checks.api import INACCURATE, Case, Misconception
from grader.checks.common import STANDARD_ERRORS, function_check, judge_estimate, seed_input, value_check
from solutions import misconceptions as mistake
from solutions.quiz import QUIZ_ANSWERS

# ---- cases ------------------------------------------------------------------------------------


def _qkv(rng: np.random.Generator, batch: tuple[int, ...], n_q: int, n_k: int, d_k: int, d_v: int,
         scale: float = 1.0):
    """Gaussian Q [*batch, n_q, d_k], K [*batch, n_k, d_k] (both times ``scale``) and V [*batch, n_k, d_v]."""
    return (scale * rng.standard_normal(batch + (n_q, d_k)),
            scale * rng.standard_normal(batch + (n_k, d_k)),
            rng.standard_normal(batch + (n_k, d_v)))


def _offset_qkv(rng: np.random.Generator, n_q: int, n_k: int, d_k: int, d_v: int):
    """Q, K, V whose scores share a large offset per query (30 · 1000 from the first coordinate) over an
    ordinary spread: exp overflows unless the maximum is subtracted, yet the weights stay far from
    one-hot, so a wrong scaling cannot pass by saturating (d_k >= 2)."""
    Q, K, V = _qkv(rng, (), n_q, n_k, d_k, d_v)
    Q[:, 0] = 30.0
    K[:, 0] = 1000.0
    return Q, K, V


def _attention_cases(rng: np.random.Generator) -> list[Case]:
    n_q, n_k, d_k, d_v = (int(v) for v in rng.integers(2, 7, size=4))
    n = int(rng.integers(4, 8))
    n_k_masked = max(n_k, 3)
    partly_masked = rng.random((n_q, n_k_masked)) < 0.6
    # every row may attend to at least two keys, so its weights depend on the scaling, and misses at least
    # one, so weights zeroed after softmax without renormalising never sum to one (on any draw)
    first_allowed = rng.integers(0, n_k_masked, n_q)
    partly_masked[np.arange(n_q), first_allowed] = True
    partly_masked[np.arange(n_q), (first_allowed + 1) % n_k_masked] = True
    partly_masked[np.arange(n_q), (first_allowed + 2) % n_k_masked] = False
    with_empty_row = partly_masked.copy()
    with_empty_row[int(rng.integers(n_q))] = False
    padding = np.ones((2, 1, n_k), dtype=bool)
    padding[0, 0, int(rng.integers(1, n_k)):] = False  # the first sequence is shorter
    Q, K, V = _qkv(rng, (2,), n_q, n_k, d_k, d_v)
    bad_Q, bad_K, bad_V = _qkv(rng, (), n_q, n_k, d_k, d_v)
    return [
        Case(f"one sequence: {n_q} queries, {n_k} keys, d_k = {d_k}, d_v = {d_v}",
             _qkv(rng, (), n_q, n_k, d_k, d_v)),
        Case("a batch of shape (2, 3) in front of the last two axes", _qkv(rng, (2, 3), n_q, n_k, d_k, d_v)),
        Case("large scores (a common offset of 30000 on every score of a query)",
             _offset_qkv(rng, n_q, n_k, d_k, d_v)),
        Case(f"a causal mask on {n} tokens", _qkv(rng, (), n, n, d_k, d_v), {"mask": np.tril(np.ones((n, n), bool))}),
        Case("a boolean mask with one fully masked row", _qkv(rng, (), n_q, n_k_masked, d_k, d_v),
             {"mask": with_empty_row}),
        Case("a batch of 2 with a padding mask of shape (2, 1, n_k)", (Q, K, V), {"mask": padding}),
        Case("d_k = 1", _qkv(rng, (), n_q, n_k, 1, d_v)),
        Case("float32 inputs", tuple(a.astype(np.float32) for a in _qkv(rng, (), n_q, n_k, d_k, d_v))),
        Case("K whose width differs from the width d_k of Q",
             (bad_Q, np.concatenate([bad_K, bad_K[:, :1]], axis=1), bad_V), weight=0.5, raises="ValueError"),
    ]


def _causal_mask_cases(rng: np.random.Generator) -> list[Case]:
    sizes = sorted(int(v) for v in rng.choice(np.arange(2, 17), size=3, replace=False))
    return ([Case("n = 1", (1,))] + [Case(f"n = {n}", (n,)) for n in sizes]
            + [Case("n = 0", (0,), weight=0.5, raises="ValueError")])


def _weights(rng: np.random.Generator, d_model: int, dtype=np.float64):
    """W_q, W_k, W_v, W_o [d_model, d_model] ~ N(0, 1/d_model)."""
    return tuple((rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)).astype(dtype) for _ in range(4))


def _mha_case(label: str, rng: np.random.Generator, batch: tuple[int, ...], n: int, d_model: int,
              n_heads: int, mask=None, dtype=np.float64, **case) -> Case:
    X = (2.0 * rng.standard_normal(batch + (n, d_model))).astype(dtype)
    kwargs = {} if mask is None else {"mask": mask}
    return Case(label, (X,) + _weights(rng, d_model, dtype) + (n_heads,), kwargs, **case)


def _mha_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 6))
    n_heads = int(rng.choice([2, 3]))
    d_model = n_heads * int(rng.integers(2, 4))
    return [
        _mha_case(f"{n} tokens, d_model = {d_model}, {n_heads} heads", rng, (), n, d_model, n_heads),
        _mha_case("a batch of 2 sequences (leading axis)", rng, (2,), n, d_model, n_heads),
        _mha_case("one head (n_heads = 1)", rng, (), n, d_model, 1),
        _mha_case("heads of width 1 (n_heads = d_model = 4)", rng, (), n, 4, 4),
        _mha_case(f"a causal mask on {n} tokens", rng, (2,), n, d_model, n_heads, mask=np.tril(np.ones((n, n), bool))),
        _mha_case("float32 inputs", rng, (), n, d_model, n_heads, dtype=np.float32),
        _mha_case("d_model = 6 with n_heads = 4", rng, (), n, 6, 4, weight=0.5, raises="ValueError"),
    ]


# ---- projected_score_variance: a statistical judge ---------------------------------------------

def variance_estimate_sd(d_model: int, d_k: int, init_std: float, n_samples: int) -> float:
    """Standard deviation of a correct n_samples estimate of Var(s), s = (x W_q)·(x' W_k).

    Write m = d_model, d = d_k, σ = init_std, μ = d m² σ⁴ (the theory). Two correct designs exist:

    A. fresh weights for every sample: given x, x', the components of x W_q and x' W_k are
       N(0, σ²|x|²) and N(0, σ²|x'|²), so s = σ²|x||x'|·(z·z') with z, z' ~ N(0, I_d). With
       E|x|⁴ = m(m+2) and E(z·z')⁴ = 3d² + 6d: E s⁴ = σ⁸ m²(m+2)²(3d² + 6d), and the mean of n
       values of s² has variance (E s⁴ − μ²)/n.
    B. one initialisation, then n pairs x, x': given M = W_q W_kᵀ, s has variance F = tr S with
       S = M Mᵀ and Var(s² | M) = 2 (tr S)² + 6 tr(S²). Over the Wishart matrices A = W_qᵀW_q and
       B = W_kᵀW_k: Var F = 2σ⁸ m² d (2m + d + 1), E tr(S²) = σ⁸ m² d ((m+1)(m+d+1) + 2 + m d),
       so the estimate has variance (2 E(tr S)² + 6 E tr(S²))/n + Var F.
    (Checked against simulation.) The larger of the two is returned.
    """
    m, d, s2 = float(d_model), float(d_k), float(init_std) ** 2
    mean = d * m * m * s2 * s2
    fourth_moment_a = s2**4 * m * m * (m + 2) ** 2 * (3 * d * d + 6 * d)
    var_a = (fourth_moment_a - mean**2) / n_samples
    var_f = 2 * s2**4 * m * m * d * (2 * m + d + 1)
    trace_s2 = s2**4 * m * m * d * ((m + 1) * (m + d + 1) + 2 + m * d)
    var_b = (2 * (var_f + mean**2) + 6 * trace_s2) / n_samples + var_f
    return float(np.sqrt(max(var_a, var_b)))



def judge_projected_score_variance(case: Case, value):
    """None when ``value`` is within STANDARD_ERRORS standard deviations of the theory; else (stage, detail)."""
    d_model, d_k, init_std, n_samples = case.args[:4]
    theory = solutions.projected_score_variance_theory(d_model, d_k, init_std)
    sd = variance_estimate_sd(d_model, d_k, init_std, n_samples)
    problem = judge_estimate(value, theory, sd, "the variance you returned", n_samples, "samples", minimum=0.0)
    if problem is None or problem[0] != INACCURATE or float(value) < 0:
        return problem
    squared_std = float(init_std) ** 2
    alternatives = (
        ("scores divided by sqrt(d_k); this function measures the unscaled scores", theory / d_k, sd / d_k),
        ("weights drawn with standard deviation init_std² (numpy's `scale` is the standard deviation)",
         solutions.projected_score_variance_theory(d_model, d_k, squared_std),
         variance_estimate_sd(d_model, d_k, squared_std, n_samples)),
    )
    for description, alternative, alternative_sd in alternatives:
        if alternative != theory and abs(float(value) - alternative) <= STANDARD_ERRORS * alternative_sd:
            return INACCURATE, f"{problem[1]} It is consistent with {description}."
    return problem


#: init_std·√d_model of the first variance case: the theory is then 16·c⁴ (168 to 256), whose band
#: (about ±50 %) holds none of the numbers a stub returns (an argument such as d_model, d_k or
#: n_samples, 0 or 1) on any draw.
INIT_STD_FACTORS = (1.8, 1.9, 2.0)


def _variance_cases(rng: np.random.Generator) -> list[Case]:
    d_model = int(rng.choice([48, 64]))
    init_std = round(float(rng.choice(INIT_STD_FACTORS)) / np.sqrt(d_model), 4)
    return [
        Case(f"d_model = {d_model}, d_k = 16, init_std = {init_std}, 2000 samples",
             (d_model, 16, init_std, 2000, seed_input(rng))),
        Case("d_model = 64, d_k = 16, init_std = 1 (unscaled initialisation), 2000 samples",
             (64, 16, 1.0, 2000, seed_input(rng))),
        Case("d_k = 1, d_model = 512, init_std = 0.05, 2000 samples", (512, 1, 0.05, 2000, seed_input(rng))),
        Case("init_std = 0 (all weights zero), 100 samples", (16, 4, 0.0, 100, seed_input(rng))),
        Case("d_k = 0", (16, 0, 0.25, 100, seed_input(rng)), weight=0.5, raises="ValueError"),
    ]


# ---- known wrong answers ------------------------------------------------------------------

#: check name -> the misconceptions its feedback can name: a wrong function is a wrong implementation from
#: ``solutions.misconceptions`` (same signature); a wrong quiz value is a function of the item's numbers.
WRONG_ANSWERS: dict[str, tuple[Misconception, ...]] = {
    "scaled_dot_product_attention": (
        Misconception("divided by d_k", "your weights come from scores divided by d_k: that shrinks the score "
                      "spread far below 1, so the weights come out too flat", "L3 §5",
                      mistake.attention_divided_by_d_k),
        Misconception("no scaling", "your weights come from unscaled scores, whose spread grows with d_k, so the "
                      "softmax saturates onto one key", "L3 §5", mistake.attention_unscaled),
        Misconception("fully masked row made uniform", "your fully masked row gets uniform weights: filling "
                      "masked scores with a large negative number lets a row with no allowed key attend to all of "
                      "them, where the contract asks for zero weights and a zero output", "04 Part 1, masks (course extension)",
                      mistake.attention_fully_masked_row_uniform),
        Misconception("masked after softmax", "your masked weights were zeroed after softmax without "
                      "renormalising, so each row's allowed weights no longer sum to one", "04 Part 1, masks (course extension)",
                      mistake.attention_masked_after_softmax),
    ),
    "causal_mask": (
        Misconception("off by one", "your mask is False on the diagonal: a causal mask lets each position attend "
                      "to itself as well as to the earlier ones", "04 Part 2 (course extension)", mistake.causal_mask_strictly_lower),
        Misconception("future instead of past", "your mask is True above the diagonal, letting each position "
                      "attend to later positions and hiding the earlier ones", "04 Part 2 (course extension)", mistake.causal_mask_upper),
    ),
    "multi_head_attention": (
        Misconception("heads scaled by sqrt(d_model)", "your heads divide their scores by √d_model instead of "
                      "their own √d_head, which shrinks each head's score spread below 1 and flattens its "
                      "weights", "L3 §5, per head (04 Part 3)", mistake.multi_head_attention_scaled_by_d_model),
        Misconception("heads not scaled", "your heads use raw scores, not divided by √d_head, so their softmax "
                      "saturates as d_head grows", "L3 §5", mistake.multi_head_attention_unscaled),
        Misconception("no output projection", "your output is the concatenated heads without the final "
                      "multiplication by W_o", "04 Part 3 (course extension)", mistake.multi_head_attention_without_output_projection),
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


# ---- the checks -------------------------------------------------------------------------------

INITIALISATION = "L3 §1–2 and the Blog's 方差证明 (04 Part 4)"

CHECKS = [
    function_check("scaled_dot_product_attention", solutions.scaled_dot_product_attention, _attention_cases, "L3 §5",
                   output_names=("the output", "the weights"),
                   wrong_answers=WRONG_ANSWERS["scaled_dot_product_attention"]),
    function_check("causal_mask", solutions.causal_mask, _causal_mask_cases, "04 Part 2 (course extension)",
                   wrong_answers=WRONG_ANSWERS["causal_mask"]),
    function_check("multi_head_attention", solutions.multi_head_attention, _mha_cases, "L3 §5, per head (04 Part 3)",
                   output_names=("the output", "the weights"), wrong_answers=WRONG_ANSWERS["multi_head_attention"]),
    function_check("projected_score_variance", solutions.projected_score_variance, _variance_cases, INITIALISATION,
                   judge=judge_projected_score_variance),
    value_check("answer_init_std", QUIZ_ANSWERS["answer_init_std"], INITIALISATION,
                wrong_answers=WRONG_ANSWERS["answer_init_std"]),
]
