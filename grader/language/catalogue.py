"""Message catalogues: one gettext ``.po`` file per language a translator can edit.

English is the language the code is written in (every message id is the English text), so it has
no catalogue. Each other language has ``locales/<language>/LC_MESSAGES/grader.po``, read with
Babel and compiled in memory once per process. A message a catalogue does not translate is shown
in English (gettext's fallback), so a page is never missing a sentence.

Messages with values name them in braces (``"First problem: {problem}"``); a translation keeps the
same names (tested), and :func:`translate` fills them after translating.
"""
from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

#: The folder of the catalogues: ``<language>/LC_MESSAGES/grader.po``.
LOCALES = Path(__file__).parent / "locales"
DOMAIN = "grader"
#: The language the messages are written in; it needs no catalogue.
SOURCE_LANGUAGE = "en"
#: Every language a student may read, with its name in itself (as a student picks it).
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文"}
#: The resources key under which a page's preprocessor names the page's language for its exporter.
PAGE_LANGUAGE_KEY = "language"
#: Language -> the BCP 47 tag of a page's ``lang`` attribute (screen readers pick their voice by it).
HTML_LANG: dict[str, str] = {"en": "en", "zh": "zh-Hans"}


def catalogue_path(language: str) -> Path:
    """The ``.po`` file of ``language`` (which need not exist)."""
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=None)
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``language``; the identity for English.

    ValueError for a language that is not one of :data:`LANGUAGES`."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; the course's pages are in {', '.join(LANGUAGES)}")
    if language == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo  # imported here: settings read LANGUAGES in every process
    from babel.messages.pofile import read_po

    with open(catalogue_path(language), "rb") as handle:
        catalogue = read_po(handle, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


@lru_cache(maxsize=None)
def catalogue_messages(language: str) -> dict[str, str]:
    """English message -> its translation in ``language``'s catalogue (untranslated and fuzzy
    messages left out; empty for English)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; the course's pages are in {', '.join(LANGUAGES)}")
    if language == SOURCE_LANGUAGE:
        return {}
    from babel.messages.pofile import read_po

    with open(catalogue_path(language), "rb") as handle:
        return translated_entries(read_po(handle, locale=language, domain=DOMAIN))


def translated_entries(catalogue) -> dict[str, str]:
    """English message -> translation of every entry of a Babel ``catalogue`` that has a current
    translation (untranslated and fuzzy entries left out)."""
    return {entry.id: entry.string for entry in catalogue
            if entry.id and isinstance(entry.string, str) and entry.string and not entry.fuzzy}


def translate(message: str, language: str, **values) -> str:
    """``message`` (English, the message id) in ``language``, with ``{name}`` parts filled from ``values``."""
    text = translations(language).gettext(message)
    return text.format(**values) if values else text
