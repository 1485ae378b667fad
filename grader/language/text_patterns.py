"""Translating a text that code assembled from messages: a check's first problem on a feedback page.

A check's first problem is English built from messages with values, nested: the engine's
``"{what} has shape {shape}, which is not the shape the contract asks for here."`` with ``what``
the course's ``"the mean"`` inside ``"{output} you returned"``, or a case label of the course's
checks file made with an f-string (``"a vector of {n} random logits"``). A
:class:`TextTranslator` is given every message of a language's catalogues (the engine's and the
course's) and says such a text in that language: a text that is a message is its translation; a
text that a message with values matches (its literal words around the values, the most specific
message first) is that message's translation with each value said the same way; anything else
(a number, a shape, a code name, an exception's message) stays as it is.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Mapping

#: What a value of these names can be when a text is read back; any other value is any text. A
#: type or code name is one word, so ``"a {kind}"`` cannot swallow a sentence that merely starts with "a".
VALUE_PATTERNS: dict[str, str] = {
    "kind": r"[\w.]+",
    "name": r"\w+",
    "dtype": r"\w+",
    "size": r"\d+",
    "number": r"\d+",
}
#: Values of these names are messages themselves (a check's stage): a text is read back by a
#: message with such a value only when the value is one of the translator's messages.
MESSAGE_VALUES = frozenset({"stage"})
#: How deep values nest in one text (the problem, its detail, a value of the detail, ...).
MAX_NESTING = 4


@dataclass(frozen=True)
class Template:
    """One message with values: the pattern that reads its English back, and its translation."""

    pattern: re.Pattern
    translation: str
    literal_length: int  # characters outside the values: the longer, the more specific


def _template(message: str, translation: str) -> Template | None:
    """The template of ``message`` (a message whose values are ``{name}`` fields), or None when it
    has no values, no words around them, or a field a text cannot be read back by."""
    try:
        parsed = list(string.Formatter().parse(message))
    except ValueError:
        return None
    pattern, names, literal = "", set(), 0
    for text, name, _spec, _conversion in parsed:
        pattern += re.escape(text)
        literal += len(text.strip())
        if name is None:
            continue
        if not name.isidentifier():
            return None
        if name in names:
            pattern += f"(?P={name})"
        else:
            pattern += f"(?P<{name}>{VALUE_PATTERNS.get(name, '.+?')})"
            names.add(name)
    if not names or literal == 0:
        return None
    return Template(re.compile(pattern, re.DOTALL), translation, literal)


class TextTranslator:
    """Says English texts in one language from ``messages`` (English message -> translation; an
    empty translation counts as none)."""

    def __init__(self, messages: Mapping[str, str]):
        translated = {message: said for message, said in messages.items() if message and said}
        self.exact = translated
        templates = (_template(message, said) for message, said in translated.items())
        self.templates = sorted((t for t in templates if t is not None), key=lambda t: -t.literal_length)

    def __call__(self, text: str, depth: int = MAX_NESTING) -> str:
        """``text`` in the translator's language, as far as its messages say it; else unchanged."""
        if text in self.exact:
            return self.exact[text]
        if depth <= 0 or not text:
            return text
        for template in self.templates:
            found = template.pattern.fullmatch(text)
            if found is None or any(found.group(name) not in self.exact for name in MESSAGE_VALUES & found.re.groupindex.keys()):
                continue
            values = {name: self(value, depth - 1) for name, value in found.groupdict().items()}
            try:
                return template.translation.format(**values)
            except (KeyError, IndexError, ValueError):  # a translation naming a value its message lacks
                continue
        return text



#: (language, the engine's table, the course's table) -> the translator made of them, kept while
#: both tables are the same objects (each is read once per version of its file).
_PAGE_TRANSLATORS: dict[tuple[str, int, int], tuple[Mapping, Mapping, TextTranslator]] = {}
_NO_COURSE: dict[str, str] = {}


def page_translator(course_root, language: str) -> TextTranslator:
    """The translator of a feedback page in ``language``: the engine's messages
    (``grader.language.catalogue``) and the course's (its catalogue beside ``source/``; none when
    ``course_root`` is None)."""
    from grader.language.catalogue import catalogue_messages
    from grader.language.notebook_catalogue import course_translations

    engine = catalogue_messages(language)
    course = _NO_COURSE if course_root is None else course_translations(course_root, language)
    key = (language, id(engine), id(course))
    kept = _PAGE_TRANSLATORS.get(key)
    if kept is None or kept[0] is not engine or kept[1] is not course:
        if len(_PAGE_TRANSLATORS) >= 8:
            _PAGE_TRANSLATORS.clear()
        kept = _PAGE_TRANSLATORS[key] = (engine, course, TextTranslator({**course, **engine}))
    return kept[2]
