"""A check's first problem is said in the student's language: the engine's words from its catalogue,
the course's case labels and judges' words from the course's, the student's values as they are."""
from __future__ import annotations

import re

import numpy as np
from babel.messages.mofile import read_mo
from check_harness import judge

from grader.checks import all_checks
from grader.grading.attempt_credit import STILL_EARNS
from grader.grading.preprocessors.feedback_page import problem_in, say_line_in
from grader.language.checks_texts import checks_texts
from grader.language.notebook_catalogue import compile_catalogues
from grader.language.text_patterns import TextTranslator, page_translator
from grader_tests.checkout import REPO_ROOT


def chinese(record: dict) -> str:
    return problem_in(record, page_translator(REPO_ROOT, "zh"))


def test_a_message_with_values_is_read_back_and_each_value_said_too():
    say = TextTranslator({"{what} has shape {shape}.": "{what}的形状是 {shape}。",
                          "{output} you returned": "你返回的{output}", "the mean": "均值"})
    assert say("the mean you returned has shape (3,).") == "你返回的均值的形状是 (3,)。"


def test_a_text_no_message_matches_stays_as_it_is():
    say = TextTranslator({"{what} has shape {shape}.": "{what}的形状是 {shape}。"})
    assert say("your function raised KeyError: 'x'") == "your function raised KeyError: 'x'"


def test_the_most_specific_message_reads_a_text():
    say = TextTranslator({"a {kind}": "一个 {kind}", "a vector of {n} random logits": "{n} 个随机 logit 组成的向量"})
    assert say("a vector of 7 random logits") == "7 个随机 logit 组成的向量"


def test_a_type_name_value_cannot_swallow_a_sentence():
    say = TextTranslator({"a {kind}": "一个 {kind}"})
    assert say("a list") == "一个 list"
    assert say("a vector nobody translated") == "a vector nobody translated"


def test_a_translation_naming_a_value_its_message_lacks_is_not_used():
    say = TextTranslator({"d = {d}": "d = {n}"})
    assert say("d = 3") == "d = 3"


def test_an_f_string_label_of_a_checks_file_is_a_message_with_named_values():
    source = 'def cases(rng):\n    """Draw."""\n    return [Case(f"a vector of {n} random logits", ()), Case(f"d = {int(d)}", ())]\n'
    assert [text for _, text in checks_texts(source)] == ["a vector of {n} random logits"]


def test_misconceptions_and_docstrings_of_a_checks_file_are_not_its_messages():
    source = ('"""The module."""\nM = Misconception("wrong axis", "your softmax normalises over columns", "L3", None)\n'
              'LABEL = "a single key (n_keys = 1)"\n')
    assert [text for _, text in checks_texts(source)] == ["a single key (n_keys = 1)"]


def test_the_students_compiled_catalogue_holds_no_hidden_case_label(tmp_path):
    """Case labels list the hidden tests: they stay with the grading side."""
    compile_catalogues(REPO_ROOT, tmp_path)
    with open(tmp_path / "zh" / "LC_MESSAGES" / "notebooks.mo", "rb") as handle:
        shipped = {message.id for message in read_mo(handle) if message.id}
    labels = {text for path in (REPO_ROOT / "source").glob("*/checks.py")
              for _, text in checks_texts(path.read_text(encoding="utf-8"))}
    assert shipped and not shipped & labels


def test_a_wrong_shape_is_said_in_chinese_with_the_case_label_and_the_students_shape():
    check = all_checks()["softmax"]
    verdict = judge(check, {"softmax": lambda x, axis=-1: np.zeros(3)}, seed=0)
    said = chinese(verdict.record())
    assert said.startswith("形状错误——在「") and "你返回的值的形状是 (3,)" in said
    assert not re.search(r"[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}", said.replace("NotImplementedError", "")), said


def test_a_stub_is_said_in_chinese_naming_the_function():
    def stub(*args, **kwargs):
        raise NotImplementedError()
    said = chinese(judge(all_checks()["softmax"], {"softmax": stub}).record())
    assert said.startswith("尚未作答：`softmax` 仍然像发布时那样抛出 NotImplementedError")


def test_a_missing_answer_is_said_in_chinese():
    said = chinese(judge(all_checks()["softmax"], {}).record())
    assert said.startswith("未定义：运行你的笔记本之后没有 `softmax`")


def test_a_record_without_its_parts_keeps_its_english_line():
    assert chinese({"check": "softmax", "stage": "inaccurate", "problem": "inaccurate: old words"}) == \
        "inaccurate: old words"


def test_an_attempt_credit_note_is_said_in_chinese():
    line = STILL_EARNS.format(share="50 %", earlier="1 different wrong answer")
    assert say_line_in(line, "zh", say=page_translator(None, "zh")) == \
        "这道题最多还能得到其分数的 50%：到目前为止已有 1 个不同的错误答案。再次提交同一个答案，或不作答，都不会扣分。"
