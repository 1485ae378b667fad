"""The feedback page's line on the student's own deadline and late days, in the page's language.

``Your due date: 2026-03-03 12:00 UTC (the class's: 2026-03-01 12:00 UTC). Late days left: 1 of 2.
Late days this hand-in spent: 1.`` — each sentence only when it has something to say (a due date;
late days in the course). Every message is in :data:`MESSAGES`, translated in ``grader.language``'s
catalogues.
"""
from __future__ import annotations

from grader.language.catalogue import translate
from grader.policy.standing import Standing, moment_text

DUE = "Your due date: {due}."
EXTENDED_DUE = "Your due date: {due} (the class's: {class_due})."
LATE_DAYS_LEFT = "Late days left: {left} of {allowance}."
LATE_DAYS_SPENT = "Late days this hand-in spent: {spent}."
MESSAGES = (DUE, EXTENDED_DUE, LATE_DAYS_LEFT, LATE_DAYS_SPENT)


def deadline_sentences(standing: Standing, language: str) -> list[str]:
    """The sentences of the note (plain text), in ``language``."""
    policy, said = standing.policy, []
    if policy.due is not None:
        if policy.has_extension:
            said.append(translate(EXTENDED_DUE, language, due=moment_text(policy.due),
                                  class_due=moment_text(policy.class_due)))
        else:
            said.append(translate(DUE, language, due=moment_text(policy.due)))
    if policy.late_days > 0:
        said.append(translate(LATE_DAYS_LEFT, language, left=standing.late_days_left, allowance=policy.late_days))
        if standing.outcome is not None and standing.outcome.late_days_spent:
            said.append(translate(LATE_DAYS_SPENT, language, spent=standing.outcome.late_days_spent))
    return said


def deadline_note_text(standing: Standing, language: str) -> str:
    """The note as one line of text (the page escapes it), or "" when it has nothing to say."""
    return " ".join(deadline_sentences(standing, language))
