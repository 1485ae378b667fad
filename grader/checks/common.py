"""The public surface for writing checks: ``function_check``, ``value_check`` and shared helpers.

A course declares the checks of assignment ``<id>`` in ``source/<id>/checks.py``, beside its notebook
(found by ``grader.checks.discovery``). Every checks file has the same layout::

    \"\"\"Hidden checks of assignment <id> (<notebook>; <lessons>).\"\"\"
    imports: numpy, the course's reference package, grader.checks.api, grader.checks.common
    # ---- <api name> ----   one section per item of the student API: its case drawer
                             (``_<name>_cases(rng) -> list[Case]``), its known wrong answers
                             (:class:`grader.checks.api.Misconception`) and, for stochastic functions, its judge
    CHECKS = [function_check("<name>", reference, _<name>_cases, "<lesson>", wrong_answers=...), ...,
              value_check("answer_<x>", reference_of_numbers, "<lesson>", wrong_answers=...)]

The order of ``CHECKS`` is the order of the notebook: it is the assignment's student API. A check
that needs anything else is a plain :class:`grader.checks.api.Check`.

Cases are drawn by category: a drawer returns the same list of labelled cases for every seed, in
the same order and with the same weights, and only the values inside a case vary. A wrong implementation
then fails the same categories on every draw, so its partial credit does not depend on the seed.
Tolerances are the defaults of :class:`grader.checks.api.Check` unless a check says otherwise.

Wording rules for a known wrong answer (tested by ``grader_tests/checks/test_feedback_is_answer_free.py``):
its explanation names the mistake and its consequence in plain words, for a student who will reread
the lesson section given; it never states a quiz item's expected value, nor an expression or a
one-step instruction ("take its square root", "divide by 8") that yields it.
"""
from __future__ import annotations

import numpy as np

from grader.checks.api import INACCURATE, NOT_FINITE, WRONG_TYPE, Check, Misconception, RngSeed

#: Half-width of every statistical band, in standard errors of the estimate.
#:
#: A correct estimate outside z standard errors is a false rejection. For a normal estimate the
#: rate is 2·Φ(−z): 5.7e-7 at z = 5, 2.0e-9 at z = 6. The estimates judged here are means of
#: squares or of bounded per-trial values over a few hundred to a few thousand draws, skewed to the
#: right, whose tails are heavier than normal for the sizes used (the skewness term of the
#: Edgeworth expansion adds about γ·z²·φ(z)/(6·√n), which at z = 5 and the largest skewness here,
#: the Wishart part of ``projected_score_variance``, brings the rate to about 1e-5). At z = 6 the
#: same term keeps it below 1e-7 per case, so that grading the corpus on 200 seeds (a few thousand
#: statistical cases) almost never rejects a correct answer, while every known wrong implementation
#: differs from the truth by tens of standard errors and is still caught.
STANDARD_ERRORS = 6.0

#: The name of the misconception "answered with the lesson's numbers instead of my own".
LESSONS_NUMBERS = "lesson's numbers"
LESSONS_NUMBERS_EXPLANATION = ("your answer fits the lesson's worked numbers, not your own: this item is graded "
                               "for the numbers printed at the top of your notebook (`my_numbers`)")


def seed_input(rng: np.random.Generator) -> RngSeed:
    """An input slot for a fresh ``numpy.random.Generator``, its seed drawn from the check's ``rng``."""
    return RngSeed(int(rng.integers(2**32)))


def is_real_scalar(value) -> bool:
    """True for one real number (Python or numpy int/float), False for bools, arrays and anything else."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def judge_estimate(value, centre: float, standard_error: float, what: str, n: int, unit: str,
                   minimum: float | None = None, maximum: float | None = None):
    """None when ``value`` is one finite number within STANDARD_ERRORS of ``centre``; else (stage, detail).

    what: what the number means to the student ("your variance", "your success rate"); n and unit:
    the size of the student's experiment ("2000", "samples"); minimum / maximum: bounds that any
    value of this kind respects (a variance is never negative), named in the detail when broken.
    """
    if not is_real_scalar(value):
        return WRONG_TYPE, (f"{what} should be one number (a float), but your function returned "
                            f"a {type(value).__name__}.")
    estimate = float(value)
    if not np.isfinite(estimate):
        return NOT_FINITE, f"{what} is nan or inf."
    if minimum is not None and estimate < minimum:
        return INACCURATE, f"{what} is below {minimum:g}, which no value of this kind can be."
    if maximum is not None and estimate > maximum:
        return INACCURATE, f"{what} is above {maximum:g}, which no value of this kind can be."
    if abs(estimate - centre) <= STANDARD_ERRORS * standard_error + 1e-12 * max(abs(centre), 1.0):
        return None
    return INACCURATE, (f"{what} is further from the expected value than the sampling noise of {n} {unit} "
                        f"explains (more than {STANDARD_ERRORS:g} standard errors).")


def function_check(name: str, reference, cases, lesson: str, wrong_answers=(), **options) -> Check:
    """The check of the student API function ``name``.

    reference: the correct function (same signature as the student's); cases: the case drawer
    ``cases(rng) -> list[Case]``; lesson: the section to reread; wrong_answers: the known
    :class:`Misconception` s, their variants with the function's signature; options: the other
    :class:`Check` fields (``judge``, ``rtol``, ``atol``, ``output_names``).
    """
    return Check(name=name, reference=reference, cases=cases, lesson=lesson,
                 misconceptions=tuple(wrong_answers), **options)


def value_check(name: str, reference, lesson: str, wrong_answers=(), numbers=None, **options) -> Check:
    """The check of the quiz answer ``name`` (its value is read, not called), graded for the student's numbers.

    reference: the item's answer as a function of its numbers (keyword arguments named as in
    ``my_numbers[name]``); wrong_answers: known :class:`Misconception` s, each one's mistake a function of
    the item's numbers (a dict) giving the wrong value. numbers: {parameter: (low, high)}, the
    whole-number range of each of the item's numbers, both ends included (an item of the course's
    registry, ``course_numbers.LESSON_NUMBERS``, leaves it None). For a numeric item one more wrong
    answer is tried last: the lesson's own answer, typed in instead of computing from ``my_numbers``.
    """
    check = Check(name=name, reference=reference, lesson=lesson, misconceptions=tuple(wrong_answers),
                  number_ranges=None if numbers is None else dict(numbers), **options)
    if not isinstance(check.expected_value(), str):
        check.misconceptions = (*check.misconceptions, lessons_numbers_misconception(check))
    return check


def lessons_numbers_misconception(check: Check) -> Misconception:
    """The mistake of answering with the lesson's numbers when the student's own differ."""
    lesson_numbers = check.lesson_numbers()
    lesson_answer = check.expected_value(lesson_numbers)

    def lessons_answer(numbers):
        return None if numbers is None or numbers == lesson_numbers else lesson_answer

    return Misconception(LESSONS_NUMBERS, LESSONS_NUMBERS_EXPLANATION, check.lesson, lessons_answer)
