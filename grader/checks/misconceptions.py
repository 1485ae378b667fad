"""The known wrong answers of a course, by check name: what its feedback can name.

Each checks file (``source/<id>/checks.py``) declares its own (``wrong_answers=`` of
``grader.checks.common.function_check`` / ``value_check``); this module only reads them back from
the loaded checks, for the feedback page and the tests (every entry must fail its check and be
named; every entry's feedback must be free of answers). The "lesson's numbers" mistake that
``value_check`` adds to every numeric quiz item is not a declared one and is not listed here;
:func:`named_misconception` finds it with the declared ones, for a page naming a verdict's.

Wording rules (tested by ``grader_tests/checks/test_feedback_is_answer_free.py``): each explanation names
the mistake and its consequence in plain words, for a student who will reread the lesson section
given; it never states a quiz item's expected value, nor an expression or a one-step instruction
("take its square root", "divide by 8") that yields it.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from grader.checks import all_checks
from grader.checks.api import Misconception
from grader.checks.common import LESSONS_NUMBERS


def declared_wrong_answers(course_root: Path | str | None = None) -> dict[str, tuple[Misconception, ...]]:
    """check name -> its declared misconceptions, for every check of the course that declares any."""
    known = {}
    for name, check in all_checks(course_root).items():
        declared = tuple(m for m in check.misconceptions if m.name != LESSONS_NUMBERS)
        if declared:
            known[name] = declared
    return known


class _DeclaredWrongAnswers(Mapping):
    """:func:`declared_wrong_answers` of the course in use, read when first needed."""

    def _known(self) -> dict[str, tuple[Misconception, ...]]:
        return declared_wrong_answers()

    def __getitem__(self, name: str) -> tuple[Misconception, ...]:
        return self._known()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._known())

    def __len__(self) -> int:
        return len(self._known())


#: check name -> its declared misconceptions, for the course in use (``grader.checks.use_course``).
KNOWN_WRONG_ANSWERS: Mapping[str, tuple[Misconception, ...]] = _DeclaredWrongAnswers()


def wrong_answers(check_name: str, course_root: Path | str | None = None) -> tuple[Misconception, ...]:
    """The declared wrong answers of ``check_name`` (empty when it declares none or is unknown)."""
    return declared_wrong_answers(course_root).get(check_name, ())


def named_misconception(check_name: str, name: str | None,
                        course_root: Path | str | None = None) -> Misconception | None:
    """The misconception ``name`` a verdict of ``check_name`` names: a declared wrong answer, or the
    lesson's-numbers mistake of a numeric quiz item; None when the check has none by that name."""
    check = all_checks(course_root).get(check_name)
    if check is None or name is None:
        return None
    return next((m for m in check.misconceptions if m.name == name), None)
