"""The catalogues' translations of what the student's kernel says, copied into ``course_numbers``.

The notebooks' ``my_numbers`` cell prints its heading in the student's kernel, which has
``course_numbers`` (standard library only) but neither Babel nor ``grader``. So the translations of
``course_numbers.MESSAGES`` are copied from this package's catalogues into
``course_numbers/translations.py``, a plain dict; ``grader release`` writes it and a test checks
that the copy is current. Translators edit only the catalogues.
"""
from __future__ import annotations

from pathlib import Path

from grader.language.catalogue import LANGUAGES, SOURCE_LANGUAGE, translations

#: The course's package of per-student numbers, and the copy of the translations in it the kernel reads.
NUMBERS_PACKAGE = "course_numbers"
TRANSLATIONS_NAME = "translations.py"


def translations_file(course_root: Path | str) -> Path:
    """Where the kernel's copy of the translations lives in the course folder ``course_root``."""
    return Path(course_root) / NUMBERS_PACKAGE / TRANSLATIONS_NAME

_HEADER = '''"""Translations of ``course_numbers.MESSAGES``: language -> {English message: translation}.

Written by ``grader release`` from the course's catalogues (``grader/language/locales``); edit the
catalogues, not this file.
"""
'''


def kernel_translations() -> dict[str, dict[str, str]]:
    """language -> {message: its translation} for every message of ``course_numbers.MESSAGES`` a
    catalogue translates (English has none)."""
    import course_numbers  # the course's package, from its folder

    table = {}
    for language in LANGUAGES:
        if language == SOURCE_LANGUAGE:
            continue
        catalogue = translations(language)
        table[language] = {m: catalogue.gettext(m) for m in course_numbers.MESSAGES if catalogue.gettext(m) != m}
    return table


def translations_source() -> str:
    """The text of ``course_numbers/translations.py`` for the catalogues as they are."""
    lines = [_HEADER, "TRANSLATIONS = {"]
    for language, messages in kernel_translations().items():
        lines.append(f"    {language!r}: {{")
        for message, text in messages.items():
            lines.append(f"        {_literal(message, 8)}:\n            {_literal(text, 12)},")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _literal(text: str, indent: int) -> str:
    """``text`` as a Python string literal, split into parts of at most 60 columns (30 characters of
    text that is not ASCII: CJK characters are two columns wide) on lines of their own when longer."""
    width = 60 if text.isascii() else 30
    if len(text) <= width:
        return repr(text)
    parts = [text[i:i + width] for i in range(0, len(text), width)]
    return "(" + f"\n{' ' * (indent + 1)}".join(repr(part) for part in parts) + ")"


def write_kernel_translations(course_root: Path | str) -> bool:
    """Write ``translations_source()`` into the course's ``course_numbers`` package; True when its
    text changed. A course without that package (an ordinary nbgrader course) has nothing to write."""
    path = translations_file(course_root)
    if not path.parent.is_dir():
        return False
    text = translations_source()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
