"""Hidden checks of assignment 02_softmax (``softmax.ipynb``; L3 §3–5, Blog tables).

One :class:`Check` per item of the student API. Cases are drawn from the run's Generator; their
labels describe the input only. ``saturation_experiment`` is stochastic, so each of its means is
judged against a statistical band around a larger reference run on independent draws.
"""
from __future__ import annotations

import numpy as np

from grader import kernel_probe
from grader.checks.api import INACCURATE, WRONG_TYPE, Case, Check, Misconception, RngSeed, compare_answer
from solutions.misconceptions import (
    entropy_in_bits,
    softmax_over_first_axis,
    softmax_without_max_subtraction,
)
from solutions.softmax import (
    answer_culprit,
    answer_weights_scaled,
    answer_weights_unscaled,
    answer_worked_example,
    entropy,
    saturation_experiment,
    saturation_trials,
    score_gradient,
    softmax,
    unit_variance_scale,
)

#: Tolerances of the exact (non-random) checks.
EXACT_RTOL = 1e-6
EXACT_ATOL = 1e-9

#: Half-width of the accepted band of a Monte-Carlo mean, in standard errors of the difference.
MC_STANDARD_ERRORS = 6.0

#: The reference run that sets the centre of the band has this many times the student's trials.
REFERENCE_TRIAL_FACTOR = 4

#: How far a student's saturation means may sit from a misconception's own run and still be read
#: as that misconception (two independent runs of a few hundred trials differ by a few per cent;
#: the misconceptions differ from the truth by a factor of 2 or more where they fail).
MC_MISCONCEPTION_RTOL = 0.25
MC_MISCONCEPTION_ATOL = 0.05

SATURATION_KEYS = ("max_weight", "entropy", "gap")


# ---- softmax --------------------------------------------------------------------------------

def _softmax_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 11))
    rows = int(rng.integers(2, 6))
    batch = (rows, rows + int(rng.integers(1, 4)))  # not square: the square case is separate
    side = int(rng.integers(3, 7))
    rows_far_apart = np.stack([1e4 + rng.normal(0.0, 3.0, size=n), rng.normal(0.0, 3.0, size=n)])  # [2, n]
    return [
        Case(f"a vector of {n} random logits", (rng.normal(0.0, 3.0, size=n),)),
        Case(f"a batch of shape {batch} (softmax over the last axis)", (rng.normal(0.0, 3.0, size=batch),)),
        Case(f"a square batch of shape ({side}, {side})", (rng.normal(0.0, 3.0, size=(side, side)),)),
        Case("a 3-D array of shape (2, 5, 3) with axis=1", (rng.normal(0.0, 3.0, size=(2, 5, 3)),), {"axis": 1}),
        Case("large logits (around 1e4)", (1e4 + rng.normal(0.0, 3.0, size=n),)),
        Case("very negative logits (down to -1e308)", (np.array([-1e308, -7e307, -5e307, -1e308]),)),
        Case("logits spanning -1e308 to 1e308", (np.array([1e308, 0.0, -1e308, float(rng.normal())]),)),
        Case("a batch whose rows differ by 1e4", (rows_far_apart,)),
        Case("a single logit (n = 1)", (np.array([float(rng.normal(0.0, 3.0))]),)),
        Case("float32 logits", (rng.normal(0.0, 3.0, size=(3, n)).astype(np.float32),)),
        Case("an empty array", (np.array([]),), raises="ValueError"),
        Case("logits containing nan", (np.array([0.5, np.nan, 1.0]),), raises="ValueError"),
    ]


def softmax_global_max(x, axis: int = -1) -> np.ndarray:
    """Softmax subtracting the maximum of the whole array instead of each slice's maximum.

    A slice far below the global maximum underflows to 0/0 = nan.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        weights = np.exp(x - x.max())
        return weights / weights.sum(axis=axis, keepdims=True)


def softmax_without_keepdims(x, axis: int = -1) -> np.ndarray:
    """Softmax dividing by sums taken without keepdims.

    Broadcasting then divides along the wrong axis; only square input runs at all.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(x - x.max(axis=axis, keepdims=True))
        return weights / weights.sum(axis=axis)


# ---- entropy --------------------------------------------------------------------------------

def _distribution(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random probabilities along the last axis: softmax of N(0, 2²) logits."""
    return softmax(rng.normal(0.0, 2.0, size=shape))


def _entropy_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 11))
    one_hot = np.zeros(n)
    one_hot[int(rng.integers(n))] = 1.0
    with_zeros = _distribution(rng, (n,))
    with_zeros[rng.choice(n, size=n // 2, replace=False)] = 0.0
    with_zeros /= with_zeros.sum()
    batch = (int(rng.integers(2, 6)), n)
    return [
        Case(f"a distribution over {n} outcomes", (_distribution(rng, (n,)),)),
        Case(f"a batch of distributions, shape {batch}", (_distribution(rng, batch),)),
        Case("a one-hot distribution", (one_hot,)),
        Case("a distribution with some zero entries", (with_zeros,)),
        Case(f"the uniform distribution over {n} outcomes", (np.full(n, 1.0 / n),)),
        Case("a single outcome (n = 1)", (np.array([1.0]),)),
        Case("float32 probabilities", (_distribution(rng, (2, n)).astype(np.float32),)),
        Case("distributions in the columns (axis=0)", (_distribution(rng, (3, n)).T.copy(),), {"axis": 0}),
        Case("a negative entry", (np.array([0.6, 0.6, -0.2]),), raises="ValueError"),
        Case("entries that do not sum to one", (np.array([0.5, 0.3, 0.1]),), raises="ValueError"),
    ]


def entropy_nan_at_zero(p, axis: int = -1) -> float | np.ndarray:
    """-sum p·log p without the convention 0·log 0 = 0, so any zero probability gives 0·(-inf) = nan."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -(p * np.log(p)).sum(axis=axis)
    return float(value) if value.ndim == 0 else value


def entropy_without_minus(p, axis: int = -1) -> float | np.ndarray:
    """sum p·log p without the minus sign, which is never positive."""
    value = -np.asarray(entropy(p, axis=axis))
    return float(value) if value.ndim == 0 else value


# ---- saturation_experiment ------------------------------------------------------------------

def _saturation_cases(rng: np.random.Generator) -> list[Case]:
    def seed() -> RngSeed:
        return RngSeed(int(rng.integers(2**32)))

    d_k = int(rng.integers(2, 33))
    n_keys = int(rng.integers(3, 41))
    scale = float(np.round(rng.uniform(2.0, 6.0), 2))
    return [
        Case("d_k = 64, 64 keys, 200 trials, scale = 1", (64, 64, 200, 1.0, seed())),
        Case("d_k = 64, 64 keys, 200 trials, scale = 8", (64, 64, 200, 8.0, seed())),
        Case(f"d_k = {d_k}, {n_keys} keys, 300 trials, scale = {scale}", (d_k, n_keys, 300, scale, seed())),
        Case("d_k = 1, 8 keys, 400 trials, scale = 1", (1, 8, 400, 1.0, seed())),
        Case("d_k = 16, 2 keys, 400 trials, scale = 4", (16, 2, 400, 4.0, seed())),
        Case("a single key (n_keys = 1)", (8, 1, 10, 1.0, seed()), raises="ValueError"),
        Case("scale = 0", (8, 4, 10, 0.0, seed()), raises="ValueError"),
        Case("d_k = 0", (0, 4, 10, 1.0, seed()), raises="ValueError"),
    ]


def saturation_band(d_k: int, n_keys: int, n_trials: int, scale: float,
                    seed: int) -> dict[str, tuple[float, float]]:
    """key -> (centre, half-width) of the accepted means of a saturation case.

    The centre is the mean of a reference run of REFERENCE_TRIAL_FACTOR·n_trials trials drawn from
    an independent stream. A student's mean over n independent trials and the reference mean over
    m·n trials differ by noise of standard error s·sqrt(1/n + 1/(m·n)), where s is the per-trial
    standard deviation, estimated from the reference trials (m·n >= 800 makes that estimate good
    to a few per cent). The band is MC_STANDARD_ERRORS of those.
    """
    trials = saturation_trials(d_k, n_keys, REFERENCE_TRIAL_FACTOR * n_trials, scale,
                               np.random.default_rng([seed, 1]))  # key -> [m·n_trials]
    band = {}
    for key in SATURATION_KEYS:
        spread = float(trials[key].std(ddof=1))
        standard_error = spread * np.sqrt(1.0 / n_trials + 1.0 / (REFERENCE_TRIAL_FACTOR * n_trials))
        band[key] = (float(trials[key].mean()), MC_STANDARD_ERRORS * standard_error + 1e-12)
    return band


def _judge_saturation(case: Case, value) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return WRONG_TYPE, f"expected a dict with keys {list(SATURATION_KEYS)}, got a {type(value).__name__}."
    missing = [key for key in SATURATION_KEYS if key not in value]
    if missing:
        return WRONG_TYPE, f"the dict has no key(s) {missing}."
    d_k, n_keys, n_trials, scale, seed = case.args
    band = saturation_band(d_k, n_keys, n_trials, scale, seed.seed)
    for key in SATURATION_KEYS:
        centre, half_width = band[key]
        problem = compare_answer(centre, kernel_probe.encode(value[key]), 0.0, half_width)
        if problem is not None and problem[0] == INACCURATE:
            return INACCURATE, (f"entry {key!r}: the mean is further from the expected value than the "
                                f"sampling noise of {n_trials} trials explains "
                                f"(more than {MC_STANDARD_ERRORS:g} standard errors).")
        if problem is not None:
            return problem[0], f"entry {key!r}: {problem[1]}"
    return None


def saturation_unscaled(d_k: int, n_keys: int, n_trials: int, scale: float, rng) -> dict[str, float]:
    """The experiment with the scores never divided by ``scale``."""
    return saturation_experiment(d_k, n_keys, n_trials, 1.0, rng)


def saturation_gap_before_scaling(d_k: int, n_keys: int, n_trials: int, scale: float, rng) -> dict[str, float]:
    """The experiment with the top1 - top2 gap measured on the raw scores, before dividing by ``scale``."""
    result = saturation_experiment(d_k, n_keys, n_trials, scale, rng)
    return {**result, "gap": result["gap"] * float(scale)}


# ---- score_gradient -------------------------------------------------------------------------

def _gradient_cases(rng: np.random.Generator) -> list[Case]:
    n = int(rng.integers(3, 11))
    batch = int(rng.integers(2, 7))
    return [
        Case(f"a score vector of {n} classes with a target index", (rng.normal(0.0, 3.0, size=n), int(rng.integers(n)))),
        Case(f"a batch of {batch} score rows with one target each",
             (rng.normal(0.0, 3.0, size=(batch, n)), rng.integers(0, n, size=batch))),
        Case("a 3-D batch of shape (2, 3, n)", (rng.normal(0.0, 3.0, size=(2, 3, n)), rng.integers(0, n, size=(2, 3)))),
        Case("large scores (around 1e4)", (1e4 + rng.normal(0.0, 3.0, size=n), int(rng.integers(n)))),
        Case("a single class (n = 1)", (np.array([float(rng.normal())]), 0)),
        Case("float32 scores", (rng.normal(0.0, 3.0, size=(2, n)).astype(np.float32), rng.integers(0, n, size=2))),
        Case("a target equal to the number of classes", (rng.normal(size=n), n), raises="ValueError"),
        Case("a negative target", (rng.normal(size=n), -1), raises="ValueError"),
        Case("targets whose shape does not match the batch", (rng.normal(size=(3, n)), np.zeros(2, dtype=np.int64)),
             raises="ValueError"),
    ]


def _one_hot(scores, target) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    return (np.arange(scores.shape[-1]) == np.asarray(target)[..., None]).astype(np.float64)  # [..., n]


def score_gradient_flipped_sign(scores, target) -> np.ndarray:
    """onehot(target) - softmax(s): the gradient of +log p, which points uphill in the loss."""
    return _one_hot(scores, target) - softmax(scores)


def score_gradient_without_softmax(scores, target) -> np.ndarray:
    """s - onehot(target): the raw scores in place of the probabilities softmax(s)."""
    return np.asarray(scores, dtype=np.float64) - _one_hot(scores, target)


def score_gradient_without_max_subtraction(scores, target) -> np.ndarray:
    """softmax(s) - onehot(target) with a softmax that does not subtract the maximum (nan for large scores)."""
    return softmax_without_max_subtraction(scores) - _one_hot(scores, target)


# ---- unit_variance_scale --------------------------------------------------------------------

def _scale_cases(rng: np.random.Generator) -> list[Case]:
    others = rng.choice(np.arange(2, 1025), size=2, replace=False)
    return [
        Case("d_k = 64", (64,)),
        Case("d_k = 1", (1,)),
        *(Case(f"d_k = {int(d)}", (int(d),)) for d in others),
        Case("d_k = 0", (0,), raises="ValueError"),
    ]


def scale_d_k(d_k: int) -> float:
    """d_k itself as the divisor, which makes σ(q·k / d_k) = 1/sqrt(d_k)."""
    return float(d_k)


def scale_reciprocal(d_k: int) -> float:
    """1/sqrt(d_k): the factor to multiply by, given where the divisor is asked for."""
    return float(1.0 / np.sqrt(d_k))


# ---- the answers ----------------------------------------------------------------------------

_SCORES = np.array([14.0, 10.0, 12.0])  # the Blog's example scores

ROUNDED_UNSCALED = np.array([0.867, 0.016, 0.117])
ROUNDED_SCALED = np.array([0.419, 0.254, 0.327])
ROUNDED_WORKED_EXAMPLE = np.array([0.90, 0.041, 0.003, 0.055])

_ROUNDED_EXPLANATION = ("you typed the lesson's rounded numbers; compute the weights with your softmax, "
                        "since the answer is graded to 1e-6 relative")


# ---- the checks -----------------------------------------------------------------------------

CHECKS = [
    Check(
        name="softmax",
        reference=softmax,
        cases=_softmax_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §3",
        misconceptions=[
            Misconception(
                "no max subtraction",
                "your weights equal softmax without subtracting the maximum: exp(1e4) overflows to inf "
                "(and exp(-1e308) underflows to 0), so the division gives nan",
                "L3 §3", softmax_without_max_subtraction),
            Misconception(
                "wrong axis",
                "your softmax normalises over the first axis, so in a batch each column sums to one instead "
                "of each row (each query's weights over its keys)",
                "L3 §3", softmax_over_first_axis),
            Misconception(
                "sums without keepdims",
                "you divided by sums taken without keepdims=True, so broadcasting divides column j by the "
                "sum of row j; it runs only on square input and normalises along the wrong axis there",
                "L3 §3", softmax_without_keepdims),
            Misconception(
                "maximum of the whole array",
                "you subtracted the maximum of the whole array instead of each row's, so a row far below it "
                "underflows to 0/0 = nan",
                "L3 §3", softmax_global_max),
        ],
    ),
    Check(
        name="entropy",
        reference=entropy,
        cases=_entropy_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §3",
        misconceptions=[
            Misconception(
                "entropy in bits",
                "your entropy is in bits (log base 2); the lesson measures it in nats with the natural log, "
                "so uniform weights over 64 keys give log 64 = 4.16",
                "L3 §3", entropy_in_bits),
            Misconception(
                "0·log 0 not handled",
                "a zero probability makes p·log p = 0·(-inf) = nan; by convention 0·log 0 = 0, so skip or "
                "mask the zero entries",
                "L3 §3", entropy_nan_at_zero),
            Misconception(
                "missing minus sign",
                "you returned sum p·log p, which is never positive; entropy is -sum p·log p",
                "L3 §3", entropy_without_minus),
        ],
    ),
    Check(
        name="saturation_experiment",
        reference=saturation_experiment,
        cases=_saturation_cases,
        # Only for naming a misconception: the judge applies the statistical band itself.
        rtol=MC_MISCONCEPTION_RTOL,
        atol=MC_MISCONCEPTION_ATOL,
        judge=_judge_saturation,
        lesson="L3 §3",
        misconceptions=[
            Misconception(
                "scale ignored",
                "your scores are never divided by scale, so every run looks like the unscaled one: "
                "dividing by sqrt(d_k) is what brings the weights back from saturation",
                "L3 §5", saturation_unscaled),
            Misconception(
                "gap before scaling",
                "your gap is measured on the raw scores; the contract asks for top1 - top2 after dividing "
                "by scale, the gap softmax actually sees",
                "L3 §4", saturation_gap_before_scaling),
        ],
    ),
    Check(
        name="score_gradient",
        reference=score_gradient,
        cases=_gradient_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §4",
        misconceptions=[
            Misconception(
                "flipped sign",
                "you returned onehot - softmax, the gradient of +log p; the gradient of the loss "
                "-log p is softmax(s) - onehot(target)",
                "L3 §4", score_gradient_flipped_sign),
            Misconception(
                "scores instead of probabilities",
                "you subtracted the one-hot target from the raw scores; the gradient uses the "
                "probabilities softmax(s)",
                "L3 §4", score_gradient_without_softmax),
            Misconception(
                "no max subtraction",
                "your softmax does not subtract the maximum, so large scores overflow and the gradient is nan",
                "L3 §3", score_gradient_without_max_subtraction),
        ],
    ),
    Check(
        name="unit_variance_scale",
        reference=unit_variance_scale,
        cases=_scale_cases,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §5",
        misconceptions=[
            Misconception(
                "divide by d_k",
                "you divide by d_k, which is Var(q·k); dividing by a variance shrinks the scores far below "
                "unit spread, since the divisor has to match σ(q·k), not Var(q·k)",
                "L3 §7", scale_d_k),
            Misconception(
                "multiplier instead of divisor",
                "you returned the factor to multiply q·k by; the contract asks for the divisor c in q·k / c",
                "L3 §5", scale_reciprocal),
        ],
    ),
    Check(
        name="answer_worked_example",
        reference=answer_worked_example,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="L3 §3",
        misconceptions=[
            Misconception("rounded lesson values", _ROUNDED_EXPLANATION, "L3 §3", ROUNDED_WORKED_EXAMPLE),
        ],
    ),
    Check(
        name="answer_weights_unscaled",
        reference=answer_weights_unscaled,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="Blog",
        misconceptions=[
            Misconception(
                "scaled weights",
                "these are the weights after dividing the scores by 8; this answer asks for softmax of the "
                "raw scores [14, 10, 12]",
                "Blog", answer_weights_scaled),
            Misconception("rounded lesson values", _ROUNDED_EXPLANATION, "Blog", ROUNDED_UNSCALED),
        ],
    ),
    Check(
        name="answer_weights_scaled",
        reference=answer_weights_scaled,
        rtol=EXACT_RTOL,
        atol=EXACT_ATOL,
        lesson="Blog",
        misconceptions=[
            Misconception(
                "divided by d_k",
                "you divided the scores by d_k = 64 instead of sqrt(d_k) = 8, which flattens the weights "
                "towards uniform",
                "L3 §7", softmax(_SCORES / 64.0)),
            Misconception(
                "unscaled weights",
                "these are the weights of the raw scores; divide [14, 10, 12] by sqrt(64) = 8 first",
                "Blog", answer_weights_unscaled),
            Misconception("rounded lesson values", _ROUNDED_EXPLANATION, "Blog", ROUNDED_SCALED),
        ],
    ),
    Check(
        name="answer_culprit",
        reference=answer_culprit,
        lesson="L3 §4",
        misconceptions=[
            Misconception(
                "vanishing gradient",
                "the gradient p - y does not vanish at σ = 8: on rows the model gets wrong ‖p - y‖ stays "
                "near 1.3, close to its largest possible value sqrt(2)",
                "L3 §4", "A"),
            Misconception(
                "overflow",
                "a stable softmax does not overflow at σ = 8 (the scores are only tens), so nothing becomes "
                "nan",
                "L3 §3", "C"),
            Misconception(
                "values",
                "the spread of the scores does not change V at all, so V cannot be what goes wrong at σ = 8",
                "L3 §4", "D"),
        ],
    ),
]
