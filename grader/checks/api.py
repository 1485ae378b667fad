"""The check API: what one hidden check asks, and how the trusted side judges the answer.

A :class:`Check` is named after the student API item it grades (``softmax``,
``answer_culprit``) and declared in the assignment's checks file, ``source/<id>/checks.py``. It
owns everything the student must not see: how inputs are drawn, the reference, tolerances and
the known wrong implementations. The student's kernel only
ever receives the inputs (see ``grader.kernel_side``); judging happens here, in the grading process.

Judging escalates like a teacher reading the answer (as PrairieLearn's code feedback does): not defined ->
raised an error -> wrong type -> wrong shape -> not finite -> inaccurate, and when the student's
output equals a known wrong implementation the misconception is named with the lesson section to reread.
"""
from __future__ import annotations

import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from grader import kernel_side
from grader.formats import VERDICT_RECORD, max_length

# The escalation order of what can be wrong with one case, most basic first.
NO_REPORT = "no report"  # the cell never reported (crash, timeout, tampering): decided by grader.grading.preprocessors.decide_verdicts
NOT_ATTEMPTED = "not attempted yet"  # the released stub, still raising NotImplementedError
NOT_DEFINED = "not defined"
RAISED = "raised an error"
WRONG_TYPE = "wrong type"
WRONG_SHAPE = "wrong shape"
NOT_FINITE = "not finite"
INACCURATE = "inaccurate"
WRONG_CHOICE = "not the right choice"  # a multiple-choice item: the letter of another option
MISSED_BAD_INPUT = "accepted bad input"
STAGES = (NO_REPORT, NOT_ATTEMPTED, NOT_DEFINED, RAISED, WRONG_TYPE, WRONG_SHAPE, NOT_FINITE, MISSED_BAD_INPUT,
          INACCURATE, WRONG_CHOICE)

def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """'1 value', '3 values' (``plural_form`` for irregular nouns)."""
    return f"{count} {noun if count == 1 else (plural_form or noun + 's')}"


# ---- what a student reads of a problem ----------------------------------------------------
# Each is a message of the engine's catalogue (``grader.language``): a feedback page in another
# language says a problem by reading these back (``grader.language.text_patterns``).
PROBLEM_IN_CASE = "{stage} — on {case}: {detail}"
PROBLEM_AT_STAGE = "{stage}: {detail}"
PROBLEM_WITH_LESSON = "{problem} (reread {lesson})"
NOT_DEFINED_DETAIL = ("there is no `{name}` after running your notebook; check that its cell runs without an "
                      "error and that the name is spelled as in the question.")
NOT_CALLABLE_DETAIL = "`{name}` should be a function, but it is a {kind}."
NOT_ATTEMPTED_DETAIL = ("`{name}` still raises NotImplementedError, as released. Replace that line with your "
                        "code and run the cell.")
RAISED_ON_BAD_INPUT = ("this input is invalid and should raise {expected} naming the argument, but your function "
                       "raised {raised}: {message}")
RETURNED_ON_BAD_INPUT = ("this input is invalid and should raise {expected} naming the argument, but your function "
                         "returned a value.")
RAISED_DETAIL = "your function raised {raised}: {message}"
VALUE_YOU_RETURNED = "the value you returned"
ITEM_YOU_RETURNED = "{output} you returned"
ITEM_OF_TUPLE = "item {number} of the tuple you returned"
ENTRY_OF = "the entry {key} of {what}"
VALUE_FOR_YOUR_NUMBERS = "the value of `{name}` for your numbers"
SHOULD_BE_TUPLE = "{what} should be a tuple of {items}, but it is {got}."
SHOULD_BE_DICT = "{what} should be a dict with the keys {keys}, but it is {got}."
MISSING_KEY = "{what} has no key {keys}."
MISSING_KEYS = "{what} has no keys {keys}."
SHOULD_BE_LETTER = "{what} should be a string (one letter), but it is {got}."
ANOTHER_OPTION = "{what} names another of the options."
SHOULD_BE_NUMBERS = "{what} should be numbers, but it is {got}."
SHOULD_BE_ONE_NUMBER = "{what} should be a single number, but it is {got}."
WRONG_SHAPE_DETAIL = "{what} has shape {shape}, which is not the shape the contract asks for here."
SHOULD_BE_BOOLEAN = "{what} should be a boolean array (True/False), but its dtype is {dtype}."
ONE_ENTRY_WRONG = "{entries} of the {size} in {what} is wrong."
ENTRIES_WRONG = "{entries} of the {size} in {what} are wrong."
NOT_FINITE_DETAIL = "{what} contains nan or inf where a finite number is expected."
TOLERANCE = "(relative tolerance {rtol}, absolute {atol})"
NOT_WITHIN = "{what} is not within the tolerance {tolerance}."
ONE_VALUE_NOT_WITHIN = "{values} of the {size} in {what} is not within the tolerance {tolerance}."
VALUES_NOT_WITHIN = "{values} of the {size} in {what} are not within the tolerance {tolerance}."
AN_ARRAY = "an array of shape {shape} ({dtype})"
A_SEQUENCE = "a {kind} of {items}"
A_NONE = "None (is a `return` missing?)"
A_KIND = "a {kind}"
#: The counted nouns of the messages above, as ``plural`` says them.
COUNTED = ("{count} item", "{count} items", "{count} value", "{count} values", "{count} entry",
           "{count} entries", "{count} key", "{count} keys")
#: Every message above: each has a translation in every language's catalogue (tested).
PROBLEM_MESSAGES = (
    PROBLEM_IN_CASE, PROBLEM_AT_STAGE, PROBLEM_WITH_LESSON, NOT_DEFINED_DETAIL, NOT_CALLABLE_DETAIL,
    NOT_ATTEMPTED_DETAIL, RAISED_ON_BAD_INPUT, RETURNED_ON_BAD_INPUT, RAISED_DETAIL, VALUE_YOU_RETURNED,
    ITEM_YOU_RETURNED, ITEM_OF_TUPLE, ENTRY_OF, VALUE_FOR_YOUR_NUMBERS, SHOULD_BE_TUPLE, SHOULD_BE_DICT,
    MISSING_KEY, MISSING_KEYS, SHOULD_BE_LETTER, ANOTHER_OPTION, SHOULD_BE_NUMBERS, SHOULD_BE_ONE_NUMBER,
    WRONG_SHAPE_DETAIL, SHOULD_BE_BOOLEAN, ONE_ENTRY_WRONG, ENTRIES_WRONG, NOT_FINITE_DETAIL, TOLERANCE,
    NOT_WITHIN, ONE_VALUE_NOT_WITHIN, VALUES_NOT_WITHIN, AN_ARRAY, A_SEQUENCE, A_NONE, A_KIND, *COUNTED)


#: Default tolerances of ``numpy.allclose`` for exact (non-random) answers.
EXACT_RTOL = 1e-6
EXACT_ATOL = 1e-9


@dataclass(frozen=True)
class RngSeed:
    """An input slot for a ``numpy.random.Generator``: both sides build ``default_rng(seed)``."""

    seed: int


@dataclass(frozen=True)
class Case:
    """One call of the student's function.

    label: what the case is about, shown to the student ("large logits (1e4)"): never an expected value.
    args / kwargs: the inputs (numbers, strings, numpy arrays, :class:`RngSeed`).
    weight: its share of the check's points.
    raises: name of the exception the contract requires (e.g. "ValueError"), or None.
    """

    label: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    weight: float = 1.0
    raises: str | None = None

    def to_wire(self) -> dict:
        return {
            "label": self.label,
            "weight": float(self.weight),
            "raises": self.raises,
            "args": [_encode_input(a) for a in self.args],
            "kwargs": {k: _encode_input(v) for k, v in self.kwargs.items()},
        }

    @staticmethod
    def from_wire(data: Mapping) -> "Case":
        """Rebuild a case with the exact inputs the kernel decoded (float32 stays float32)."""
        return Case(
            label=data["label"],
            args=tuple(_decode_input(a) for a in data["args"]),
            kwargs={k: _decode_input(v) for k, v in data["kwargs"].items()},
            weight=data["weight"],
            raises=data["raises"],
        )

    def call(self, function: Callable) -> Any:
        """Call ``function`` on fresh copies of the inputs (a Generator is rebuilt from its seed).

        Warnings are silenced: a wrong implementation overflowing on purpose is not news to the grader.
        """
        args = [_fresh(a) for a in self.args]
        kwargs = {k: _fresh(v) for k, v in self.kwargs.items()}
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return function(*args, **kwargs)


def _encode_input(value):
    if isinstance(value, RngSeed):
        return {"t": "rng", "seed": int(value.seed)}
    return kernel_side.encode(value)


def _decode_input(data):
    if data["t"] == "rng":
        return RngSeed(int(data["seed"]))
    return kernel_side.decode(data)


def _fresh(value):
    if isinstance(value, RngSeed):
        return np.random.default_rng(value.seed)
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


@dataclass(frozen=True)
class Misconception:
    """A known wrong answer and what to say about it.

    mistake: a function with the check's signature that makes the mistake, or, for a value check,
    a function of the item's numbers (the student's ``my_numbers[item]``) returning the wrong value,
    or None where the mistake has no value of its own for those numbers. explanation: one sentence naming the mistake and its consequence.
    lesson: the section to reread, e.g. "L3 §5".
    """

    name: str
    explanation: str
    lesson: str
    mistake: Any

    def message(self) -> str:
        return f"{self.explanation} (reread {self.lesson})"


@dataclass(frozen=True)
class CaseVerdict:
    label: str
    weight: float
    stage: str | None  # None when the case passed
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.stage is None


def problem_text(stage: str | None, detail: str | None, case: str | None = None, lesson: str | None = None,
                 say: Callable[[str], str] = str) -> str | None:
    """The first problem as one line: "<stage> — on <case>: <detail> (reread <lesson>)" (no case
    for a problem of the whole item, no stage for a cell that never reported), or None when there
    is no ``detail``.

    say: how a text is said on the page; each message, the stage, the case and the detail go
    through it (English: as they are; another language: ``grader.language.text_patterns``)."""
    if detail is None:
        return None
    if stage == NO_REPORT or stage is None:
        said = say(detail)
    elif case is not None:
        said = say(PROBLEM_IN_CASE).format(stage=say(stage), case=say(case), detail=say(detail))
    else:
        said = say(PROBLEM_AT_STAGE).format(stage=say(stage), detail=say(detail))
    return say(PROBLEM_WITH_LESSON).format(problem=said, lesson=lesson) if lesson else said


@dataclass
class Verdict:
    """The decision for one check: the fraction of points earned and why.

    The first thing wrong, for the student, is in parts: its ``stage``, the ``case`` it happened
    on (a case label; None for the item as a whole), what is wrong (``detail``; None when nothing
    is) and the ``lesson`` section to reread; :attr:`problem` says them in one line.
    """

    check: str
    fraction: float
    cases: list[CaseVerdict]
    detail: str | None = None
    misconception: Misconception | None = None
    stage: str | None = None  # the escalation stage of the first problem
    note: str | None = None  # what the item teaches once answered correctly (a discussion of the answer)
    case: str | None = None
    lesson: str | None = None

    @property
    def problem(self) -> str | None:
        """The first thing wrong in one English line (:func:`problem_text`), or None."""
        return problem_text(self.stage, self.detail, self.case, self.lesson)

    def record(self) -> dict:
        """A JSON-safe summary for the feedback page and class reports (no inputs, no expected
        values): the verdict record's format (``grader/formats/verdict_record.schema.json``)."""
        record = {
            "check": self.check,
            "fraction": round(self.fraction, 6),
            "stage": self.stage,
            "misconception": self.misconception.name if self.misconception else None,
            "problem": None if self.problem is None else _within(self.problem, max_length(VERDICT_RECORD, "problem")),
        }
        for part in ("case", "detail", "lesson"):
            if getattr(self, part) is not None:
                record[part] = _within(getattr(self, part), max_length(VERDICT_RECORD, part))
        return record

    @property
    def passed(self) -> bool:
        return self.fraction >= 1.0

    def explain(self) -> str:
        """Plain-text feedback: what was wrong and why, never an expected value."""
        passed = sum(c.passed for c in self.cases)
        lines = []
        if self.cases:
            lines.append(f"{self.check}: {passed} of {plural(len(self.cases), 'hidden test case')} passed.")
        else:
            # a right answer whose credit is capped (grader.grading.attempt_credit) has no problem: it is still "passed"
            lines.append(f"{self.check}: {'passed' if self.stage is None else 'not passed'}.")
        if self.problem:
            lines.append(f"First problem: {self.problem}")
        if self.misconception:
            lines.append(f"Likely misconception ({self.misconception.name}): {self.misconception.message()}")
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


Judge = Callable[["Case", Any], "tuple[str, str] | None"]


@dataclass
class Check:
    """One hidden check of the student API.

    name: the function or answer variable it grades (the cell's grade_id is ``test_<name>``).
    reference: the correct function (function checks), or for value checks the function of the
        item's numbers that gives the correct value for those numbers.
    cases: draws the cases from a Generator; None makes this a value check (the variable itself is read).
    rtol / atol: tolerances of ``numpy.allclose`` for numeric answers.
    judge: optional ``judge(case, value) -> None | (stage, detail)`` replacing the comparison with
        the reference output, for stochastic functions (statistical bounds) and free-form answers.
    lesson: the section to reread when the check fails without a named misconception.
    output_names: for a function returning a tuple, what each item means ("the mean", "the variance"),
        so that feedback names outputs by meaning.
    discussion: for a quiz item, text about its answer that the feedback shows only once the item is
        answered correctly (the notebook cannot hold it: it would sit beside the question).
    number_ranges: for a quiz item of its own numbers, {parameter: (low, high)} whole-number ranges,
        both ends included (``course_numbers.ranged_numbers``); None for the course's registered
        items (``course_numbers.LESSON_NUMBERS``).
    """

    name: str
    reference: Any
    cases: Callable[[np.random.Generator], Sequence[Case]] | None = None
    rtol: float = EXACT_RTOL
    atol: float = EXACT_ATOL
    misconceptions: Sequence[Misconception] = ()
    judge: Judge | None = None
    lesson: str = ""
    output_names: Sequence[str] = ()
    discussion: str = ""
    number_ranges: Mapping[str, tuple[int, int]] | None = None

    @property
    def kind(self) -> str:
        return "value" if self.cases is None else "function"

    def draw_cases(self, seed: int) -> list[Case]:
        """The cases of one grading run; ``seed`` is the run's secret, mixed with the check's name."""
        if self.cases is None:
            return []
        rng = np.random.default_rng([seed, zlib.crc32(self.name.encode())])
        return list(self.cases(rng))

    def plan(self, cases: Sequence[Case], token: str) -> dict:
        """What the kernel receives: the check's name, inputs and a token; nothing else."""
        return {
            "check": self.name,
            "token": token,
            "kind": self.kind,
            "cases": [{"args": c["args"], "kwargs": c["kwargs"]} for c in (case.to_wire() for case in cases)],
        }

    # ---- judging -------------------------------------------------------------------------

    def lesson_numbers(self) -> dict:
        """A value check's parameters without a student id: the lesson's (the low ends of its ranges)."""
        if self.number_ranges is not None:
            from course_numbers import ranged_numbers

            return ranged_numbers({self.name: self.number_ranges}, None)[self.name]
        from solutions.variants import LESSON_NUMBERS

        return LESSON_NUMBERS[self.name]

    def student_numbers(self, student: str | None) -> dict:
        """A value check's parameters for ``student`` (the id nbgrader recorded; None: the lesson's)."""
        if self.number_ranges is not None:
            from course_numbers import ranged_numbers

            return ranged_numbers({self.name: self.number_ranges}, student)[self.name]
        from solutions.variants import numbers_for

        return numbers_for(student)[self.name]

    def expected_value(self, numbers: Mapping | None = None):
        """A value check's correct answer for ``numbers`` (the item's parameters; default: the lesson's)."""
        return self.reference(**(self.lesson_numbers() if numbers is None else numbers))

    def decide(self, cases: Sequence[Case], report: Mapping, numbers: Mapping | None = None) -> Verdict:
        """Judge a kernel report (already checked to be well-formed) against the reference.

        numbers: for a value check, the submitting student's parameters of this item, from the
        grading side (``solutions.variants.numbers_for``); None means the lesson's numbers.
        """
        if report.get("undefined"):
            return Verdict(self.name, 0.0, [], stage=NOT_DEFINED, detail=NOT_DEFINED_DETAIL.format(name=self.name))
        if "not_callable" in report:
            return Verdict(self.name, 0.0, [], stage=WRONG_TYPE,
                           detail=NOT_CALLABLE_DETAIL.format(name=self.name, kind=report["not_callable"]["t"]))
        if self.kind == "value":
            if numbers is None:
                numbers = self.lesson_numbers()
            verdict = self._judge_value(report["value"], numbers)
            return self._with_misconception(verdict, [(None, report["value"])], numbers)
        results = report["results"]
        if results and all(outcome.get("raised") == "NotImplementedError" for outcome in results):
            return not_attempted(self.name)
        verdicts = [self._judge_case(case, outcome) for case, outcome in zip(cases, results)]
        total = sum(v.weight for v in verdicts) or 1.0
        fraction = sum(v.weight for v in verdicts if v.passed) / total
        failing = [v for v in verdicts if not v.passed]
        verdict = Verdict(self.name, fraction, verdicts)
        if failing:
            first = min(failing, key=lambda v: STAGES.index(v.stage))
            verdict.stage, verdict.case, verdict.detail = first.stage, first.label, first.detail
        # Invalid-input cases say nothing about the computation: the known variants validate their
        # input, most students' first attempts do not, and that must not hide the misconception.
        wrong = [(case, outcome.get("ok")) for case, outcome, v in zip(cases, results, verdicts)
                 if not v.passed and "ok" in outcome and not case.raises]
        return self._with_misconception(verdict, wrong)

    def _judge_value(self, wire, numbers: Mapping) -> Verdict:
        if self.judge is not None:
            outcome = self.judge(None, _decode_output(wire))
        else:
            outcome = compare_answer(self.expected_value(numbers), wire, self.rtol, self.atol,
                                     VALUE_FOR_YOUR_NUMBERS.format(name=self.name), self.output_names)
        if outcome is None:
            return Verdict(self.name, 1.0, [], note=self.discussion or None)
        stage, detail = outcome
        return Verdict(self.name, 0.0, [], detail=detail, stage=stage)

    def _judge_case(self, case: Case, outcome: Mapping) -> CaseVerdict:
        if "raised" in outcome:
            if case.raises and outcome["raised"] == case.raises:
                return CaseVerdict(case.label, case.weight, None)
            if case.raises:
                return CaseVerdict(case.label, case.weight, MISSED_BAD_INPUT, RAISED_ON_BAD_INPUT.format(
                    expected=case.raises, raised=outcome["raised"], message=outcome["message"]))
            return CaseVerdict(case.label, case.weight, RAISED,
                               RAISED_DETAIL.format(raised=outcome["raised"], message=outcome["message"]))
        if case.raises:
            return CaseVerdict(case.label, case.weight, MISSED_BAD_INPUT, RETURNED_ON_BAD_INPUT.format(expected=case.raises))
        if self.judge is not None:
            value = _decode_output(outcome["ok"])
            result = self.judge(case, value) if not isinstance(value, _Opaque) else \
                (WRONG_TYPE, SHOULD_BE_NUMBERS.format(what=VALUE_YOU_RETURNED, got=A_KIND.format(kind=value.type_name)))
        else:
            result = compare_answer(case.call(self.reference), outcome["ok"], self.rtol, self.atol,
                                    names=self.output_names)
        if result is None:
            return CaseVerdict(case.label, case.weight, None)
        return CaseVerdict(case.label, case.weight, *result)

    def _with_misconception(self, verdict: Verdict, wrong: list, numbers: Mapping | None = None) -> Verdict:
        if not verdict.passed and wrong:
            for misconception in self.misconceptions:
                if all(_matches_mistake(misconception.mistake, case, wire, self, numbers) for case, wire in wrong):
                    verdict.misconception = misconception
                    return verdict
        if not verdict.passed and self.lesson and verdict.detail:
            verdict.lesson = self.lesson
        return verdict


def _within(text: str, most: int) -> str:
    """``text``, cut to ``most`` characters with an ellipsis when longer."""
    return text if len(text) <= most else text[:most - 1] + "…"


def not_attempted(name: str) -> Verdict:
    """The verdict of the API item ``name`` whose solution cell is still the released stub."""
    return Verdict(name, 0.0, [], stage=NOT_ATTEMPTED, detail=NOT_ATTEMPTED_DETAIL.format(name=name))


def _matches_mistake(mistake, case: Case | None, wire, check: Check, numbers: Mapping | None = None) -> bool:
    try:
        if case is not None:
            wrong_answer = case.call(mistake)
        else:
            wrong_answer = mistake(numbers) if callable(mistake) else mistake
    except Exception:
        return False
    if wrong_answer is None:
        return False
    return compare_answer(wrong_answer, wire, check.rtol, check.atol) is None


# ---- comparing one answer with the reference ------------------------------------------------

class _Opaque:
    """An output that is not data (an object of some other type), known only by its type name."""

    def __init__(self, type_name: str):
        self.type_name = type_name


def _decode_output(wire):
    if "repr" in wire:
        return _Opaque(wire["t"])
    return kernel_side.decode(wire)


_NUMBER_TYPES = {"float", "int", "bool", "float16", "float32", "float64", "longdouble",
                 "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def _describe(wire) -> str:
    kind = wire["t"]
    if kind == "ndarray":
        return AN_ARRAY.format(shape=tuple(wire["shape"]), dtype=wire["dtype"])
    if kind in ("tuple", "list"):
        return A_SEQUENCE.format(kind=kind, items=plural(len(wire["items"]), "item"))
    if kind == "NoneType":
        return A_NONE
    return A_KIND.format(kind=kind)


def compare_answer(expected, wire, rtol: float, atol: float, what: str = VALUE_YOU_RETURNED,
                   names: Sequence[str] = ()):
    """None when ``wire`` (the student's encoded output) matches ``expected``; else (stage, detail).

    what: how the detail names the output for the student ("the variance you returned"); names:
    what each item of an expected tuple means ("the mean", "the variance"). The detail describes
    the student's output and never states an expected value.
    """
    kind = wire["t"]
    if isinstance(expected, tuple):
        if kind not in ("tuple", "list") or len(wire["items"]) != len(expected):
            return WRONG_TYPE, SHOULD_BE_TUPLE.format(what=what, items=plural(len(expected), "item"), got=_describe(wire))
        for i, (exp, item) in enumerate(zip(expected, wire["items"])):
            name = ITEM_YOU_RETURNED.format(output=names[i]) if i < len(names) else ITEM_OF_TUPLE.format(number=i + 1)
            result = compare_answer(exp, item, rtol, atol, name)
            if result is not None:
                return result
        return None
    if isinstance(expected, dict):
        if kind != "dict":
            return WRONG_TYPE, SHOULD_BE_DICT.format(what=what, keys=", ".join(map(str, expected)), got=_describe(wire))
        missing = [key for key in expected if key not in wire["items"]]
        if missing:
            return WRONG_TYPE, (MISSING_KEY if len(missing) == 1 else MISSING_KEYS).format(what=what, keys=", ".join(missing))
        for key in expected:
            result = compare_answer(expected[key], wire["items"][key], rtol, atol, ENTRY_OF.format(key=repr(key), what=what))
            if result is not None:
                return result
        return None
    if isinstance(expected, str):
        if kind != "str":
            return WRONG_TYPE, SHOULD_BE_LETTER.format(what=what, got=_describe(wire))
        if wire["v"].strip().upper() != expected.strip().upper():
            return WRONG_CHOICE, ANOTHER_OPTION.format(what=what)
        return None
    if "repr" in wire or kind in ("str", "NoneType", "dict"):
        return WRONG_TYPE, SHOULD_BE_NUMBERS.format(what=what, got=_describe(wire))
    got = _as_numbers(wire)
    if got is None:
        return WRONG_TYPE, SHOULD_BE_NUMBERS.format(what=what, got=_describe(wire))
    expected_array = np.asarray(expected)
    if expected_array.ndim == 0:
        if got.size != 1 or got.ndim > 1 or (got.ndim == 1 and kind != "ndarray"):
            return WRONG_TYPE, SHOULD_BE_ONE_NUMBER.format(what=what, got=_describe(wire))
        got = got.reshape(())
    elif got.shape != expected_array.shape:
        return WRONG_SHAPE, WRONG_SHAPE_DETAIL.format(what=what, shape=got.shape)
    if expected_array.dtype == bool:
        if got.dtype != bool:
            return WRONG_TYPE, SHOULD_BE_BOOLEAN.format(what=what, dtype=got.dtype)
        wrong = int(np.sum(got != expected_array))
        if wrong:
            return INACCURATE, (ONE_ENTRY_WRONG if wrong == 1 else ENTRIES_WRONG).format(
                entries=plural(wrong, "entry", "entries"), size=got.size, what=what)
        return None
    got = got.astype(np.float64)
    expected_array = expected_array.astype(np.float64)
    if not np.all(np.isfinite(got)[np.isfinite(expected_array)]):
        return NOT_FINITE, NOT_FINITE_DETAIL.format(what=what)
    if not np.allclose(got, expected_array, rtol=rtol, atol=atol, equal_nan=True):
        tolerance = TOLERANCE.format(rtol=f"{rtol:g}", atol=f"{atol:g}")
        if got.size == 1:
            return INACCURATE, NOT_WITHIN.format(what=what, tolerance=tolerance)
        bad = int(np.sum(~np.isclose(got, expected_array, rtol=rtol, atol=atol, equal_nan=True)))
        return INACCURATE, (ONE_VALUE_NOT_WITHIN if bad == 1 else VALUES_NOT_WITHIN).format(
            values=plural(bad, "value"), size=got.size, what=what, tolerance=tolerance)
    return None


def _as_numbers(wire):
    """The numeric content of an encoded value, or None when it is not numbers."""
    kind = wire["t"]
    if kind in _NUMBER_TYPES:
        return np.asarray(kernel_side.decode(wire))
    if kind == "ndarray":
        if "data" not in wire:
            return None
        return kernel_side.decode(wire)
    if kind in ("tuple", "list"):
        items = [_as_numbers(item) for item in wire["items"]]
        if any(item is None for item in items):
            return None
        try:
            return np.asarray(items, dtype=np.float64)
        except ValueError:
            return None
    return None
