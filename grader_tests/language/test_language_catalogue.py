"""The message catalogues: every message of the feedback page and every named misconception has a
Chinese translation that keeps its values' names and adds no number."""
from __future__ import annotations

import re
import string

import pytest
from babel.messages.pofile import read_po

import course_numbers
from grader.checks.common import LESSONS_NUMBERS, LESSONS_NUMBERS_EXPLANATION
from grader.checks.misconceptions import KNOWN_WRONG_ANSWERS
from grader.grading.preprocessors import feedback_page
from grader.language.catalogue import LANGUAGES, SOURCE_LANGUAGE, catalogue_path, translate, translations
from grader.language.kernel_messages import translations_file, translations_source
from grader.pages import exporter
from grader.pages.page_templates import TEMPLATES
from grader.policy import page_note
from grader_tests.checkout import REPO_ROOT

TRANSLATED = [language for language in LANGUAGES if language != SOURCE_LANGUAGE]
_SAID_IN_TEMPLATE = re.compile(r"""say\((['"])(.+?)\1\)""")
_NUMBER = re.compile(r"(?<![\w§])\d+(?:\.\d+)?")


def _catalogue(language):
    with open(catalogue_path(language), "rb") as handle:
        return read_po(handle, locale=language)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def page_messages() -> set[str]:
    """Every message the feedback page says: its cell template's ``say(...)``, its header's and the preprocessor's."""
    template = (TEMPLATES / "feedback_page" / "index.html.j2").read_text(encoding="utf-8")
    said = {match.group(2) for match in _SAID_IN_TEMPLATE.finditer(template)}
    return said | {feedback_page.NOT_ATTEMPTED_NOTE, feedback_page.CALLS_A_STUB_NOTE,
                   feedback_page.KERNEL_VERDICT_NOTE, feedback_page.KERNEL_VERDICTS_SUMMARY,
                   feedback_page.MISCONCEPTION_LINE, "not passed", "Fix first:", "Every check passed.", "passed",
                   "Check", "Score", "What to fix", "Summary", "{check}: passed.", "{check}: not passed.",
                   "Likely misconception: {misconception}"} | {message for _, message in feedback_page.VERDICT_LINES} \
        | set(page_note.MESSAGES) | set(exporter.HEADER_MESSAGES)


def status_page_messages() -> set[str]:
    """Every message of the status and refusal pages: their own words, the service's messages, each
    refusal code's sentence for students and the words of each recorded reason."""
    from grader.grading import status_page
    from grader.grading.admission import CODES, REFUSAL_MESSAGES
    from grader.service.status_messages import MESSAGES

    return {*REFUSAL_MESSAGES, status_page.RECORDED_REASON,
            status_page.HANDED_IN_LINE, status_page.WHY, status_page.WHAT_TO_DO_HEADING, status_page.IN_ENGLISH,
            status_page.NOT_GRADED, status_page.NOT_GRADED_LEAD, status_page.WHAT_TO_DO, *MESSAGES,
            *(code.student_summary for code in CODES.values())}


def problem_messages() -> set[str]:
    """Every message a check's verdict is said with: the stages, the engine's words of a first problem
    and of attempt credit."""
    from grader.checks.api import PROBLEM_MESSAGES, STAGES
    from grader.grading.attempt_credit import CREDIT_MESSAGES
    from grader.grading.preprocessors.decide_verdicts import NO_REPORT_MESSAGES

    return {*STAGES, *PROBLEM_MESSAGES, *NO_REPORT_MESSAGES, *CREDIT_MESSAGES}


def misconception_messages() -> set[str]:
    """Every misconception a page may name: the declared ones and every numeric quiz item's lesson's numbers."""
    declared = {text for known in KNOWN_WRONG_ANSWERS.values() for m in known for text in (m.name, m.explanation)}
    return declared | {LESSONS_NUMBERS, LESSONS_NUMBERS_EXPLANATION}


def untranslated(messages: set[str], language: str) -> list[str]:
    """The messages ``language``'s catalogue has no translation of (a name such as ``beta = d_k``
    may be translated as itself)."""
    catalogue = _catalogue(language)
    return sorted(m for m in messages if m not in catalogue or not catalogue[m].string)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_of_the_feedback_page_is_translated(language):
    assert untranslated(page_messages(), language) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_of_a_first_problem_is_translated(language):
    assert untranslated(problem_messages(), language) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_of_the_status_and_refusal_pages_is_translated(language):
    assert untranslated(status_page_messages(), language) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_named_misconception_is_translated(language):
    assert untranslated(misconception_messages(), language) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translated_message_is_what_the_page_says(language):
    assert translate("Summary", language) == _catalogue(language)["Summary"].string != "Summary"


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translation_keeps_the_names_of_its_values(language):
    assert [m.id for m in _catalogue(language) if m.id and _fields(m.id) != _fields(m.string)] == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translation_adds_no_number(language):
    """A translated diagnosis must not give away more than the English one (which the answer-free
    tests check): every number it holds is one of the English text's."""
    added = [(m.id, n) for m in _catalogue(language) if m.id
             for n in _NUMBER.findall(m.string) if n not in _NUMBER.findall(m.id)]
    assert added == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogue_holds_no_message_the_course_no_longer_says(language):
    stale = {m.id for m in _catalogue(language) if m.id} - page_messages() - misconception_messages() \
        - status_page_messages() - problem_messages() - set(course_numbers.MESSAGES)
    assert stale == set()


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_of_the_numbers_cell_is_translated(language):
    assert untranslated(set(course_numbers.MESSAGES), language) == []


def test_the_kernels_copy_of_the_numbers_cells_translations_is_current():
    """``grader release`` rewrites it; a catalogue edited since leaves it stale."""
    assert translations_file(REPO_ROOT).read_text(encoding="utf-8") == translations_source()


def test_english_is_the_messages_themselves_with_their_values_filled():
    assert translate("First problem: {problem}", "en", problem="nan") == "First problem: nan"


def test_an_unknown_language_is_refused_naming_the_course_languages():
    with pytest.raises(ValueError, match=r"unknown language 'fr'; the course's pages are in en, zh"):
        translations("fr")


def test_a_verdict_line_is_said_in_the_page_language_keeping_its_mark_and_the_students_values():
    say = feedback_page.say_line_in
    assert say("✗ softmax: 8 of 12 hidden test cases passed.", "zh") == "✗ softmax：12 个隐藏测试用例中通过了 8 个。"
    assert say("First problem: not finite — on large logits", "zh") == "第一个问题：not finite — on large logits"
    assert say("Partial credit: 2.67 of 4 points.", "zh") == "部分得分：4 分中得 2.67 分。"


def test_a_verdict_line_no_message_knows_stays_as_the_grading_wrote_it():
    line = "The softmax saturates once the scores spread by more than a few units."
    assert feedback_page.say_line_in(line, "zh") == line
    assert feedback_page.say_line_in("✗ softmax: 8 of 12 hidden test cases passed.", "en") == \
        "✗ softmax: 8 of 12 hidden test cases passed."
