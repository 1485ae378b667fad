"""Hidden checks of assignment 01_variance (``variance.ipynb``; L3 §1–2, §7, Blog "方差证明").

Layout and shared helpers: ``grader.checks.common``; found by ``grader.checks.discovery``.
``dot_variance_mc`` is stochastic, so it is
judged against a statistical band around the theoretical variance instead of the reference's own
draws; ``coin_dot_products`` may list its outcomes in any order.
"""
from __future__ import annotations

import numpy as np

import solutions
from grader import kernel_side
from grader.checks.api import EXACT_ATOL, EXACT_RTOL, INACCURATE, Case, Misconception, compare_answer
from grader.checks.common import STANDARD_ERRORS, function_check, seed_input, value_check
from solutions import misconceptions as mistake
from solutions.quiz import QUIZ_ANSWERS

#: How far (relative) a Monte-Carlo estimate may sit from a misconception's expected value and
#: still be read as that misconception. Estimates here carry at most ~5 % relative noise, and the
#: misconceptions differ from the truth by a factor of 2 or more on the cases where they fail.
MC_MISCONCEPTION_RTOL = 0.25


# ---- coin_dot_products ----------------------------------------------------------------------

def _coin_cases(rng: np.random.Generator) -> list[Case]:
    larger = rng.choice(np.arange(3, 9), size=2, replace=False)  # at most 2**8 = 256 values
    return [
        Case("d = 1 (a single product)", (1,)),
        Case("d = 2, the lesson's size", (2,)),
        *(Case(f"d = {int(d)}", (int(d),)) for d in larger),
        Case("d = 0 (no components)", (0,), raises="ValueError"),
        Case("a negative d", (-int(rng.integers(1, 5)),), raises="ValueError"),
    ]


def _judge_any_order(case: Case, value) -> tuple[str, str] | None:
    """Compare the outcomes as a multiset: the contract allows any order."""
    expected = np.sort(case.call(solutions.coin_dot_products))  # [2**d]
    wire = kernel_side.encode(value)
    problem = compare_answer(expected, wire, EXACT_RTOL, EXACT_ATOL)
    if problem is None or problem[0] != INACCURATE:
        return problem  # matched as listed, or a type/shape/finiteness problem
    listed = np.sort(np.asarray(value, dtype=np.float64).ravel())
    problem = compare_answer(expected, kernel_side.encode(listed), EXACT_RTOL, EXACT_ATOL)
    if problem is None:
        return None
    return INACCURATE, ("even in sorted order, the values you returned are not the 2**d outcomes of q·k in "
                        "the coin model.")


# ---- mean_and_variance ----------------------------------------------------------------------

def _mean_and_variance_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(5, 40))
    vector = rng.normal(rng.uniform(-3, 3), rng.uniform(0.5, 4), size=n)  # [n]
    matrix = rng.normal(0.0, 2.0, size=(int(rng.integers(2, 6)), int(rng.integers(2, 6))))  # [r, c]
    integers = [int(v) for v in rng.integers(-5, 6, size=int(rng.integers(4, 12)))]
    return [
        Case(f"a vector of {n} random numbers", (vector,)),
        Case(f"a 2-D array of shape {matrix.shape} (every entry counts)", (matrix,)),
        Case(f"a Python list of {len(integers)} integers", (integers,)),
        Case("float32 values", (rng.normal(0.0, 3.0, size=12).astype(np.float32),)),
        Case("a single value", (np.array([float(rng.normal())]),)),
        Case("an empty array", (np.array([]),), raises="ValueError"),
        Case("values containing nan", (np.array([1.0, np.nan, 2.0]),), raises="ValueError"),
    ]


# ---- expansion_counts -----------------------------------------------------------------------

def _expansion_cases(rng: np.random.Generator) -> list[Case]:
    larger = rng.choice(np.arange(4, 200), size=2, replace=False)
    return [
        Case("d = 1", (1,)),
        Case("d = 3, the Blog's example", (3,)),
        *(Case(f"d = {int(d)}", (int(d),)) for d in larger),
        Case("d = 0", (0,), raises="ValueError"),
        Case("a negative d", (-int(rng.integers(1, 10)),), raises="ValueError"),
    ]


# ---- dot_variance_theory --------------------------------------------------------------------

def _theory_cases(rng: np.random.Generator) -> list[Case]:
    d_k = int(rng.integers(2, 513))
    var_q, var_k = (float(v) for v in np.round(rng.uniform(0.2, 5.0, size=2), 2))
    return [
        Case("d_k = 64 with the default unit variances", (64,)),
        Case("d_k = 1", (1,)),
        Case(f"d_k = {d_k}, var_q = {var_q}, var_k = {var_k} (keywords)", (d_k,), {"var_q": var_q, "var_k": var_k}),
        Case("d_k = 16 with both variances 4 (positional)", (16, 4.0, 4.0)),
        Case("a zero variance for k", (8,), {"var_q": 2.0, "var_k": 0.0}),
        Case("d_k = 0", (0,), raises="ValueError"),
        Case("a negative var_q", (4,), {"var_q": -1.0}, raises="ValueError"),
    ]


# ---- dot_variance_mc ------------------------------------------------------------------------

def _mc_cases(rng: np.random.Generator) -> list[Case]:
    d_k = int(rng.integers(2, 41))
    var_q, var_k = (float(v) for v in np.round(rng.uniform(1.5, 4.0, size=2), 2))
    return [
        Case("d_k = 4, unit variances, 4000 samples", (4, 4000, seed_input(rng))),
        Case("d_k = 64, unit variances, 2000 samples", (64, 2000, seed_input(rng))),
        Case("d_k = 1, unit variances, 4000 samples", (1, 4000, seed_input(rng))),
        Case(f"d_k = {d_k}, var_q = {var_q}, var_k = {var_k}, 3000 samples", (d_k, 3000, seed_input(rng)),
             {"var_q": var_q, "var_k": var_k}),
        Case("d_k = 0", (0, 100, seed_input(rng)), raises="ValueError"),
        Case("n_samples = 0", (4, 0, seed_input(rng)), raises="ValueError"),
    ]


def _mc_arguments(case: Case) -> tuple[int, int, float, float]:
    """(d_k, n_samples, var_q, var_k) of a dot_variance_mc case, positional or keyword."""
    d_k, n_samples = case.args[0], case.args[1]
    var_q = case.args[3] if len(case.args) > 3 else case.kwargs.get("var_q", 1.0)
    var_k = case.args[4] if len(case.args) > 4 else case.kwargs.get("var_k", 1.0)
    return int(d_k), int(n_samples), float(var_q), float(var_k)


def mc_band(d_k: int, n_samples: int, var_q: float = 1.0, var_k: float = 1.0) -> tuple[float, float]:
    """(centre, half-width) of the accepted estimates of Var(q·k).

    The population variance of n samples has expectation V·(n - 1)/n with V = d_k·var_q·var_k.
    Its standard error: with X = q·k, E[X²] = V and E[X⁴] = (3·d_k² + 6·d_k)·(var_q·var_k)²
    (d_k fourth moments 9·(var_q·var_k)² plus 3·d_k·(d_k - 1) pairs), so
    Var(X²) = (2·d_k² + 6·d_k)·(var_q·var_k)² and SE ≈ sqrt(Var(X²)/n); the correction from
    subtracting the sample mean is O(V/n), far inside the band. An estimator with ddof=1
    (expectation V) is accepted too.
    """
    variance = d_k * var_q * var_k
    standard_error = var_q * var_k * np.sqrt((2.0 * d_k**2 + 6.0 * d_k) / n_samples)
    return variance * (n_samples - 1) / n_samples, STANDARD_ERRORS * standard_error


def _judge_mc(case: Case, value) -> tuple[str, str] | None:
    centre, half_width = mc_band(*_mc_arguments(case))
    problem = compare_answer(centre, kernel_side.encode(value), 0.0, half_width, "your estimate")
    if problem is not None and problem[0] == INACCURATE:
        return INACCURATE, (f"your estimate is further from Var(q·k) than the sampling noise of {case.args[1]} "
                            f"samples explains (more than {STANDARD_ERRORS:g} standard errors).")
    return problem


# ---- known wrong answers ------------------------------------------------------------------

#: check name -> the misconceptions its feedback can name: a wrong function is a wrong implementation from
#: ``solutions.misconceptions`` (same signature); a wrong quiz value is a function of the item's numbers.
WRONG_ANSWERS: dict[str, tuple[Misconception, ...]] = {
    "coin_dot_products": (
        Misconception("distinct values only", "you listed each distinct value of q·k once, but the coin model has "
                      "2**d equally likely outcomes and middle values occur many times, so mean and variance "
                      "need every outcome", "L3 §7", mistake.coin_distinct_values),
    ),
    "mean_and_variance": (
        Misconception("sample variance (ddof=1)", "you divided by n - 1 (the sample variance, ddof=1), but the "
                      "values are the whole population, so the variance divides by n (ddof=0)", "L3 §7",
                      mistake.mean_and_variance_sample),
        Misconception("standard deviation instead of variance", "the second number you returned is the standard "
                      "deviation (np.std), not the variance", "L3 §7", mistake.mean_and_standard_deviation),
    ),
    "expansion_counts": (
        Misconception("unordered pairs", "you counted each pair {i, j} once, but (q·k)² holds both "
                      "q_i k_i·q_j k_j and q_j k_j·q_i k_i, so every pair of different indices gives two cross "
                      "terms", "Blog 方差证明", mistake.expansion_counts_unordered_pairs),
        Misconception("squares counted as cross terms", "you counted every product as a cross term, but the "
                      "squares q_i² k_i² (i = j) are the diagonal terms", "Blog 方差证明",
                      mistake.expansion_counts_all_cross),
    ),
    "dot_variance_theory": (
        Misconception("one component variance", "you multiplied d_k by a single component variance, but each "
                      "product q_i k_i involves one component of q and one of k, and both variances matter",
                      "L3 §7", mistake.dot_variance_theory_component_variance_once),
        Misconception("standard deviation instead of variance", "the number you returned is the standard "
                      "deviation σ of q·k; the function asks for its variance", "L3 §2",
                      mistake.dot_standard_deviation_theory),
    ),
    "dot_variance_mc": (
        Misconception("standard deviation instead of variance", "your estimate is the standard deviation of the "
                      "samples (np.std) rather than their variance (np.var), so it grows like sqrt(d_k) instead "
                      "of d_k", "L3 §1", mistake.dot_variance_mc_reports_std),
        Misconception("variance passed as scale", "you passed a variance as the scale of rng.normal, which is a "
                      "standard deviation, so the components have the wrong variance", "L3 §2",
                      mistake.dot_variance_mc_variance_as_scale),
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
}


# ---- the checks -----------------------------------------------------------------------------

CHECKS = [
    function_check("coin_dot_products", solutions.coin_dot_products, _coin_cases, "L3 §7", judge=_judge_any_order,
                   wrong_answers=WRONG_ANSWERS["coin_dot_products"]),
    function_check("mean_and_variance", solutions.mean_and_variance, _mean_and_variance_cases, "L3 §7",
                   output_names=("the mean", "the variance"), wrong_answers=WRONG_ANSWERS["mean_and_variance"]),
    function_check("expansion_counts", solutions.expansion_counts, _expansion_cases, "Blog 方差证明",
                   output_names=("the number of diagonal terms", "the number of cross terms"),
                   wrong_answers=WRONG_ANSWERS["expansion_counts"]),
    function_check("dot_variance_theory", solutions.dot_variance_theory, _theory_cases, "L3 §2",
                   wrong_answers=WRONG_ANSWERS["dot_variance_theory"]),
    # rtol / atol only for naming a misconception: the judge applies the statistical band itself
    function_check("dot_variance_mc", solutions.dot_variance_mc, _mc_cases, "L3 §1", judge=_judge_mc,
                   rtol=MC_MISCONCEPTION_RTOL, atol=0.0, wrong_answers=WRONG_ANSWERS["dot_variance_mc"]),
    value_check("answer_std_ratio", QUIZ_ANSWERS["answer_std_ratio"], "L3 §1",
                wrong_answers=WRONG_ANSWERS["answer_std_ratio"]),
    value_check("answer_var_component4", QUIZ_ANSWERS["answer_var_component4"], "L3 §7",
                wrong_answers=WRONG_ANSWERS["answer_var_component4"]),
    value_check("answer_sigma_divide_dk", QUIZ_ANSWERS["answer_sigma_divide_dk"], "L3 §7",
                wrong_answers=WRONG_ANSWERS["answer_sigma_divide_dk"]),
]
