"""The catalogues' translations of what the student's kernel says, copied into ``course_numbers``.

The notebooks' ``my_numbers`` cell prints its heading in the student's kernel, which has
``course_numbers`` (standard library only) but neither Babel nor ``grader``. So the translations of
``course_numbers.MESSAGES`` are copied from this package's catalogues into
``course_numbers/translations.py``, a plain dict; ``grader release`` writes it and a test checks
that the copy is current. Translators edit only the catalogues.
"""
from __future__ import annotations

from pathlib import Path

import course_numbers
from grader.language.catalogue import LANGUAGES, SOURCE_LANGUAGE, translations

#: The copy the kernel reads.
TRANSLATIONS_FILE = Path(course_numbers.__file__).with_name("translations.py")

_HEADER = '''"""Translations of ``course_numbers.MESSAGES``: language -> {English message: translation}.

Written by ``grader release`` from the course's catalogues (``grader/language/locales``); edit the
catalogues, not this file.
"""
'''


def kernel_translations() -> dict[str, dict[str, str]]:
    """language -> {message: its translation} for every message of ``course_numbers.MESSAGES`` a
    catalogue translates (English has none)."""
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


def write_kernel_translations(path: Path = TRANSLATIONS_FILE) -> bool:
    """Write ``translations_source()`` to ``path``; True when its text changed."""
    text = translations_source()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
