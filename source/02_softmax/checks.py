"""Hidden checks of assignment 02_softmax (``softmax.ipynb``; L3 §3–5, Blog tables).

Layout and shared helpers: ``grader.checks.common``; found by ``grader.checks.discovery``.
``saturation_experiment`` is stochastic, so
each of its means is judged against a statistical band around a larger reference run on
independent draws.
"""
from __future__ import annotations

import zlib

import numpy as np

import solutions
from grader import kernel_side
from grader.checks.api import INACCURATE, WRONG_TYPE, Case, Misconception, compare_answer, plural
from grader.checks.common import STANDARD_ERRORS, function_check, seed_input, value_check
from grader.checks.reference_cache import remembered
from solutions import misconceptions as mistake
from solutions.quiz import QUIZ_ANSWERS, quiz_answer
from solutions.saturation import option_letter
from solutions.variants import LESSON_NUMBERS

#: The reference run that sets the centre of the band has this many times the student's trials.
REFERENCE_TRIAL_FACTOR = 4

#: How far a student's saturation means may sit from a misconception's own run and still be read
#: as that misconception (two independent runs of a few hundred trials differ by a few per cent;
#: the misconceptions differ from the truth by a factor of 2 or more where they fail).
MC_MISCONCEPTION_RTOL = 0.25
MC_MISCONCEPTION_ATOL = 0.05

SATURATION_KEYS = ("max_weight", "entropy", "gap")

#: Shown with the feedback of answer_culprit once it is answered correctly, never in the notebook.
CULPRIT_DISCUSSION = (
    "The Blog's explanation, read against L3 §4. The Blog (\"为什么必须用√d_k缩放点积\") explains the need for "
    "scaling by saying that large scores saturate the softmax and that the gradient then vanishes. L3 §4 tests "
    "that explanation instead of assuming it. The gradient that reaches the scores is p − y (Part 5). When a "
    "saturated softmax puts its weight on the right key, p − y is indeed close to zero — but then there is "
    "nothing left to learn. On the rows that matter, where the weight sits on a wrong key, p is close to a "
    "one-hot vector at the wrong place and y is the one-hot target, so ‖p − y‖ approaches √2, its largest "
    "possible value: L3 §4 measures about 1.28 at σ = 8 (experiment P3, the evidence cell before the question). "
    "A saturated softmax therefore still sends a large gradient exactly where the model is wrong; saturation "
    "is not the same thing as a vanishing gradient. The Blog's conclusion (divide by √d_k) stands, but its "
    "reason does not.")


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


# ---- entropy --------------------------------------------------------------------------------

def _distribution(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random probabilities along the last axis: softmax of N(0, 2²) logits."""
    return solutions.softmax(rng.normal(0.0, 2.0, size=shape))


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


# ---- saturation_experiment ------------------------------------------------------------------

def _saturation_cases(rng: np.random.Generator) -> list[Case]:
    # A few settings per category, so that each reference band is computed once (``saturation_band``).
    d_k = int(rng.choice([8, 16, 32]))
    n_keys = int(rng.choice([8, 16, 32]))
    scale = float(rng.choice([2.0, 3.0, 5.0]))
    return [
        Case("d_k = 64, 64 keys, 200 trials, scale = 1", (64, 64, 200, 1.0, seed_input(rng))),
        Case("d_k = 64, 64 keys, 200 trials, scale = 8", (64, 64, 200, 8.0, seed_input(rng))),
        Case(f"d_k = {d_k}, {n_keys} keys, 300 trials, scale = {scale}", (d_k, n_keys, 300, scale, seed_input(rng))),
        Case("d_k = 1, 8 keys, 400 trials, scale = 1", (1, 8, 400, 1.0, seed_input(rng))),
        Case("d_k = 16, 2 keys, 400 trials, scale = 4", (16, 2, 400, 4.0, seed_input(rng))),
        Case("a single key (n_keys = 1)", (8, 1, 10, 1.0, seed_input(rng)), raises="ValueError"),
        Case("scale = 0", (8, 4, 10, 0.0, seed_input(rng)), raises="ValueError"),
        Case("d_k = 0", (0, 4, 10, 1.0, seed_input(rng)), raises="ValueError"),
    ]


@remembered
def saturation_band(d_k: int, n_keys: int, n_trials: int, scale: float) -> dict[str, list[float]]:
    """key -> [centre, half-width] of the accepted means of a saturation case (computed once per
    course: ``grader.checks.reference_cache``).

    The centre is the mean of a reference run of REFERENCE_TRIAL_FACTOR·n_trials trials drawn from
    a stream fixed by the setting (so a setting's band is computed once), independent of the
    student's. A student's mean over n independent trials and the reference mean over
    m·n trials differ by noise of standard error s·sqrt(1/n + 1/(m·n)), where s is the per-trial
    standard deviation, estimated from the reference trials (m·n >= 800 makes that estimate good
    to a few per cent). The band is STANDARD_ERRORS of those.
    """
    trials = solutions.saturation_trials(d_k, n_keys, REFERENCE_TRIAL_FACTOR * n_trials, scale,
                               np.random.default_rng(zlib.crc32(repr((d_k, n_keys, n_trials, scale)).encode())))
    band = {}
    for key in SATURATION_KEYS:
        spread = float(trials[key].std(ddof=1))
        standard_error = spread * np.sqrt(1.0 / n_trials + 1.0 / (REFERENCE_TRIAL_FACTOR * n_trials))
        band[key] = [float(trials[key].mean()), float(STANDARD_ERRORS * standard_error + 1e-12)]
    return band


def _judge_saturation(case: Case, value) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return WRONG_TYPE, (f"the function should return a dict with the keys {', '.join(SATURATION_KEYS)}, "
                            f"but yours returned a {type(value).__name__}.")
    missing = [key for key in SATURATION_KEYS if key not in value]
    if missing:
        return WRONG_TYPE, f"the dict you returned has no {plural(len(missing), 'key')} {', '.join(missing)}."
    d_k, n_keys, n_trials, scale, _ = case.args
    band = saturation_band(int(d_k), int(n_keys), int(n_trials), float(scale))
    for key in SATURATION_KEYS:
        centre, half_width = band[key]
        problem = compare_answer(centre, kernel_side.encode(value[key]), 0.0, half_width, f"your mean {key!r}")
        if problem is not None and problem[0] == INACCURATE:
            return INACCURATE, (f"your mean {key!r} is further from the expected value than the "
                                f"sampling noise of {n_trials} trials explains "
                                f"(more than {STANDARD_ERRORS:g} standard errors).")
        if problem is not None:
            return problem
    return None


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


# ---- unit_variance_scale --------------------------------------------------------------------

def _scale_cases(rng: np.random.Generator) -> list[Case]:
    others = rng.choice(np.arange(2, 1025), size=2, replace=False)
    return [
        Case("d_k = 64", (64,)),
        Case("d_k = 1", (1,)),
        *(Case(f"d_k = {int(d)}", (int(d),)) for d in others),
        Case("d_k = 0", (0,), raises="ValueError"),
    ]


# ---- known wrong answers ------------------------------------------------------------------

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


#: check name -> the misconceptions its feedback can name: a wrong function is a wrong implementation from
#: ``solutions.misconceptions`` (same signature); a wrong quiz value is a function of the item's numbers.
WRONG_ANSWERS: dict[str, tuple[Misconception, ...]] = {
    "softmax": (
        Misconception("no max subtraction", "your weights equal softmax without subtracting the maximum: exp of "
                      "a large logit overflows to inf (and of a very negative one underflows to 0), so the "
                      "division gives nan", "L3 §3", mistake.softmax_without_max_subtraction),
        Misconception("wrong axis", "your softmax normalises over the first axis, so in a batch each column "
                      "sums to one instead of each row (each query's weights over its keys)", "L3 §3",
                      mistake.softmax_over_first_axis),
        Misconception("sums without keepdims", "you divided by sums taken without keepdims=True, so "
                      "broadcasting divides along the wrong axis; it runs only on square input", "L3 §3",
                      mistake.softmax_without_keepdims),
        Misconception("maximum of the whole array", "you subtracted the maximum of the whole array instead of "
                      "each row's, so a row far below it underflows to 0/0 = nan", "L3 §3",
                      mistake.softmax_global_max),
    ),
    "entropy": (
        Misconception("entropy in bits", "your entropy is in bits (log base 2); the lesson measures it in nats, "
                      "with the natural log", "L3 §3", mistake.entropy_in_bits),
        Misconception("0·log 0 not handled", "a zero probability makes p·log p = 0·(-inf) = nan; by convention "
                      "0·log 0 = 0, so zero entries must contribute nothing", "L3 §3", mistake.entropy_nan_at_zero),
        Misconception("missing minus sign", "you returned the sum of p·log p, which is never positive; entropy "
                      "carries a minus sign", "L3 §3", mistake.entropy_without_minus),
    ),
    "saturation_experiment": (
        Misconception("scale ignored", "your scores are never divided by scale, so every run looks like the "
                      "unscaled one; dividing by the scale is what brings the weights back from saturation",
                      "L3 §5", mistake.saturation_unscaled),
        Misconception("gap before scaling", "your gap is measured on the raw scores; the contract asks for the "
                      "top1 - top2 gap after dividing by scale, the gap softmax actually sees", "L3 §4",
                      mistake.saturation_gap_before_scaling),
    ),
    "score_gradient": (
        Misconception("flipped sign", "your gradient has the opposite sign: it is the gradient of +log p, which "
                      "points uphill in the loss -log p", "L3 §4", mistake.score_gradient_flipped_sign),
        Misconception("scores instead of probabilities", "you subtracted the one-hot target from the raw scores; "
                      "the gradient uses the probabilities softmax(s)", "L3 §4",
                      mistake.score_gradient_without_softmax),
        Misconception("no max subtraction", "your softmax does not subtract the maximum, so large scores overflow "
                      "and the gradient is nan", "L3 §3", mistake.score_gradient_without_max_subtraction),
    ),
    "unit_variance_scale": (
        Misconception("divide by d_k", "you divide by d_k, which is Var(q·k); the divisor has to match the "
                      "spread σ(q·k), not the variance, or the scores shrink far below unit spread", "L3 §7",
                      mistake.scale_d_k),
        Misconception("multiplier instead of divisor", "you returned the factor to multiply q·k by; the "
                      "contract asks for the divisor c in q·k / c", "L3 §5", mistake.scale_reciprocal),
    ),
    "answer_worked_example": (
        Misconception("rounded lesson values", _ROUNDED, "L3 §3",
                      _rounded("answer_worked_example", np.array([0.90, 0.041, 0.003, 0.055]))),
    ),
    "answer_weights_unscaled": (
        Misconception("scaled weights", "these are the weights after scaling the scores; this answer asks for "
                      "the weights of the unscaled scores", "Blog",
                      lambda n: quiz_answer("answer_weights_scaled", n)),
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
}


# ---- the checks -----------------------------------------------------------------------------

CHECKS = [
    function_check("softmax", solutions.softmax, _softmax_cases, "L3 §3", wrong_answers=WRONG_ANSWERS["softmax"]),
    function_check("entropy", solutions.entropy, _entropy_cases, "L3 §3", wrong_answers=WRONG_ANSWERS["entropy"]),
    # rtol / atol only for naming a misconception: the judge applies the statistical band itself
    function_check("saturation_experiment", solutions.saturation_experiment, _saturation_cases, "L3 §3",
                   judge=_judge_saturation,
                   rtol=MC_MISCONCEPTION_RTOL, atol=MC_MISCONCEPTION_ATOL,
                   wrong_answers=WRONG_ANSWERS["saturation_experiment"]),
    function_check("score_gradient", solutions.score_gradient, _gradient_cases, "L3 §4",
                   wrong_answers=WRONG_ANSWERS["score_gradient"]),
    function_check("unit_variance_scale", solutions.unit_variance_scale, _scale_cases, "L3 §5",
                   wrong_answers=WRONG_ANSWERS["unit_variance_scale"]),
    value_check("answer_worked_example", QUIZ_ANSWERS["answer_worked_example"], "L3 §3",
                wrong_answers=WRONG_ANSWERS["answer_worked_example"]),
    value_check("answer_weights_unscaled", QUIZ_ANSWERS["answer_weights_unscaled"], "Blog",
                wrong_answers=WRONG_ANSWERS["answer_weights_unscaled"]),
    value_check("answer_weights_scaled", QUIZ_ANSWERS["answer_weights_scaled"], "Blog",
                wrong_answers=WRONG_ANSWERS["answer_weights_scaled"]),
    value_check("answer_culprit", QUIZ_ANSWERS["answer_culprit"], "L3 §4", discussion=CULPRIT_DISCUSSION,
                wrong_answers=WRONG_ANSWERS["answer_culprit"]),
]
