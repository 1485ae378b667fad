"""Which language each student reads the course's pages in.

The instructor says it in the roster (an optional ``Language`` column, read by ``grader roster``),
and a student may choose it on the course hub (``/hub/language``, :mod:`grader.hub.language_page`);
a student neither gives a language reads the course's default (``c.FeedbackPage.feedback_language``).
The choices are kept in the course's private ``.grader/`` folder
(:data:`grader.state_folders.STUDENT_LANGUAGES`), which no kernel and no student can reach, so
nothing a submission does can change the language its feedback is written in.
"""
from __future__ import annotations

from pathlib import Path

from grader.language.catalogue import LANGUAGES
from grader.language.language_records import read_languages, record_languages
from grader.state_folders import STUDENT_LANGUAGES

#: The roster's optional column of each student's language.
LANGUAGE_COLUMN = "Language"

#: What a roster may write for each language (compared case-folded, spaces and "_" as "-").
_SPELLINGS: dict[str, str] = {
    "en": "en", "english": "en", "en-us": "en", "en-gb": "en",
    "zh": "zh", "zh-cn": "zh", "zh-hans": "zh", "zh-hans-cn": "zh", "chinese": "zh",
    "simplified-chinese": "zh", "中文": "zh", "简体中文": "zh", "汉语": "zh",
}


def language_of(text: str) -> str | None:
    """The language a roster cell names (``"zh-CN"``, ``"Chinese"``, ``"中文"`` -> ``"zh"``); None
    for an empty cell (the course's default); ValueError naming the accepted spellings otherwise."""
    key = text.strip().casefold().replace("_", "-").replace(" ", "-")
    if not key:
        return None
    if key not in _SPELLINGS:
        accepted = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
        raise ValueError(f"{text.strip()!r} is not a language of the course; write one of {accepted}, "
                         "or leave it empty for the course's default")
    return _SPELLINGS[key]


def languages_file(state_dir: Path) -> Path:
    return Path(state_dir) / STUDENT_LANGUAGES


def save_student_languages(state_dir: Path, languages: dict[str, str]) -> None:
    """Record ``languages`` (student id -> language code) in the course's ``.grader/`` folder,
    replacing what an earlier roster (or the student's own choice on the hub) said of the same
    students and keeping the others."""
    record_languages(languages_file(state_dir), languages)


def read_student_languages(state_dir: Path) -> dict[str, str]:
    """Student id -> language code, as recorded; empty when no roster gave languages."""
    return {student: language for student, language in read_languages(languages_file(state_dir)).items()
            if language in LANGUAGES}


def student_language(state_dir: Path, student: str, default: str) -> str:
    """The language ``student`` reads: the roster's, else ``default``."""
    return read_student_languages(state_dir).get(student, default)


def reading_language(course, student: str | None) -> str:
    """The language ``student`` reads the course's pages in: the roster's, else the course's
    ``c.FeedbackPage.feedback_language`` (``course``: a ``grader.course.Course``)."""
    from grader.course import load_config
    from grader.settings import setting

    default = load_config(course).FeedbackPage.get("feedback_language",
                                                   setting("FeedbackPage", "feedback_language").default)
    default = default if default in LANGUAGES else setting("FeedbackPage", "feedback_language").default
    return default if student is None else student_language(course.state_dir, student, default)
