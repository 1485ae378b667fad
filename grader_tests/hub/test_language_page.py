"""The hub's page on which a student chooses their language (grader.hub.language_page): every
course language offered, named in itself, the student's current one chosen, and everything the page
says said in every course language, each text marked with its language."""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from grader.hub.language_page import WORDS, language_page
from grader.language.catalogue import LANGUAGES

FORM_TOKEN = '<input type="hidden" name="_xsrf" value="token">'


def _page(current: str) -> BeautifulSoup:
    return BeautifulSoup(language_page(LANGUAGES, current, FORM_TOKEN, "/hub/language", "/user/ada/course"),
                         "html.parser")


@pytest.mark.parametrize("current", sorted(LANGUAGES))
def test_every_course_language_is_offered_named_in_itself_with_the_current_one_chosen(current):
    choices = _page(current).select('input[name="language"]')
    assert [c["value"] for c in choices] == list(LANGUAGES)
    assert [c["value"] for c in choices if c.has_attr("checked")] == [current]
    labels = [label.get_text(" ", strip=True) for label in _page(current).select("label")]
    assert labels == list(LANGUAGES.values())


def test_the_form_posts_to_the_page_with_the_hubs_form_token():
    form = _page("en").select_one("form")
    assert form["method"] == "post" and form["action"] == "/hub/language"
    assert form.select_one('input[name="_xsrf"]')["value"] == "token"


def test_everything_the_page_says_is_said_in_every_course_language_each_marked_with_its_language():
    page = _page("en")
    for language in LANGUAGES:
        lang = "zh-Hans" if language == "zh" else language
        said = {element.get_text(strip=True) for element in page.select(f'[lang="{lang}"]')}
        assert set(WORDS[language].values()) <= said, language


def test_the_page_leads_back_to_the_course_page():
    assert _page("zh").select_one("a.back")["href"] == "/user/ada/course"


def test_every_language_says_everything_english_says():
    assert all(set(words) == set(WORDS["en"]) for words in WORDS.values())
    assert set(WORDS) == set(LANGUAGES)
