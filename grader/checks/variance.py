"""Hidden checks of assignment 01_variance (``variance.ipynb``; L3 §1–2, §7, Blog "方差证明").

One :class:`Check` per item of the student API. Cases are drawn from the run's Generator; their
labels describe the input only. ``dot_variance_mc`` is stochastic, so it is judged against
statistical bounds around the theoretical variance instead of the reference's own draws, and
``coin_dot_products`` may list its outcomes in any order.
"""
from __future__ import annotations

import numpy as np

from grader import kernel_probe
from grader.checks.api import INACCURATE, Case, Check, Misconception, RngSeed, compare_answer
import solutions.misconceptions as known
import solutions.variance as reference

#: Tolerances of the exact (non-random) checks.
EXACT_RTOL = 1e-6
EXACT_ATOL = 1e-9

#: Half-width of the accepted band of a Monte-Carlo estimate, in standard errors.
MC_STANDARD_ERRORS = 6.0

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
    expected = np.sort(case.call(reference.coin_dot_products))  # [2**d]
    wire = kernel_probe.encode(value)
    problem = compare_answer(expected, wire, EXACT_RTOL, EXACT_ATOL)
    if problem is None or problem[0] != INACCURATE:
        return problem  # matched as listed, or a type/shape/finiteness problem
    listed = np.sort(np.asarray(value, dtype=np.float64).ravel())
    problem = compare_answer(expected, kernel_probe.encode(listed), EXACT_RTOL, EXACT_ATOL)
    if problem is None:
        return None
    return INACCURATE, "even in sorted order these are not the 2**d values of q·k in the coin model."


def coin_distinct_values(d: int) -> np.ndarray:
    """The d + 1 distinct values -d, -d + 2, ..., d, each listed once instead of once per outcome."""
    d = int(d)
    return np.arange(-d, d + 1, 2, dtype=np.float64)  # [d + 1]


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


def mean_and_standard_deviation(values) -> tuple[float, float]:
    """(mean, standard deviation) instead of (mean, variance)."""
    mean, variance = reference.mean_and_variance(values)
    return mean, float(np.sqrt(variance))


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


def expansion_counts_unordered_pairs(d: int) -> tuple[int, int]:
    """Cross terms counted once per unordered pair {i, j}: (d, d(d - 1)/2) instead of (d, d² - d)."""
    d = int(d)
    return d, d * (d - 1) // 2


def expansion_counts_all_cross(d: int) -> tuple[int, int]:
    """All d² terms counted as cross terms: (d, d²)."""
    d = int(d)
    return d, d * d


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


def dot_standard_deviation_theory(d_k: int, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """σ(q·k) = sqrt(d_k·var_q·var_k) instead of the variance."""
    return float(np.sqrt(reference.dot_variance_theory(d_k, var_q, var_k)))


# ---- dot_variance_mc ------------------------------------------------------------------------

def _mc_cases(rng: np.random.Generator) -> list[Case]:
    def seed() -> RngSeed:
        return RngSeed(int(rng.integers(2**32)))

    d_k = int(rng.integers(2, 41))
    var_q, var_k = (float(v) for v in np.round(rng.uniform(1.5, 4.0, size=2), 2))
    return [
        Case("d_k = 4, unit variances, 4000 samples", (4, 4000, seed())),
        Case("d_k = 64, unit variances, 2000 samples", (64, 2000, seed())),
        Case("d_k = 1, unit variances, 4000 samples", (1, 4000, seed())),
        Case(f"d_k = {d_k}, var_q = {var_q}, var_k = {var_k}, 3000 samples", (d_k, 3000, seed()),
             {"var_q": var_q, "var_k": var_k}),
        Case("d_k = 0", (0, 100, seed()), raises="ValueError"),
        Case("n_samples = 0", (4, 0, seed()), raises="ValueError"),
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
    return variance * (n_samples - 1) / n_samples, MC_STANDARD_ERRORS * standard_error


def _judge_mc(case: Case, value) -> tuple[str, str] | None:
    centre, half_width = mc_band(*_mc_arguments(case))
    problem = compare_answer(centre, kernel_probe.encode(value), 0.0, half_width)
    if problem is not None and problem[0] == INACCURATE:
        return INACCURATE, (f"the estimate is further from Var(q·k) than sampling noise explains "
                            f"(more than {MC_STANDARD_ERRORS:g} standard errors).")
    return problem


def dot_variance_mc_reports_std(d_k: int, n_samples: int, rng, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """What reporting the samples' standard deviation instead of their variance approaches: sqrt(d_k·var_q·var_k)."""
    return dot_standard_deviation_theory(d_k, var_q, var_k)


def dot_variance_mc_variance_as_scale(d_k: int, n_samples: int, rng, var_q: float = 1.0,
                                      var_k: float = 1.0) -> float:
    """What passing the variances as the scale (standard deviation) of rng.normal approaches: d_k·var_q²·var_k²."""
    return reference.dot_variance_theory(d_k, var_q**2, var_k**2)


# ---- the checks -----------------------------------------------------------------------------

CHECKS = [
    Check(
        name="coin_dot_products",
        reference=reference.coin_dot_products,
        cases=_coin_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        judge=_judge_any_order,
        lesson="L3 §7",
        misconceptions=[
            Misconception(
                "distinct values only",
                "you listed each distinct value of q·k once, but the coin model has 2**d equally likely "
                "outcomes and middle values such as 0 occur many times, so mean and variance need every outcome",
                "L3 §7", coin_distinct_values),
        ],
    ),
    Check(
        name="mean_and_variance",
        reference=reference.mean_and_variance,
        cases=_mean_and_variance_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §7",
        misconceptions=[
            Misconception(
                "sample variance (ddof=1)",
                "you divided by n - 1 (the sample variance, ddof=1), but the outcomes are the whole "
                "population, so the variance divides by n (ddof=0)",
                "L3 §7", known.mean_and_variance_sample),
            Misconception(
                "standard deviation instead of variance",
                "you returned the standard deviation (np.std), the square root of the variance",
                "L3 §7", mean_and_standard_deviation),
        ],
    ),
    Check(
        name="expansion_counts",
        reference=reference.expansion_counts,
        cases=_expansion_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="Blog 方差证明",
        misconceptions=[
            Misconception(
                "unordered pairs",
                "you counted each pair {i, j} once, but (q·k)² holds both q_i k_i·q_j k_j and q_j k_j·q_i k_i, "
                "so d = 3 gives 6 cross terms, not 3",
                "Blog 方差证明", expansion_counts_unordered_pairs),
            Misconception(
                "squares counted as cross terms",
                "you counted all d² products as cross terms, but the d squares q_i² k_i² (i = j) are the "
                "diagonal terms and only the d² - d others are cross terms",
                "Blog 方差证明", expansion_counts_all_cross),
        ],
    ),
    Check(
        name="dot_variance_theory",
        reference=reference.dot_variance_theory,
        cases=_theory_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §2",
        misconceptions=[
            Misconception(
                "one component variance",
                "you multiplied d_k by a single component variance, but each product q_i k_i has variance "
                "var_q·var_k, the product of both components' variances",
                "L3 §7", known.dot_variance_theory_component_variance_once),
            Misconception(
                "standard deviation instead of variance",
                "you returned σ = sqrt(d_k·var_q·var_k); the variance is its square, d_k·var_q·var_k",
                "L3 §2", dot_standard_deviation_theory),
        ],
    ),
    Check(
        name="dot_variance_mc",
        reference=reference.dot_variance_mc,
        cases=_mc_cases,
        # Only for naming a misconception: the judge applies the statistical band itself.
        rtol=MC_MISCONCEPTION_RTOL,
        atol=0.0,
        judge=_judge_mc,
        lesson="L3 §1",
        misconceptions=[
            Misconception(
                "standard deviation instead of variance",
                "your estimate is the standard deviation of the samples (np.std) rather than their variance "
                "(np.var), so it grows like sqrt(d_k) instead of d_k",
                "L3 §1", dot_variance_mc_reports_std),
            Misconception(
                "variance passed as scale",
                "you passed the variance as the scale of rng.normal, which is the standard deviation, so the "
                "components have variance var² and the estimate approaches d_k·var_q²·var_k²",
                "L3 §2", dot_variance_mc_variance_as_scale),
        ],
    ),
    Check(
        name="answer_std_ratio",
        reference=reference.answer_std_ratio,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §1",
        misconceptions=[
            Misconception(
                "variance ratio",
                "16 is the ratio of the variances; σ is the square root of the variance, so the ratio of the "
                "standard deviations is not the ratio of the variances",
                "L3 §1", 16.0),
        ],
    ),
    Check(
        name="answer_var_component4",
        reference=reference.answer_var_component4,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §7",
        misconceptions=[
            Misconception(
                "variance 4 counted once",
                "you counted the component variance 4 once (4·d_k = 256), but each product q_i k_i has "
                "variance var_q·var_k, which involves the variances of both q and k",
                "L3 §7", 256.0),
            Misconception(
                "unit components",
                "64 is the variance with unit components; here every component of q and of k has variance 4, "
                "which changes the variance of every product q_i k_i",
                "L3 §7", 64.0),
        ],
    ),
    Check(
        name="answer_sigma_divide_dk",
        reference=reference.answer_sigma_divide_dk,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §7",
        misconceptions=[
            Misconception(
                "dividing by d_k normalises",
                "dividing by d_k does not give σ = 1: it divides σ(q·k) = sqrt(d_k) by d_k, not by sqrt(d_k), "
                "so the scores shrink far below unit spread",
                "L3 §7", 1.0),
            Misconception(
                "unscaled sigma",
                "8 is σ of the raw q·k; dividing the scores by d_k divides their σ by d_k as well",
                "L3 §7", 8.0),
            Misconception(
                "variance instead of sigma",
                "this is the variance of q·k / d_k, not its standard deviation",
                "L3 §7", 1.0 / 64.0),
        ],
    ),
]
