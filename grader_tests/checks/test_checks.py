"""Every hidden check, judged in-process as grading judges it: what it accepts, rejects and names.

One module for the checks of all four assignments: each test is parametrized over every check (or
every known wrong answer of ``grader.checks.misconceptions``). Cases travel as JSON,
``grader.kernel_side.collect`` calls the answer in a namespace, and ``Check.decide`` judges the
report against ``solutions`` (``check_harness.judge``). Tests of one check's own judge (statistical
bands, answers in any order) are in ``test_check_judges.py``.
"""
from __future__ import annotations

import contextlib
import inspect
import warnings

import numpy as np
import pytest
from check_harness import VARIANT_STUDENTS, judge, model_answer_namespace, wrong_answer_namespace

import solutions
from grader.checks import all_checks, assignment_checks
from grader.checks.api import INACCURATE, NOT_ATTEMPTED, NOT_DEFINED, WRONG_SHAPE, RngSeed
from grader.checks.misconceptions import KNOWN_WRONG_ANSWERS
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT

SEEDS = (0, 1)
CHECKS = list(all_checks().values())
FUNCTION_CHECKS = [c for c in CHECKS if c.kind == "function"]
VALUE_CHECKS = [c for c in CHECKS if c.kind == "value"]
NUMERIC_VALUE_CHECKS = [c for c in VALUE_CHECKS if not isinstance(c.expected_value(), str)]
ARRAY_VALUE_CHECKS = [c for c in NUMERIC_VALUE_CHECKS if np.ndim(c.expected_value()) >= 1]
WRONG_ANSWERS = [(all_checks()[name], m) for name, known in KNOWN_WRONG_ANSWERS.items() for m in known]
WRONG_FUNCTIONS = [m.mistake for c, m in WRONG_ANSWERS if c.kind == "function"]
ASSIGNMENT_OF = {name: assignment for assignment, names in assignment_checks().items() for name in names}


def ids(items):
    return [f"{item[0].name}-{item[1].name}" if isinstance(item, tuple) else item.name for item in items]


def blank(*args, **kwargs):
    raise NotImplementedError()


@pytest.fixture(scope="module")
def model_answers():
    """assignment -> the namespace left by its source notebook's setup and solution cells."""
    return {a: model_answer_namespace(REPO_ROOT / "source" / a / f"{name}.ipynb") for a, name in ASSIGNMENTS.items()}


def test_every_item_of_the_student_api_has_exactly_one_check():
    assert sorted(c.name for c in CHECKS) == sorted(ASSIGNMENT_OF)


def test_every_known_wrong_answer_belongs_to_a_check():
    assert set(KNOWN_WRONG_ANSWERS) <= set(all_checks())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("check", CHECKS, ids=ids(CHECKS))
def test_reference_gets_full_marks(check, seed):
    verdict = judge(check, {check.name: getattr(solutions, check.name)}, seed)
    assert verdict.fraction == 1.0, verdict.explain()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("check", CHECKS, ids=ids(CHECKS))
def test_model_answer_of_the_notebook_gets_full_marks(check, seed, model_answers):
    verdict = judge(check, model_answers[ASSIGNMENT_OF[check.name]], seed)
    assert verdict.fraction == 1.0, verdict.explain()


@pytest.mark.parametrize("check, misconception", WRONG_ANSWERS, ids=ids(WRONG_ANSWERS))
def test_each_known_wrong_answer_fails_and_is_named(check, misconception):
    judged = 0
    for student in VARIANT_STUDENTS if check.kind == "value" else (None,):
        namespace = wrong_answer_namespace(check, misconception, student)
        if namespace is None:
            continue  # the lesson's numbers are this student's, or give the student's answer
        verdict = judge(check, namespace)
        assert verdict.fraction < 1.0
        assert verdict.misconception is not None and verdict.misconception.name == misconception.name, \
            (student, verdict.explain())
        judged += 1
    assert judged >= (1 if check.kind == "function" else len(VARIANT_STUDENTS) // 2)


@pytest.mark.parametrize("mistake", WRONG_FUNCTIONS, ids=lambda v: v.__name__)
def test_each_wrong_function_takes_the_parameters_of_the_function_it_imitates(mistake):
    name = next(check.name for check, m in WRONG_ANSWERS if m.mistake is mistake)
    imitated = list(inspect.signature(getattr(solutions, name)).parameters)
    assert list(inspect.signature(mistake).parameters) == imitated


@pytest.mark.parametrize("mistake", WRONG_FUNCTIONS, ids=lambda v: v.__name__)
def test_each_wrong_function_states_its_mistake_in_a_one_line_docstring(mistake):
    assert mistake.__doc__ and "\n" not in mistake.__doc__.strip()


@pytest.mark.parametrize("check", FUNCTION_CHECKS, ids=ids(FUNCTION_CHECKS))
def test_model_answer_never_warns_on_the_hidden_cases(check, model_answers):
    def fresh(value):
        return np.random.default_rng(value.seed) if isinstance(value, RngSeed) else value

    function = model_answers[ASSIGNMENT_OF[check.name]][check.name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow, invalid and divide warnings become errors
        for case in check.draw_cases(SEEDS[0]):
            with contextlib.suppress(ValueError) if case.raises else contextlib.nullcontext():
                function(*map(fresh, case.args), **{key: fresh(value) for key, value in case.kwargs.items()})


@pytest.mark.parametrize("check", FUNCTION_CHECKS, ids=ids(FUNCTION_CHECKS))
def test_untouched_stub_scores_zero_and_is_reported_as_not_attempted(check):
    verdict = judge(check, {check.name: blank})
    assert verdict.fraction == 0.0
    assert verdict.stage == NOT_ATTEMPTED


@pytest.mark.parametrize("check", VALUE_CHECKS, ids=ids(VALUE_CHECKS))
def test_missing_quiz_answer_scores_zero_as_not_defined(check):
    verdict = judge(check, {})
    assert verdict.fraction == 0.0
    assert verdict.stage == NOT_DEFINED


@pytest.mark.parametrize("check", NUMERIC_VALUE_CHECKS, ids=ids(NUMERIC_VALUE_CHECKS))
def test_quiz_answer_off_by_one_in_ten_thousand_scores_zero(check):
    wrong = np.asarray(check.expected_value(), dtype=np.float64) * (1 + 1e-4)
    verdict = judge(check, {check.name: wrong if wrong.ndim else float(wrong)})
    assert verdict.fraction == 0.0
    assert verdict.stage == INACCURATE


@pytest.mark.parametrize("check", ARRAY_VALUE_CHECKS, ids=ids(ARRAY_VALUE_CHECKS))
def test_quiz_array_as_a_column_is_a_wrong_shape(check):
    verdict = judge(check, {check.name: np.asarray(check.expected_value())[:, None]})
    assert verdict.fraction == 0.0
    assert verdict.stage == WRONG_SHAPE


def _with_extra_axis(value):
    if isinstance(value, tuple):
        return tuple(_with_extra_axis(item) for item in value)
    if isinstance(value, np.ndarray) and value.ndim >= 1:
        return value[None]
    return value


def _returns_arrays(check) -> bool:
    case = next(c for c in check.draw_cases(SEEDS[0]) if not c.raises)
    output = case.call(check.reference)
    return any(isinstance(v, np.ndarray) and v.ndim >= 1 for v in (output if isinstance(output, tuple) else (output,)))


ARRAY_FUNCTION_CHECKS = [c for c in FUNCTION_CHECKS if c.judge is None and _returns_arrays(c)]


@pytest.mark.parametrize("check", ARRAY_FUNCTION_CHECKS, ids=ids(ARRAY_FUNCTION_CHECKS))
def test_arrays_with_an_extra_axis_are_reported_as_a_wrong_shape(check):
    reference = check.reference

    def with_extra_axis(*args, **kwargs):
        return _with_extra_axis(reference(*args, **kwargs))

    verdict = judge(check, {check.name: with_extra_axis})
    assert verdict.fraction < 1.0
    assert verdict.stage == WRONG_SHAPE, verdict.explain()
