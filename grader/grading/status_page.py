"""The page a student gets instead of graded feedback: not graded, refused, waiting, held.

Every such page has one form: what happened (the headline), why (the detail, which may quote the
submitted file), and what to do about it. nbgrader writes no feedback for a notebook it could not
read, so without the ungradable page the reason would sit only in the course's private
``.grader/ungradable/`` (``grader.grading.ungradable_record``), where students never look. The
grading service (``grader.service.pages``) writes the other states with the same form. Pages are
rendered from the autoescaped template ``page/status.html.j2`` (``grader.pages.page_templates``),
so every piece of text is escaped and the page carries the course's Content-Security-Policy.
"""
from __future__ import annotations

from pathlib import Path

from markupsafe import Markup, escape

from grader.course import Course
from grader.language.catalogue import HTML_LANG, SOURCE_LANGUAGE, translate
from grader.language.text_patterns import page_translator
from grader.pages.page_templates import render

WHAT_TO_DO = (
    "Open your notebook in Jupyter and check that it opens without an error. If it does, save it "
    "(File → Save Notebook) and submit again. If it does not open, fetch the assignment again, copy "
    "your work into the fresh notebook, save it and submit that one. Hand in the .ipynb file that "
    "Jupyter saved, not a renamed, exported or hand-edited file."
)
NOT_GRADED = "not graded"
NOT_GRADED_LEAD = "Your submission could not be graded, so every test of this assignment scored 0 points for now."
HANDED_IN_LINE = "Student {student}, assignment {assignment}, handed in {timestamp}."
WHY = "Why"
WHAT_TO_DO_HEADING = "What to do"
IN_ENGLISH = "The reason as the grader recorded it (in English):"
RECORDED_REASON = "The reason as the grader recorded it:"

#: The template of every status page (under ``grader/pages/templates/``; it extends the base page).
TEMPLATE = "page/status.html.j2"


def status_page(assignment: str, headline: str, detail: str, todo: str, lead: str = "",
                student: str | None = None, handed_in: str | None = None, waiting: bool = False,
                language: str = SOURCE_LANGUAGE, recorded_reason: str = "") -> str:
    """The HTML of one status page (every value escaped), in ``language``.

    ``headline``: a few words (``not graded``, ``waiting to be graded``); ``detail``: why, a sentence
    or two; ``todo``: what the student does next; ``lead``: the sentence under the title (the
    headline when empty); ``student`` and ``handed_in`` (nbgrader's timestamp text) add a line that
    names the hand-in; ``waiting`` marks a state that will change by itself. The headline, lead,
    todo and the page's own words are translated (the catalogue's English message ids); ``detail``
    is shown as given (callers translate it); ``recorded_reason``, when given, follows it: the exact
    reason of a refusal, whose values quote the hand-in, said in ``language`` when the engine's
    catalogue knows its words (``grader.language.text_patterns``), else marked as English.
    """
    def say(message: str, **values) -> str:
        return translate(message, language, **values)

    shown = say(headline)
    title = f"{assignment}: {shown}"  # a refused folder may name an assignment the course lacks
    handed = None
    if student is not None and handed_in is not None:
        bold = Markup("<b>{}</b>")
        handed = Markup(escape(say(HANDED_IN_LINE))).format(
            student=bold.format(student), assignment=bold.format(assignment), timestamp=handed_in)
    lead = say(lead) if lead else shown[:1].upper() + shown[1:] + ("。" if language == "zh" else ".")
    recorded, recorded_heading, recorded_lang = _recorded(recorded_reason, language)
    return render(TEMPLATE, title=title, handed_in=handed, lead=lead, detail=detail.strip(), todo=say(todo),
                  colour="#d9a400" if waiting else "#b3261e", language=HTML_LANG[language],
                  why=say(WHY), what_to_do=say(WHAT_TO_DO_HEADING), recorded_reason=recorded,
                  recorded_heading=recorded_heading, recorded_lang=recorded_lang)


def _recorded(reason: str, language: str) -> tuple[str, str, str]:
    """(the recorded reason as a page in ``language`` shows it, its heading, its ``lang``); no reason
    on an English page (the detail is the reason there)."""
    reason = reason.strip()
    if language == SOURCE_LANGUAGE or not reason:
        return "", "", HTML_LANG[SOURCE_LANGUAGE]
    said = page_translator(None, language)(reason)
    if said == reason:
        return reason, translate(IN_ENGLISH, language), HTML_LANG[SOURCE_LANGUAGE]
    return said, translate(RECORDED_REASON, language), HTML_LANG[language]


def ungradable_page(assignment: str, reason: str, student: str | None = None, handed_in: str | None = None,
                    language: str = SOURCE_LANGUAGE, code: str | None = None) -> str:
    """The page of a submission that could not be graded; ``reason`` (its author's words) is
    escaped; ``code`` (``grader.grading.admission.CODES``) gives the sentence shown in ``language``."""
    detail, recorded = refusal_detail(code, reason, language)
    return status_page(assignment, NOT_GRADED, detail, WHAT_TO_DO, lead=NOT_GRADED_LEAD,
                       student=student, handed_in=handed_in, language=language, recorded_reason=recorded)


def refusal_detail(code: str | None, reason: str, language: str) -> tuple[str, str]:
    """(detail, recorded reason) of a refusal's page: in English the reason itself; in another
    language the code's sentence for students in that language, then the recorded English reason."""
    from grader.grading.admission import CODES

    if language == SOURCE_LANGUAGE or code not in CODES:
        return reason, ""
    return translate(CODES[code].student_summary, language), reason


def write_ungradable_page(course: Course, student: str, assignment: str, reason: str,
                          code: str | None = None) -> Path:
    """Write the page where ``nbgrader generate_feedback`` would put ``student``'s feedback, in the
    student's language (``grader.language.student_language``); its path."""
    from grader.language.student_language import reading_language

    paths = course.feedback_pages(student, assignment)  # one per notebook: nbgrader looks for each
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    page = ungradable_page(assignment, reason, language=reading_language(course, student), code=code)
    for path in paths:
        path.write_text(page, encoding="utf-8")
    return paths[0]
