"""Hidden checks of assignment 03_readout (``readout.ipynb``; AR07/b0–b2, AM12, AM13).

Layout and shared helpers: ``grader.checks.common``; found by ``grader.checks.discovery``.
Each function check covers the edge cases its
contract names (large β, batches, d = 1, float32 input, invalid input that must raise
``ValueError``). ``retrieval_accuracy`` is stochastic, so its judge compares the student's rate with
the reference accuracy within a statistical band.
"""
from __future__ import annotations

import zlib

import numpy as np

import solutions
from grader.checks.api import INACCURATE, NOT_FINITE, WRONG_TYPE, Case, Misconception
from grader.checks.common import STANDARD_ERRORS, function_check, is_real_scalar, seed_input, value_check
from grader.checks.reference_cache import remembered
from solutions import misconceptions as mistake
from solutions.quiz import QUIZ_ANSWERS, quiz_answer
from solutions.readout import retrieval_accuracies

# ---- cases ------------------------------------------------------------------------------------


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """n random unit vectors in R^d as rows, [n, d]."""
    rows = rng.standard_normal((n, d))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _exp_weights_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 9))
    a, b = (int(v) for v in rng.integers(2, 6, size=2))
    beta = round(float(rng.uniform(0.5, 5.0)), 3)
    return [
        Case(f"{n} scores in [-2, 2], beta = {beta}", (rng.uniform(-2, 2, n), beta)),
        Case(f"a batch of scores of shape ({a}, {b})", (rng.uniform(-3, 3, (a, b)), float(rng.uniform(0.5, 3.0)))),
        Case("a single score (a Python float)", (float(rng.uniform(-1, 1)), float(rng.uniform(1.0, 4.0)))),
        Case("beta = 0", (rng.uniform(-2, 2, n), 0.0)),
        Case("large beta (200) with scores in [-1, 0], the largest 0", (_with_a_zero(rng.uniform(-1, 0, n), rng), 200.0)),
        Case("float32 scores", (rng.uniform(-2, 2, n).astype(np.float32), float(rng.uniform(1.0, 4.0)))),
    ]


def _with_a_zero(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``scores`` [n] with one entry, at a drawn position, set to 0: exp(β·0) = 1 stays in the answer, so
    the large-β case never expects all weights to round to zero (which an all-zeros stub would match)."""
    scores[int(rng.integers(scores.size))] = 0.0
    return scores


def _relative_weight_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 9))
    return [
        Case("two scalar scores (Python floats)",
             (float(rng.uniform(0.5, 1.0)), float(rng.uniform(-0.5, 0.4)), float(rng.uniform(1.0, 6.0)))),
        Case(f"arrays of {n} target and {n} other scores",
             (rng.uniform(0.2, 1.0, n), rng.uniform(-1.0, 1.0, n), float(rng.uniform(1.0, 6.0)))),
        Case(f"one target score against {n} other scores (broadcasting)",
             (np.array(float(rng.uniform(0.5, 1.0))), rng.uniform(-1.0, 1.0, n), float(rng.uniform(1.0, 6.0)))),
        Case("the other entry scores higher than the target",
             (float(rng.uniform(0.1, 0.4)), float(rng.uniform(0.5, 1.0)), float(rng.uniform(1.0, 6.0)))),
        Case("large beta (50) with nearby scores",
             (rng.uniform(0.5, 1.0, n), rng.uniform(0.3, 0.9, n), 50.0)),
        Case("float32 scores", (rng.uniform(0.2, 1.0, n).astype(np.float32),
                                rng.uniform(-1.0, 1.0, n).astype(np.float32), float(rng.uniform(1.0, 6.0)))),
        Case("s_target of shape (3,) and s_other of shape (4,) (they do not broadcast)",
             (rng.uniform(0, 1, 3), rng.uniform(0, 1, 4), 2.0), weight=0.5, raises="ValueError"),
    ]


def _normalize_rows_cases(rng: np.random.Generator) -> list[Case]:
    n, d = (int(v) for v in rng.integers(2, 8, size=2))
    lengths = 10.0 ** rng.uniform(-6, 6, size=(n, 1))
    with_zero_row = rng.standard_normal((n, d))
    with_zero_row[int(rng.integers(n))] = 0.0
    return [
        Case(f"{n} random rows of width {d}", (rng.standard_normal((n, d)),)),
        Case("rows of very different lengths (1e-6 to 1e6)", (lengths * _unit_rows(rng, n, d),)),
        Case("one column (d = 1)", (_both_signs(rng.standard_normal((n, 1))),)),
        Case("a single row", (rng.standard_normal((1, d)),)),
        Case("float32 input", (rng.standard_normal((n, d)).astype(np.float32),)),
        Case("a list of lists", (rng.uniform(-3, 3, (n, d)).tolist(),)),
        Case("one row is all zeros", (with_zero_row,), weight=0.5, raises="ValueError"),
    ]


def _both_signs(column: np.ndarray) -> np.ndarray:
    """``column`` [n, 1] (n >= 2) with a positive first and a negative last entry: its normalised rows are
    +1 and -1, so neither an all-ones nor an all-minus-ones answer matches it on any draw."""
    column[0], column[-1] = abs(column[0]), -abs(column[-1])
    return column


def _softmax_readout_case(label: str, rng: np.random.Generator, n: int, d: int, d_v: int, beta: float,
                          dtype=np.float64) -> Case:
    K = _unit_rows(rng, n, d)
    if d == 1 and n >= 2:
        K = _both_signs(K)  # keys of one sign would score alike, and every beta would give uniform weights
    V = rng.standard_normal((n, d_v))
    query = K[int(rng.integers(n))] + 0.3 * rng.standard_normal(d)
    x = query / np.linalg.norm(query)
    return Case(label, (K.astype(dtype), V.astype(dtype), x.astype(dtype), beta))


def _softmax_readout_cases(rng: np.random.Generator) -> list[Case]:
    n, d, d_v = (int(v) for v in rng.integers(3, 9, size=3))
    beta = round(float(rng.uniform(1.0, 8.0)), 3)
    bad = _softmax_readout_case("x whose length differs from the key width d", rng, n, d, d_v, 2.0)
    return [
        _softmax_readout_case(f"{n} unit keys in d = {d}, values of width {d_v}, beta = {beta}", rng, n, d, d_v, beta),
        _softmax_readout_case("large beta (1000)", rng, n, d, d_v, 1000.0),
        _softmax_readout_case("beta = 0", rng, n, d, d_v, 0.0),
        _softmax_readout_case("keys of width d = 1", rng, n, 1, d_v, 4.0),
        _softmax_readout_case("a single stored key (n = 1)", rng, 1, d, d_v, 4.0),
        _softmax_readout_case("float32 inputs", rng, n, d, d_v, 4.0, dtype=np.float32),
        Case(bad.label, (bad.args[0], bad.args[1], np.append(bad.args[2], 0.5), 2.0), weight=0.5, raises="ValueError"),
    ]


# ---- retrieval_accuracy: a statistical judge ---------------------------------------------------

#: Trials behind each expected accuracy the retrieval_accuracy judge compares a 1000-trial rate with.
RETRIEVAL_REFERENCE_TRIALS = 8000
#: Trials behind each expected accuracy the capacity judge compares a capacity with. Its measurements
#: are 500-trial rates (CAPACITY_TRIALS), so a reference of 2000 trials adds a quarter of their variance
#: and widens the tolerance by 8 % (6 standard errors: ±0.16 at an accuracy of 0.5, where one pair more
#: or less moves the accuracy by about 0.005), at a quarter of the cost of 8000.
CAPACITY_REFERENCE_TRIALS = 2000
#: Neighbouring numbers of stored pairs simulated together: one block is n_pairs = b·B + 1, ..., b·B + B
#: (B = ACCURACY_BLOCK), all from the same memories of b·B + B pairs (``solutions.readout.retrieval_accuracies``).
#: Drawing the memories is most of a simulation, so a block costs about twice its largest setting alone,
#: and the capacity judge, which asks for c and c + 1 at every capacity c students hand in, simulates a
#: few blocks where it simulated every setting.
ACCURACY_BLOCK = 8


@remembered
def accuracy_block(first: int, d: int, beta: float, readout: str, trials: int) -> list[float]:
    """The reference's success rates for n_pairs = first, ..., first + ACCURACY_BLOCK − 1, each over
    ``trials`` trials, with a seed fixed by the block (computed once per course:
    ``grader.checks.reference_cache``)."""
    seed = zlib.crc32(repr((first, ACCURACY_BLOCK, d, beta, readout, trials)).encode())
    n_pairs_each = tuple(range(first, first + ACCURACY_BLOCK))
    return retrieval_accuracies(n_pairs_each, d, beta, trials, np.random.default_rng(seed), readout=readout)


def expected_accuracy(n_pairs: int, d: int, beta: float, readout: str,
                      trials: int = RETRIEVAL_REFERENCE_TRIALS) -> float:
    """The reference's success rate with ``n_pairs`` stored pairs (≥ 1) over ``trials`` trials, read
    from its block."""
    first = (n_pairs - 1) // ACCURACY_BLOCK * ACCURACY_BLOCK + 1
    return float(accuracy_block(first, d, beta, readout, trials)[n_pairs - first])


def retrieval_tolerance(expected: float, n_trials: int, reference_trials: int = RETRIEVAL_REFERENCE_TRIALS) -> float:
    """Largest acceptable |rate − expected| for a correct n_trials-trial estimate, ``expected`` being
    the reference's ``reference_trials``-trial estimate.

    A correct student's rate is a binomial proportion: its standard error is sqrt(p(1−p)/n_trials),
    and the reference's own estimate adds p(1−p)/reference_trials to the variance. Near p = 0 or 1
    the count of failures is Poisson rather than normal, so p(1−p) is floored at 2/n_trials and
    3/n_trials is added: a correct estimate then falls outside with probability below about 1e-5
    for every p.
    """
    p = min(max(expected, 0.0), 1.0)
    spread = p * (1.0 - p)
    variance = max(spread, 2.0 / n_trials) / n_trials + spread / reference_trials
    return STANDARD_ERRORS * float(np.sqrt(variance)) + 3.0 / n_trials



def judge_retrieval_accuracy(case: Case, value):
    """None when ``value`` is a plausible success rate for the case's setting; else (stage, detail)."""
    if not is_real_scalar(value):
        return WRONG_TYPE, (f"the success rate should be one number (a float), but your function returned "
                            f"a {type(value).__name__}.")
    rate = float(value)
    if not np.isfinite(rate):
        return NOT_FINITE, "the success rate you returned is nan or inf."
    if not 0.0 <= rate <= 1.0:
        return INACCURATE, "the success rate you returned is outside 0 to 1, where every rate lies."
    n_pairs, d, beta, n_trials = case.args[:4]
    readout = case.kwargs.get("readout", "softmax")
    successes = rate * n_trials
    if abs(successes - round(successes)) > 1e-6:
        return INACCURATE, (f"the success rate you returned is not a whole number of successes divided by "
                            f"{n_trials}, the number of trials.")
    expected = expected_accuracy(n_pairs, d, beta, readout)
    tolerance = retrieval_tolerance(expected, n_trials)
    if abs(rate - expected) <= tolerance:
        return None
    detail = (f"the success rate you returned is further from the expected accuracy than "
              f"{STANDARD_ERRORS:g} standard errors of a {n_trials}-trial estimate allow.")
    for description, alternative in _retrieval_alternatives(n_pairs, d, beta, readout):
        if abs(rate - alternative) <= retrieval_tolerance(alternative, n_trials):
            return INACCURATE, f"{detail} It is consistent with {description}."
    return INACCURATE, detail


def _retrieval_alternatives(n_pairs: int, d: int, beta: float, readout: str):
    """(description, expected accuracy) of the wrong read-outs a student may have computed."""
    if readout == "softmax":
        yield "the linear read-out Vᵀ K x (is `readout` used?)", expected_accuracy(n_pairs, d, beta, "linear")
        if beta != 1.0:
            yield ("softmax without beta, Vᵀ softmax(K x) (is `beta` used?)",
                   expected_accuracy(n_pairs, d, 1.0, "softmax"))
    else:
        yield "the softmax read-out (is `readout` used?)", expected_accuracy(n_pairs, d, beta, "softmax")


#: The settings a retrieval case draws from: (n_pairs, beta) of the softmax case, n_pairs of the default
#: and of the linear case. Within a case their expected accuracies (0.74 to 0.89) lie on the same side
#: of 0.5 and of 1 by more than the tolerance, so a constant rate (a stub returning 0.5 or 1.0) passes
#: or fails a case on every draw alike.
SOFTMAX_SETTINGS = ((16, 2.0), (24, 3.0), (32, 3.0))
DEFAULT_PAIRS = (12, 14, 16)
LINEAR_PAIRS = (16, 20, 24)


def _retrieval_cases(rng: np.random.Generator) -> list[Case]:
    n_soft, beta = SOFTMAX_SETTINGS[int(rng.integers(len(SOFTMAX_SETTINGS)))]
    n_default = int(rng.choice(DEFAULT_PAIRS))
    n_linear = int(rng.choice(LINEAR_PAIRS))
    return [
        Case(f"softmax read-out, n_pairs = {n_soft}, d = 8, beta = {beta:g}, 1000 trials",
             (n_soft, 8, beta, 1000, seed_input(rng)), {"readout": "softmax"}),
        Case(f"default read-out, n_pairs = {n_default}, d = 8, beta = 2, 1000 trials",
             (n_default, 8, 2.0, 1000, seed_input(rng))),
        Case(f"linear read-out, n_pairs = {n_linear}, d = 16, beta = 1, 1000 trials",
             (n_linear, 16, 1.0, 1000, seed_input(rng)), {"readout": "linear"}),
        Case("softmax read-out with large beta (1000), n_pairs = 16, d = 8, 500 trials",
             (16, 8, 1000.0, 500, seed_input(rng)), {"readout": "softmax"}),
        Case("a single stored pair, d = 8, 200 trials", (1, 8, 4.0, 200, seed_input(rng)), {"readout": "softmax"}),
        Case('readout = "cosine" (not a read-out of the contract)', (8, 8, 2.0, 10, seed_input(rng)),
             {"readout": "cosine"}, weight=0.5, raises="ValueError"),
    ]


# ---- retrieval_capacity: a statistical judge ---------------------------------------------------
# A correct search ends on a capacity c measured at or above the threshold with c + 1 measured below it
# (or on c = max_pairs measured at or above it). Each measurement is an n_trials-trial rate, so c is
# plausible when the reference accuracy at c is not below the threshold, and at c + 1 not above it, by
# more than ``retrieval_tolerance``: a correct search fails only if one of its ~2·log2(max_pairs)
# measurements strays that far, well below 1e-3 in all.

#: Trials behind every measured accuracy in the capacity cases (cheap at d <= 16, tight enough to
#: separate the read-outs).
CAPACITY_TRIALS = 500


def _accuracy_problem(capacity: int, d: int, beta: float, n_trials: int, readout: str, threshold: float,
                      max_pairs: int) -> str | None:
    """Why ``capacity`` cannot be the outcome of a correct search in this setting, or None if it can."""
    at_capacity = expected_accuracy(capacity, d, beta, readout, CAPACITY_REFERENCE_TRIALS)
    if at_capacity < threshold - retrieval_tolerance(at_capacity, n_trials, CAPACITY_REFERENCE_TRIALS):
        return (f"with {capacity} stored pairs the expected accuracy is below the threshold by more than "
                f"{STANDARD_ERRORS:g} standard errors of an {n_trials}-trial estimate, so your capacity is too large.")
    if capacity < max_pairs:
        one_more = expected_accuracy(capacity + 1, d, beta, readout, CAPACITY_REFERENCE_TRIALS)
        if one_more >= threshold + retrieval_tolerance(one_more, n_trials, CAPACITY_REFERENCE_TRIALS):
            return (f"with {capacity + 1} stored pairs the expected accuracy is still above the threshold by more "
                    f"than {STANDARD_ERRORS:g} standard errors, so your capacity is too small (did the search stop "
                    "before its last success and first failure were neighbours?).")
    return None


def judge_retrieval_capacity(case: Case, value):
    """None when ``value`` is a plausible capacity for the case's setting; else (stage, detail)."""
    if not is_real_scalar(value) or float(value) != round(float(value)):
        return WRONG_TYPE, f"expected the capacity as a whole number of pairs, got {value!r}."
    capacity = int(value)
    d, beta, n_trials = case.args[:3]
    readout = case.kwargs.get("readout", "softmax")
    threshold = case.kwargs.get("threshold", 0.9)
    max_pairs = case.kwargs.get("max_pairs", solutions.DEFAULT_MAX_PAIRS)
    if not 1 <= capacity <= max_pairs:
        return INACCURATE, (f"a capacity lies between 1 (one pair is always retrieved) and max_pairs = {max_pairs}, "
                            "the largest number of pairs the search may try.")
    problem = _accuracy_problem(capacity, d, beta, n_trials, readout, threshold, max_pairs)
    if problem is None:
        return None
    for description, (other_beta, other_readout, other_threshold) in _capacity_alternatives(beta, readout, threshold):
        if _accuracy_problem(capacity, d, other_beta, n_trials, other_readout, other_threshold, max_pairs) is None:
            return INACCURATE, f"{problem} It is consistent with {description}."
    return INACCURATE, problem


def _capacity_alternatives(beta: float, readout: str, threshold: float):
    """(description, (beta, readout, threshold)) of the wrong searches a student may have run."""
    if readout == "softmax":
        yield "the capacity of the linear read-out (is `readout` passed on?)", (beta, "linear", threshold)
        if beta != 1.0:
            yield "a softmax read-out without beta (is `beta` passed on?)", (1.0, "softmax", threshold)
    else:
        yield "the capacity of the softmax read-out (is `readout` passed on?)", (beta, "softmax", threshold)
    if threshold != 0.9:
        yield "the threshold 0.9 instead of the one asked (is `threshold` used?)", (beta, readout, 0.9)


def _capacity_cases(rng: np.random.Generator) -> list[Case]:
    def seed():
        return seed_input(rng)

    n = CAPACITY_TRIALS
    return [
        Case(f"softmax read-out, d = 8, beta = 4, {n} trials per accuracy, max_pairs = 256",
             (8, 4.0, n, seed()), {"readout": "softmax", "threshold": 0.9, "max_pairs": 256}),
        Case(f"default read-out, threshold and max_pairs, d = 16, beta = 2, {n} trials per accuracy",
             (16, 2.0, n, seed())),
        Case(f"linear read-out, d = 16, {n} trials per accuracy, max_pairs = 256",
             (16, 1.0, n, seed()), {"readout": "linear", "max_pairs": 256}),
        Case(f"threshold = 0.5, softmax read-out, d = 8, beta = 4, {n} trials per accuracy",
             (8, 4.0, n, seed()), {"readout": "softmax", "threshold": 0.5, "max_pairs": 512}),
        Case(f"every tried memory is retrieved: softmax, d = 16, beta = 8, max_pairs = 48, {n} trials",
             (16, 8.0, n, seed()), {"readout": "softmax", "max_pairs": 48}),
        Case("threshold = 1.5 (an accuracy never reaches it)", (8, 4.0, 20, seed()), {"threshold": 1.5},
             weight=0.5, raises="ValueError"),
    ]


# ---- known wrong answers ------------------------------------------------------------------

#: check name -> the misconceptions its feedback can name: a wrong function is a wrong implementation from
#: ``solutions.misconceptions`` (same signature); a wrong quiz value is a function of the item's numbers.
WRONG_ANSWERS: dict[str, tuple[Misconception, ...]] = {
    "exp_weights": (
        Misconception("beta left out", "your weights equal exp(s): without the sharpness β the exponentials "
                      "stretch score differences far less", "AR07/b0", mistake.exp_weights_without_beta),
        Misconception("beta as a temperature", "your weights equal exp(s / β): dividing by β flattens the scores "
                      "where multiplying by the sharpness β should stretch them", "AR07/b0",
                      mistake.exp_weights_beta_as_temperature),
    ),
    "relative_weight": (
        Misconception("ratio before exponentiating", "your value is the raw score ratio s_other / s_target: the "
                      "scores were never exponentiated, so the weights keep the flat ratio of the scores",
                      "AR07/b1", mistake.relative_weight_without_exponent),
        Misconception("ratio inverted", "your value is the target relative to the other entry, the reverse of "
                      "the weight the function asks for", "AR07/b1", mistake.relative_weight_inverted),
        Misconception("beta left out", "your value leaves the sharpness β out, so the exponential does not "
                      "stretch the score difference", "AR07/b1", mistake.relative_weight_without_beta),
    ),
    "normalize_rows": (
        Misconception("columns instead of rows", "your columns have unit length, not your rows: the norm was taken "
                      "over axis 0 instead of axis 1", "AM13", mistake.normalize_columns),
        Misconception("divided by the sum", "your rows are divided by the sum of their absolute entries, so their "
                      "Euclidean length is below one", "AM13", mistake.normalize_rows_by_abs_sum),
    ),
    "softmax_readout": (
        Misconception("beta left out", "your read-out leaves the sharpness β out of the scores, so the weights "
                      "stay nearly uniform over the keys", "AM13", mistake.softmax_readout_without_beta),
        Misconception("not normalised", "your weights are exponentials that were never divided by their sum, so "
                      "they do not allocate one unit of weight among the keys", "AR07/b1",
                      mistake.softmax_readout_unnormalised),
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
                      lambda n: 1.0 / quiz_answer("answer_ab_ratio", n)),
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
}


# ---- the checks -------------------------------------------------------------------------------

CHECKS = [
    function_check("exp_weights", solutions.exp_weights, _exp_weights_cases, "AR07/b0",
                   wrong_answers=WRONG_ANSWERS["exp_weights"]),
    function_check("relative_weight", solutions.relative_weight, _relative_weight_cases, "AR07/b1",
                   wrong_answers=WRONG_ANSWERS["relative_weight"]),
    function_check("normalize_rows", solutions.normalize_rows, _normalize_rows_cases, "AM13",
                   wrong_answers=WRONG_ANSWERS["normalize_rows"]),
    function_check("softmax_readout", solutions.softmax_readout, _softmax_readout_cases, "AM12",
                   output_names=("the output", "the weights"), wrong_answers=WRONG_ANSWERS["softmax_readout"]),
    function_check("retrieval_accuracy", solutions.retrieval_accuracy, _retrieval_cases, "AR07/b2",
                   judge=judge_retrieval_accuracy),
    function_check("retrieval_capacity", solutions.retrieval_capacity, _capacity_cases, "AR07/b2",
                   judge=judge_retrieval_capacity),
    value_check("answer_ab_exp", QUIZ_ANSWERS["answer_ab_exp"], "AR07/b0",
                wrong_answers=WRONG_ANSWERS["answer_ab_exp"]),
    value_check("answer_ab_ratio", QUIZ_ANSWERS["answer_ab_ratio"], "AR07/b1",
                wrong_answers=WRONG_ANSWERS["answer_ab_ratio"]),
    value_check("answer_ab_weights", QUIZ_ANSWERS["answer_ab_weights"], "AR07/b1",
                wrong_answers=WRONG_ANSWERS["answer_ab_weights"]),
    value_check("answer_beta_equiv", QUIZ_ANSWERS["answer_beta_equiv"], "AM13",
                wrong_answers=WRONG_ANSWERS["answer_beta_equiv"]),
]
