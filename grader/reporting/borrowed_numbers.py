"""'Answers that fit someone else's numbers': wrong quiz answers that are right for other numbers.

Every student's quiz items are graded for their own numbers (``solutions.variants``). A wrong
numeric answer that equals, within the item's tolerance, the answer for the lesson's numbers or
for another student's numbers of the class was most likely typed from the lesson or copied from
that classmate. This section lists them for the instructor only: it reads the graded answers that
``grader.grading.preprocessors.decide_verdicts.DecideVerdicts`` keeps in the private ``.grader/quiz_answers/`` folder, and
nothing of it is written into any feedback page. Choice items are left out (a letter fits a
quarter of the class by chance).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from grader.checks import get_check
from grader.checks.api import compare_answer
from grader.course import Course
from grader.state_folders import QUIZ_ANSWERS

#: How the lesson's numbers are named in the section and the CSV.
LESSONS_NUMBERS = "the lesson's numbers"


@dataclass(frozen=True)
class BorrowedRow:
    """One wrong answer of ``student`` to ``item`` that is right for ``whose`` numbers.

    whose: LESSONS_NUMBERS, or the ids (comma-separated) of the classmates whose numbers give it;
    items: how many of the student's wrong answers of this assignment fit the same numbers (the most
        for any one of the classmates named).
    """

    student: str
    item: str
    whose: str
    items: int


def graded_answers(course: Course, assignment: str) -> dict[str, dict[str, dict]]:
    """student -> item -> {"answer", "passed", "stage"} as graded last (an unreadable file is skipped)."""
    folder = course.state_dir / QUIZ_ANSWERS / assignment
    answers = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(entries, dict):
            answers[path.stem] = entries
    return answers


def borrowed_numbers(course: Course, assignment: str, students: list[str]) -> list[BorrowedRow]:
    """Every wrong numeric quiz answer of ``students`` that fits the lesson's or a classmate's numbers.

    students: the class (everyone who handed in ``assignment``); sorted by student, then item.
    """
    answers = graded_answers(course, assignment)
    if not answers:  # no quiz item of this assignment was graded (an ordinary nbgrader assignment has none)
        return []
    from solutions.variants import numbers_for  # the course's reference package, from its folder

    class_numbers = {student: numbers_for(student) for student in students}
    fits: dict[tuple[str, str], list[str]] = {}  # (student, item) -> sources it fits
    for student in sorted(answers):
        if student not in class_numbers:
            continue
        for item, entry in sorted(answers[student].items()):
            if not isinstance(entry, dict) or entry.get("passed") or not isinstance(entry.get("answer"), dict):
                continue
            sources = _sources_fitting(course, item, entry["answer"], student, class_numbers)
            if sources:
                fits[(student, item)] = sources
    counts: dict[tuple[str, str], int] = defaultdict(int)  # (student, lesson or one classmate) -> items
    for (student, _), sources in fits.items():
        for source in sources:
            for person in source.split(", "):
                counts[(student, person)] += 1
    return [BorrowedRow(student, item, source, max(counts[(student, p)] for p in source.split(", ")))
            for (student, item), sources in sorted(fits.items()) for source in sources]


def _sources_fitting(course: Course, item: str, wire: dict, student: str,
                     class_numbers: dict[str, dict]) -> list[str]:
    """LESSONS_NUMBERS and/or the classmates (one comma-separated entry) whose numbers give ``wire``."""
    from solutions.variants import LESSON_NUMBERS

    try:
        check = get_check(item, course.root)
    except KeyError:
        return []
    own = class_numbers[student][item]
    if check.kind != "value" or isinstance(check.expected_value(own), str):
        return []
    sources = []
    if own != LESSON_NUMBERS[item] and _fits(check, LESSON_NUMBERS[item], wire):
        sources.append(LESSONS_NUMBERS)
    by_numbers: dict[str, list[str]] = defaultdict(list)  # classmates sharing numbers share one comparison
    for other, numbers in class_numbers.items():
        if other != student and numbers[item] != own:
            by_numbers[json.dumps(numbers[item], sort_keys=True)].append(other)
    classmates = sorted(other for key, others in by_numbers.items() if _fits(check, json.loads(key), wire)
                        for other in others)
    if classmates:
        sources.append(", ".join(classmates))
    return sources


def _fits(check, numbers: dict, wire: dict) -> bool:
    try:
        return compare_answer(check.expected_value(numbers), wire, check.rtol, check.atol) is None
    except Exception:  # an answer the comparison cannot read fits nobody
        return False
