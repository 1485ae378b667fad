"""Feedback teaches without giving the answer away, in words a beginner reads without a glossary.

The feedback of every check is generated, exactly as grading writes it (``verdict_outputs``), for
every runnable corpus submission, every known wrong answer of the registry, the untouched stub and
a missing answer, on two seeds, for many students' numbers (variants; the lesson's among them). A
message fails when it contains:

- a quiz item's expected value for the student's numbers, or for the lesson's, to 3 significant digits (any number written with at least 3 of them
  that rounds to the same; integer answers such as 8 are searched in their own check's messages
  only, since small integers name sizes and lesson sections everywhere);
- an expression or one-step instruction that yields a quiz answer (``QUIZ_EXPRESSIONS``);
- a hidden input's expected output, to 3 significant digits (the case labels, which describe
  inputs, and the points line are not searched);
- internal names or awkward wording (``UNPLAIN``).
"""
from __future__ import annotations

import re
from functools import lru_cache

import nbformat
import numpy as np
import pytest
from check_harness import VARIANT_STUDENTS, judge, wrong_answer_namespace
from test_corpus_verdicts import RUNNABLE, judge_in_process, run_setup_and_solution_cells

from grader.checks import all_checks
from grader.checks.api import MISSED_BAD_INPUT, NO_REPORT, NOT_ATTEMPTED, RAISED
from grader.checks.misconceptions import KNOWN_WRONG_ANSWERS
from grader.demo.corpus import build_notebook
from grader.grading.preprocessors.decide_verdicts import verdict_outputs
from grader.grading.preprocessors.feedback_page import misconception_line, problem_in
from grader.language.catalogue import LANGUAGES, SOURCE_LANGUAGE
from grader.language.text_patterns import page_translator
from grader.notebook_cells import checks_of_test_cells
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT
from solutions.variants import numbers_for

SEEDS = (0, 1)
SIGNIFICANT = 3
NUMBER = re.compile(r"(?<![\w.§/])[-−]?\d+(?:\.\d+)?(?:e[-+−]?\d+)?(?![\w/])")

#: Expressions (regular expressions, case-insensitive) that state or yield a quiz answer.
QUIZ_EXPRESSIONS = {
    "answer_std_ratio": [r"square root", r"sqrt\(\s*16", r"√\s*16"],
    "answer_var_component4": [r"4\s*[·*×]\s*d_k", r"4\s*[·*×]\s*4\s*[·*×]\s*64", r"16\s*[·*×]\s*64", r"64\s*[·*×]\s*16",
                              r"4\s*[·*×]\s*256", r"256\s*[·*×]\s*4", r"var_q\s*[·*×]\s*var_k\s*=\s*16"],
    "answer_sigma_divide_dk": [r"\b1\s*/\s*8\b", r"\b8\s*/\s*64\b", r"sqrt\(d_k\)\s*/\s*d_k", r"√\s*d_k\s*/\s*d_k",
                               r"divides σ\(q·k\)"],
    "answer_weights_scaled": [r"divid\w*[^.]*\bby\s*(?:8\b|sqrt\(64\)|√\s*64)", r"/\s*8\b", r"sqrt\(64\)\s*=\s*8"],
    "answer_weights_unscaled": [r"softmax\s*(?:of\s*)?\(?\[\s*14"],
    "answer_ab_exp": [r"exp\s*\(\s*4\s*[·*×]?\s*1\s*\)", r"exp\s*\(\s*4\s*[·*×]?\s*0\.6", r"exp\s*\(\s*2\.4",
                      r"β\s*=\s*4\s*belongs"],
    "answer_ab_ratio": [r"exp\s*\(\s*[-−]\s*1\.6", r"exp\s*\(\s*4\s*[·*×]?\s*\(\s*0\.6\s*[-−]\s*1",
                        r"e\s*\^\s*\{?\s*[-−]\s*1\.6", r"reciprocal"],
    "answer_ab_weights": [r"softmax\s*\(\s*\[\s*4"],
    "answer_beta_equiv": [r"β\s*=\s*8\b", r"beta\s*=\s*8\b", r"√\s*64\s*=\s*8", r"sqrt\(64\)\s*=\s*8", r"64\s*/\s*8"],
    "answer_init_std": [r"1\s*/\s*√\s*512", r"1\s*/\s*sqrt\(\s*512", r"square root", r"sqrt\(\s*1\s*/\s*512",
                        r"√\s*512"],
}
#: Expressions searched in the quiz item's own messages only (a letter is a choice only there).
OWN_EXPRESSIONS = {
    "answer_culprit": [r"\b(?:answer|choice|option) (?:is )?\(?B\b", r"\bB\)", r"\bis B\b"],
}

#: Wording a beginner should not meet: internal names, 0-based items, broken plurals, tracebacks.
UNPLAIN = [r"CheckFailed", r"Traceback", r"\bitem 0\b", r"of the tuple:", r"\b1 (?:entries|values|keys|items|tests|cases)\b",
           r"hidden checks passed", r"NotImplementedError: \(reread", r"DeadKernelError", r"CellTimeoutError"]


#: Three English words in a row: prose a translated page left in English.
ENGLISH_PROSE = re.compile(r"\b[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}\b")
#: Stages whose detail quotes the student's own exception message, which stays as their code raised it.
QUOTES_THE_STUDENT = {RAISED, MISSED_BAD_INPUT, NO_REPORT}


def english_left(text: str) -> list[str]:
    """English prose in ``text`` outside code spans."""
    return ENGLISH_PROSE.findall(re.sub(r"`[^`]*`", "", text))


def blank(*args, **kwargs):
    raise NotImplementedError()


def message_of(verdict) -> str:
    """Every text the grader writes for ``verdict`` into the graded notebook (shown on the feedback page)."""
    texts = []
    for output in verdict_outputs(verdict, points=3.0):
        if output["output_type"] == "display_data":
            texts.append(output["data"]["text/plain"])
        elif output["output_type"] == "error":
            texts += [output["ename"], output["evalue"], *output["traceback"]]
    return "\n".join(texts)


def significant_digits(token: str) -> int:
    mantissa = re.split(r"e", token.lstrip("-−"), flags=re.I)[0].replace(".", "").lstrip("0")
    return len(mantissa)


def numbers_in(text: str) -> list[float]:
    """Numbers written with at least SIGNIFICANT significant digits."""
    return [float(t.replace("−", "-")) for t in NUMBER.findall(text) if significant_digits(t) >= SIGNIFICANT]


def same_to_3_digits(a: float, b: float) -> bool:
    return float(f"{a:.{SIGNIFICANT}g}") == float(f"{b:.{SIGNIFICANT}g}")


#: The students whose numbers every corpus submission's feedback is generated for ("" is the lesson's).
FEEDBACK_STUDENTS = ("", "ada", "s0123456", "maria.garcia")


def _expected_entries(check, student) -> list[float]:
    """The entries of a numeric quiz item's answer for the lesson's numbers and ``student``'s."""
    entries = []
    for who in {None, student or None}:
        value = check.expected_value(numbers_for(who)[check.name])
        if not isinstance(value, str):
            entries += np.atleast_1d(np.asarray(value, dtype=float)).tolist()
    return entries


@lru_cache(maxsize=None)
def quiz_values(student: str | None = None) -> dict[str, list[float]]:
    """quiz name -> its non-integer expected entries for the lesson's and ``student``'s numbers."""
    return {check.name: [v for v in _expected_entries(check, student) if v != round(v)]
            for check in all_checks().values() if check.kind == "value"}


def integer_quiz_values(name: str, student: str | None = None) -> list[int]:
    check = all_checks()[name]
    if check.kind != "value":
        return []
    return sorted({int(v) for v in _expected_entries(check, student) if v == round(v)})


def hidden_outputs(check, seed: int) -> list[float]:
    """The non-integer numbers the reference returns on the hidden cases of ``seed``."""
    if check.kind != "function" or check.judge is not None:
        return []  # a judged check compares with bands, never prints an expected output either way
    found = []
    for case in check.draw_cases(seed):
        if case.raises:
            continue
        output = case.call(check.reference)
        for part in output if isinstance(output, tuple) else (output,):
            array = np.asarray(part, dtype=float).ravel()
            found += [v for v in array.tolist() if np.isfinite(v) and abs(v) > 1e-3 and v != round(v)]
    return found


def leaks(check, message: str, seed: int, student: str | None = None) -> list[str]:
    """What ``message`` gives away, for a student with ``student``'s numbers (the lesson's for None)."""
    found = []
    for quiz, values in quiz_values(student).items():
        for number in numbers_in(message):
            found += [f"{quiz} = {value:.4g} as {number}" for value in values if same_to_3_digits(number, value)]
    for number in integer_quiz_values(check.name, student):
        if re.search(rf"(?<![\w.§/]){number}(?:\.0+)?(?![\w./])", message):
            found.append(f"{check.name} = {number}")
    for quiz, patterns in QUIZ_EXPRESSIONS.items():
        found += [f"{quiz} via /{p}/" for p in patterns if re.search(p, message, re.IGNORECASE)]
    found += [f"{check.name} via /{p}/" for p in OWN_EXPRESSIONS.get(check.name, []) if re.search(p, message)]
    searched = message
    for case in check.draw_cases(seed):
        searched = searched.replace(case.label, "")
    searched = re.sub(r"Partial credit: .*", "", searched)
    expected = hidden_outputs(check, seed)
    found += [f"hidden output {value:.4g} as {number}" for number in numbers_in(searched)
              for value in expected if same_to_3_digits(number, value)]
    found += [f"unplain /{p}/" for p in UNPLAIN if re.search(p, message)]
    return found


@lru_cache(maxsize=None)
def corpus_namespaces(assignment: str):
    """(submission name, student, namespace) of every runnable corpus submission of ``assignment``, as
    handed in by each of FEEDBACK_STUDENTS and under its own name (the student the corpus is graded as)."""
    name = ASSIGNMENTS[assignment]
    notebooks = (nbformat.read(REPO_ROOT / "release" / assignment / f"{name}.ipynb", as_version=4),
                 nbformat.read(REPO_ROOT / "source" / assignment / f"{name}.ipynb", as_version=4))
    return [(s.name, student, run_setup_and_solution_cells(build_notebook(s, *notebooks), student))
            for s in RUNNABLE if s.assignment == assignment for student in (s.name, *FEEDBACK_STUDENTS)]


def _checks_of(assignment: str) -> list[str]:
    source = nbformat.read(REPO_ROOT / "source" / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)
    return list(checks_of_test_cells(source).values())


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_feedback_on_every_corpus_submission_is_answer_free_and_plain(assignment):
    found = []
    for name, student, namespace in corpus_namespaces(assignment):
        for check_name in _checks_of(assignment):
            for seed in SEEDS:
                message = message_of(judge_in_process(namespace, check_name, seed, student))
                found += [f"{name} as {student!r}/{check_name}: {leak}"
                          for leak in leaks(all_checks()[check_name], message, seed, student)]
    assert found == []


WRONG_ANSWERS = [(name, m) for name, known in KNOWN_WRONG_ANSWERS.items() for m in known]


@pytest.mark.parametrize("name, misconception", WRONG_ANSWERS, ids=[f"{n}-{m.name}" for n, m in WRONG_ANSWERS])
def test_feedback_on_every_known_wrong_answer_is_answer_free_and_plain(name, misconception):
    check = all_checks()[name]
    found = []
    for student in VARIANT_STUDENTS if check.kind == "value" else (None,):
        namespace = wrong_answer_namespace(check, misconception, student)
        if namespace is None:
            continue
        for seed in SEEDS:
            verdict = judge(check, namespace, seed)
            assert verdict.misconception is not None
            message = message_of(verdict)
            assert f"(reread {misconception.lesson})" in message
            found += [f"{student!r}: {leak}" for leak in leaks(check, message, seed, student)]
    assert found == []


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != SOURCE_LANGUAGE])
@pytest.mark.parametrize("name, misconception", WRONG_ANSWERS, ids=[f"{n}-{m.name}" for n, m in WRONG_ANSWERS])
def test_a_translated_diagnosis_of_every_known_wrong_answer_is_answer_free(name, misconception, language):
    check = all_checks()[name]
    line = misconception_line(name, misconception.name, language)
    assert misconception.lesson in line
    found = [f"{student!r}: {leak}" for student in (VARIANT_STUDENTS if check.kind == "value" else (None,))
             for seed in SEEDS for leak in leaks(check, line, seed, student)]
    assert found == []


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != SOURCE_LANGUAGE])
@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_every_first_problem_of_the_corpus_is_translated_and_answer_free(assignment, language):
    say = page_translator(REPO_ROOT, language)
    found = []
    for name, student, namespace in corpus_namespaces(assignment)[::1 + len(FEEDBACK_STUDENTS)]:  # under its own name
        for check_name in _checks_of(assignment):
            record = judge_in_process(namespace, check_name, SEEDS[0], student).record()
            if record["problem"] is None:
                continue
            said = problem_in(record, say)
            found += [f"{name}/{check_name}: {leak}" for leak in leaks(all_checks()[check_name], said, SEEDS[0], student)]
            if record["stage"] not in QUOTES_THE_STUDENT:
                found += [f"{name}/{check_name}: English {words!r} in {said!r}" for words in english_left(said)]
    assert found == []


@pytest.mark.parametrize("name", list(all_checks()))
def test_feedback_on_a_stub_or_a_missing_answer_is_answer_free_and_plain(name):
    check = all_checks()[name]
    namespaces = [{}, {name: blank}] if check.kind == "function" else [{}]
    found = []
    for namespace in namespaces:
        message = message_of(judge(check, namespace, SEEDS[0]))
        found += leaks(check, message, SEEDS[0])
    assert found == []


@pytest.mark.parametrize("name", [n for n, c in all_checks().items() if c.kind == "function"])
def test_an_untouched_stub_is_reported_as_not_attempted_yet(name):
    message = message_of(judge(all_checks()[name], {name: blank}))
    assert f"First problem: {NOT_ATTEMPTED}" in message


def test_the_leak_search_finds_answers_written_in_any_of_their_forms():
    check = all_checks()["answer_ab_ratio"]
    for written in ("stays 0.6 instead of shrinking to exp(−1.6)", "it is 0.2019", "about 0.202",
                    "exp(4·(0.6 − 1))", "take the reciprocal"):
        assert leaks(check, written, 0), written
    assert leaks(all_checks()["answer_beta_equiv"], "so β = 8", 0)
    assert leaks(all_checks()["answer_beta_equiv"], "your number should be 8", 0)
    assert not leaks(all_checks()["answer_beta_equiv"], "reread L3 §8 and AR07/b1", 0)
    assert leaks(all_checks()["mean_and_variance"], "1 values are wrong", 0)
