"""The feedback page a student reads: a summary of every check first, then the notebook, tidied.

``FeedbackPage`` is an nbgrader preprocessor for ``GenerateFeedback`` (``nbgrader_config.py``), so
plain ``nbgrader generate_feedback`` builds the same page. It runs after ``GetGrades`` (scores from
the gradebook) and ``CSSHTMLHeaderPreprocessor`` (the page's inline CSS), and:

- names the assignment's title (the release's first heading) for the page's header;
- puts a summary at the top of the notebook: each check by name with its score, what is wrong with
  it, and which one to fix first (the first that lost points, in notebook order: later functions
  often call earlier ones), or nothing for a notebook without hidden checks. nbgrader's own index
  of scores per cell stays above it;
- shows the ``my_numbers`` cell's numbers as the grading side derives them for the student, in the
  page's language (``course_numbers.show_numbers``), in place of what the kernel printed;
- hides what only nbgrader needs from a graded test cell (the bare partial-credit number and the
  zero-score error), keeping the verdict text;
- replaces the traceback of a cell that still raises the released NotImplementedError (the stub
  itself, or a figure cell calling it) by one plain line;
- says, under a test cell whose own asserts decided its verdict in the student's kernel (an
  ordinary nbgrader test cell, no hidden check of the course), and in the summary, that code in a
  notebook could forge that verdict, and where an instructor reads how to make it a trusted check;
- makes long verdict text wrap instead of running past the right edge of its box;
- drops nbgrader's "No response." comment under an answer left as released, and marks the cells
  the course's template (``grader/pages/templates/feedback_page``) folds (``PAGE_KEY``): the answers
  whose check passed and the course's own text and code (cells as the release notebook has them;
  a cell the student added stays open), so the page is the work that needs attention and the verdicts.

The page is in the student's language (``grader.language``: the roster's, else
``c.FeedbackPage.feedback_language``): the summary, the template's headings and notes, and each named
misconception come from the language's catalogue; a failing visible test's assert message and the
assignment's title from the course's catalogue (as the student's kernel on the hub showed it); a
check's first problem is said from the verdict record's parts (``grader.checks.api.problem_text``)
through both catalogues (``grader.language.text_patterns``). The student's own values, code names
and the lesson sections stay as they are.

Every text that can come from a submission (exception messages inside a verdict) is HTML-escaped.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.checks.api import problem_text
from grader.checks.misconceptions import named_misconception
from grader.course import converter_coursedir
from grader.fonts import PAGE_FONT_STACK, PAGE_MONOSPACE_STACK
from grader.grading.probe_cells import probe_cells_from_gradebook
from grader.grading.student_numbers import NUMBERS_CELL
from grader.grading.verdict_records import verdict_records
from grader.language.catalogue import PAGE_LANGUAGE_KEY, SOURCE_LANGUAGE, translate
from grader.language.notebook_catalogue import course_gettext
from grader.language.student_language import student_language
from grader.language.text_patterns import page_translator
from grader.sandbox.leftover_budget import NOTEBOOK_NOTE_KEY, WORKING_FOLDER_NOTE
from grader.settings import traits_of
from grader.state_folders import STATE_DIR_NAME
from notebook_language.cells import is_test_cell

SUMMARY_CELL_ID = "feedback-summary"
#: nbgrader's automatic comment on an answer cell left as released: says nothing the page does not.
NO_RESPONSE_COMMENT = "No response."
#: Cell metadata the feedback template reads: ``{"passed": True}`` on an answer whose check passed,
#: ``{"course": True}`` on a cell of the course's own (text, setup, figures) as released.
PAGE_KEY = "feedback_page"
#: How a named misconception reads on the page (a message of the catalogues).
MISCONCEPTION_LINE = "{name}: {explanation} (reread {lesson})"
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
NOT_ATTEMPTED_NOTE = "Not attempted yet: this cell still raises NotImplementedError, as released.\n"
#: Under a test cell whose verdict its own code decided in the student's kernel (plain asserts, as in
#: an ordinary nbgrader assignment), and, with the cells' names, in the summary.
KERNEL_VERDICT_NOTE = ("Decided inside your kernel: this test's own code ran in the same kernel as your "
                       "code, so code in a notebook could forge its verdict; the course's hidden checks "
                       "are decided outside the kernel. An instructor can turn this test cell into a "
                       "trusted check: see \"Bringing an existing nbgrader course\" in the instructor guide.\n")
KERNEL_VERDICTS_SUMMARY = ("Decided inside your kernel (code in a notebook could forge these verdicts): "
                           "{cells}. Each such cell says how an instructor turns it into a trusted check.")
CALLS_A_STUB_NOTE = ("This cell did not run to the end: it uses a function that is not written yet "
                     "(it still raises NotImplementedError).\n")

#: Appended to the page's inline CSS: fonts with CJK glyphs; verdicts wrap; markdown tables have
#: padded cells. nbgrader's index of scores per cell (``div#toc``, with the late penalty) stays.
PAGE_CSS = f"""
body, div.text_cell_render, div.rendered_html {{ font-family: {PAGE_FONT_STACK}; }}
pre, code, kbd, samp, div.input_area, div.output_area pre {{ font-family: {PAGE_MONOSPACE_STACK}; }}
div.text_cell_render table:not(.feedback-summary) {{ border-collapse: collapse; margin: 0.5em 0; }}
div.text_cell_render table:not(.feedback-summary) :is(th, td) {{ padding: 0.3em 0.8em;
  border: 1px solid #ccc; text-align: left; vertical-align: top; }}
div.output_area pre, div.output_text pre {{ white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; }}
div.output_area img {{ max-width: 100%; height: auto; }}
div.prompt {{ display: none; }}
h1.feedback-title {{ font-size: 1.6em; margin: 0.2em 0; }}
div.feedback-header {{ display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between;
  column-gap: 1em; }}
p.feedback-total {{ font-size: 1.2em; margin: 0.2em 0; }}
details > summary {{ cursor: pointer; margin: 0.2em 0; }}
details > summary > :is(h1, h2, h3, h4, p, div) {{ display: inline; }}
details > summary > h1 {{ font-size: 1.6em; }}
div.panel.nbgrader_cell {{ margin-bottom: 6px; }}
details.course-code > summary > div.panel-heading {{ display: inline-block; width: calc(100% - 1.5em); }}
table.feedback-summary {{ width: 100%; margin: 0.5em 0 1em 0; border-collapse: collapse; }}
table.feedback-summary th, table.feedback-summary td {{ padding: 0.3em 0.6em; border-bottom: 1px solid #ddd;
  vertical-align: top; text-align: left; white-space: nowrap; }}
table.feedback-summary td.status {{ white-space: normal; overflow-wrap: anywhere; width: 100%; }}
tr.passed td.status {{ color: #2f7d32; }}
tr.failed td.status {{ color: #b3261e; }}
p.fix-first {{ font-size: 1.1em; padding: 0.5em 0.8em; background: #fff4e5; border-left: 4px solid #e08a00; }}
p.all-passed {{ font-size: 1.1em; padding: 0.5em 0.8em; background: #edf7ed; border-left: 4px solid #2f7d32; }}
p.kernel-verdicts {{ padding: 0.5em 0.8em; background: #fff4e5; border-left: 4px solid #e08a00; }}
p.files-not-kept {{ padding: 0.5em 0.8em; background: #f3f3f3; border-left: 4px solid #888; }}
"""


@dataclass(frozen=True)
class CheckSummary:
    """One graded test cell as the summary shows it."""

    grade_id: str
    check: str
    score: float
    points: float
    problem: str  # "" when passed
    misconception: str  # the misconception sentence with its lesson section, or ""
    language: str = SOURCE_LANGUAGE

    @property
    def passed(self) -> bool:
        return self.score >= self.points - 1e-9

    @property
    def advice(self) -> str:
        """What to fix, in one line: the misconception when one is named, else the first problem."""
        return self.misconception or self.problem or translate("not passed", self.language)


def misconception_line(check: str, name: str | None, language: str) -> str:
    """The misconception ``name`` of ``check`` as the page says it in ``language`` (its name, what it
    means and the lesson section to reread), or "" when the check names none by that name."""
    known = named_misconception(check, name)
    if known is None:
        return ""
    return translate(MISCONCEPTION_LINE, language, name=translate(known.name, language),
                     explanation=translate(known.explanation, language), lesson=known.lesson)


def problem_in(record: dict, say=str) -> str:
    """The first problem of a verdict ``record`` as ``say`` says texts (:func:`problem_text`); a
    record without its parts (graded before they were recorded) gives its English line."""
    if say is str or "detail" not in record:
        return record.get("problem") or ""
    return problem_text(record.get("stage"), record["detail"], record.get("case"), record.get("lesson"), say) or ""


def check_summaries(nb, sources: dict[str, str] | None = None,
                    language: str = SOURCE_LANGUAGE, say=str) -> list[CheckSummary]:
    """The checks of a graded notebook whose cells ``GetGrades`` has scored, in notebook order.

    sources: grade_id -> the instructor's source of each probe cell (see ``instructor_sources``).
    language: the page's language; the misconception is said in it (from the verdict record's name).
    say: how the page says a text in its language (``grader.language.text_patterns.page_translator``;
    ``str`` in English); the first problem is said with it.
    """
    summaries = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        records = verdict_records(cell, _source(cell, sources))
        if not (meta.get("grade") and not meta.get("solution") and records):
            continue
        record = records[0]
        summaries.append(CheckSummary(
            grade_id=meta["grade_id"], check=record["check"],
            score=float(meta.get("score") or 0.0), points=float(meta.get("points") or 0.0),
            problem=problem_in(record, say),
            misconception=misconception_line(record["check"], record.get("misconception"), language),
            language=language))
    return summaries


#: The lines of a verdict (``grader.checks.api.Verdict.explain`` and ``decide_verdicts``' partial
#: credit), each as the pattern of its English text and its message, whose ``{names}`` are the
#: pattern's groups; a line may start with the verdict's mark (✓ or ✗), which stays.
VERDICT_LINES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"(?P<check>\w+): passed\."), "{check}: passed."),
    (re.compile(r"(?P<check>\w+): not passed\."), "{check}: not passed."),
    (re.compile(r"(?P<check>\w+): (?P<passed>\d+) of (?P<cases>\d+) hidden test cases? passed\."),
     "{check}: {passed} of {cases} hidden test cases passed."),
    (re.compile(r"First problem: (?P<problem>.*)"), "First problem: {problem}"),
    (re.compile(r"Partial credit: (?P<earned>\S+) of (?P<points>\S+) points\."),
     "Partial credit: {earned} of {points} points."),
)
_MARK = re.compile(r"(?P<mark>[✓✗] )?(?P<rest>.*)", re.DOTALL)
#: How ``grader.checks.api.Verdict.explain`` starts the line of the first problem.
FIRST_PROBLEM = "First problem: "


def say_line_in(line: str, language: str, misconception: str = "", problem: str = "", say=str) -> str:
    """One verdict line in ``language``: ``misconception`` and ``problem`` are the misconception and
    the first problem already said in it, which replace the English ones; another line is read by
    its pattern, else said by ``say`` (an item's discussion, from the course's catalogue), else it
    stays."""
    parts = _MARK.fullmatch(line)
    mark, rest = parts.group("mark") or "", parts.group("rest")
    if rest.startswith("Likely misconception ") and misconception:
        return mark + translate("Likely misconception: {misconception}", language, misconception=misconception)
    if rest.startswith(FIRST_PROBLEM) and problem:
        return mark + translate("First problem: {problem}", language, problem=problem)
    for pattern, message in VERDICT_LINES:
        found = pattern.fullmatch(rest)
        if found:
            return mark + translate(message, language, **found.groupdict())
    return mark + say(rest)


def say_verdict_in(cell, sources: dict[str, str] | None, language: str, say=str) -> None:
    """Rewrite the verdict lines of a graded probe cell's outputs in ``language``
    (:func:`say_line_in`; ``say``: as for :func:`check_summaries`). English pages are left as the
    grading wrote them."""
    meta = cell.metadata.get("nbgrader", {})
    if language == SOURCE_LANGUAGE or cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
        return
    records = verdict_records(cell, _source(cell, sources))
    if not records:
        return
    misconception = misconception_line(records[0]["check"], records[0].get("misconception"), language)
    problem = problem_in(records[0], say)
    for output in cell.outputs:
        text = output.get("data", {}).get("text/plain") if output.get("output_type") == "display_data" else None
        if isinstance(text, str):
            output["data"]["text/plain"] = "\n".join(say_line_in(line, language, misconception, problem, say)
                                                      for line in text.split("\n"))


def say_visible_test_in(cell, gettext) -> None:
    """A failing visible test's assert message as the student's kernel on the hub said it
    (:mod:`notebook_language.assertions`): the ``AssertionError``'s value, and its traceback's lines,
    translated by ``gettext`` (the notebooks catalogue of the page's language). Other cells and
    errors, and a message the catalogue lacks, stay as graded."""
    if not is_test_cell(cell):
        return
    for output in cell.get("outputs", []):
        if output.get("output_type") != "error" or output.get("ename") != "AssertionError":
            continue
        message = output.get("evalue") or ""
        said = gettext(message)
        if said != message:
            output["evalue"] = said
            output["traceback"] = [line.replace(message, said) for line in output.get("traceback", [])]


def working_folder_note(nb) -> str:
    """The grading's note on files of the working folder that were not kept (escaped HTML), or ""."""
    notes = nb.metadata.get(NOTEBOOK_NOTE_KEY)
    note = notes.get(WORKING_FOLDER_NOTE) if isinstance(notes, dict) else None
    return f'<p class="files-not-kept">{_e(note)}</p>' if isinstance(note, str) and note else ""


def summary_html(summaries: list[CheckSummary], note: str = "", language: str = SOURCE_LANGUAGE) -> str:
    """The summary block (escaped HTML) in ``language``: the check to fix first, then one row per
    check, then ``note`` (escaped HTML, e.g. :func:`working_folder_note`)."""
    def t(message: str) -> str:
        return _e(translate(message, language))

    failing = [s for s in summaries if not s.passed]
    if failing:
        first = failing[0]
        lead = (f'<p class="fix-first"><b>{t("Fix first:")}</b> <a href="#{_e(first.grade_id)}"><code>{_e(first.check)}</code></a>'
                f" &mdash; {_text(first.advice)}</p>")
    elif summaries:
        lead = f'<p class="all-passed"><b>{t("Every check passed.")}</b></p>'
    else:
        lead = ""
    rows = []
    for s in summaries:
        status = f"&#10003; {t('passed')}" if s.passed else f"&#10007; {_text(s.advice)}"
        rows.append(f'<tr class="{"passed" if s.passed else "failed"}">'
                    f'<td><a href="#{_e(s.grade_id)}"><code>{_e(s.check)}</code></a></td>'
                    f'<td class="score">{s.score:g} / {s.points:g}</td><td class="status">{status}</td></tr>')
    table = (f'<table class="feedback-summary"><thead><tr><th>{t("Check")}</th><th>{t("Score")}</th>'
             f'<th>{t("What to fix")}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>') if rows else ""
    return f'<div class="feedback-summary tex2jax_ignore"><h2>{t("Summary")}</h2>{lead}{table}{note}</div>'


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


def _text(text: str) -> str:
    """A verdict's sentence as HTML: escaped, with its `inline code` as <code>."""
    return _INLINE_CODE.sub(r"<code>\1</code>", _e(text))


def _source(cell, sources: dict[str, str] | None) -> str | None:
    if sources is None:
        return None
    return sources.get(cell.metadata.get("nbgrader", {}).get("grade_id"), "")


def instructor_sources(resources) -> dict[str, str] | None:
    """grade_id -> instructor source of each probe cell, from the gradebook nbgrader names in
    ``resources``; None outside an nbgrader run (the cells' own sources are used then)."""
    info = resources.get("nbgrader") or {}
    if not all(info.get(key) for key in ("db_url", "notebook", "assignment")):
        return None
    cells = probe_cells_from_gradebook(info["db_url"], info["notebook"], info["assignment"])
    return {grade_id: source for grade_id, (source, _points) in cells.items()}


def tidy_outputs(cell, sources: dict[str, str] | None = None, language: str = SOURCE_LANGUAGE) -> None:
    """Drop what only nbgrader reads from a graded test cell; shorten an untouched stub's traceback
    (to a note in ``language``)."""
    meta = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code":
        return
    if meta.get("grade") and not meta.get("solution") and verdict_records(cell, _source(cell, sources)):
        cell.outputs = [o for o in cell.outputs if o.get("output_type") not in ("execute_result", "error")]
        return
    note = translate(NOT_ATTEMPTED_NOTE if meta.get("solution") else CALLS_A_STUB_NOTE, language)
    cell.outputs = [new_output("stream", name="stderr", text=note)
                    if o.get("output_type") == "error" and o.get("ename") == "NotImplementedError" else o
                    for o in cell.outputs]


def show_graded_numbers(cell, student: str | None, assignment: str | None, language: str = SOURCE_LANGUAGE) -> None:
    """Make the ``my_numbers`` cell's output the student's numbers as the grading side derives them
    (``solutions.variants``), said in ``language``; other cells, and a page without a student or a
    course assignment, are left as they are."""
    meta = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code" or meta.get("grade_id") != NUMBERS_CELL or not student:
        return
    # Only a notebook with a my_numbers cell needs the course's packages (an ordinary course has none).
    from course_numbers import show_numbers
    from solutions.variants import ASSIGNMENT_ITEMS, numbers_for

    if assignment not in ASSIGNMENT_ITEMS:
        return
    text = show_numbers(numbers_for(student, assignment), student, language)
    cell.outputs = [new_output("stream", name="stdout", text=text + "\n")]


def decided_in_kernel(cell, sources: dict[str, str] | None = None) -> bool:
    """Whether ``cell`` is a graded test cell whose verdict its own code decided in the student's
    kernel: no verdict of the course's checks (``DecideVerdicts``) rides on it."""
    meta = cell.metadata.get("nbgrader", {})
    return (cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")
            and not verdict_records(cell, _source(cell, sources)))


def add_kernel_verdict_note(cell, language: str = SOURCE_LANGUAGE) -> None:
    """Put ``KERNEL_VERDICT_NOTE`` (in ``language``) first among the outputs of a cell decided in the kernel."""
    cell.outputs = [new_output("stream", name="stdout", text=translate(KERNEL_VERDICT_NOTE, language)),
                    *cell.outputs]


def kernel_verdicts_html(grade_ids: list[str], language: str = SOURCE_LANGUAGE) -> str:
    """The summary's paragraph naming the test cells decided in the kernel (escaped HTML), or ""."""
    if not grade_ids:
        return ""
    cells = ", ".join(f'<a href="#{_e(g)}"><code>{_e(g)}</code></a>' for g in grade_ids)
    return f'<p class="kernel-verdicts">{_e(translate(KERNEL_VERDICTS_SUMMARY, language)).format(cells=cells)}</p>'


def mark_for_the_page(cell, passed_checks: set[str], course_cells: set[tuple[str, str]]) -> None:
    """Drop nbgrader's "No response." comment; mark an answer cell whose check passed, and a cell of
    the course's own (locked, or in ``course_cells``: (cell type, source) pairs), for the template (``PAGE_KEY``)."""
    meta = cell.metadata.get("nbgrader", {})
    if meta.get("comment") == NO_RESPONSE_COMMENT:
        meta["comment"] = None
    if meta.get("solution") and meta.get("grade_id") in passed_checks:
        cell.metadata[PAGE_KEY] = {"passed": True}
    elif meta.get("locked") or (cell.cell_type, cell.source) in course_cells:  # locked: nbgrader restores it
        cell.metadata[PAGE_KEY] = {"course": True}


def released_notebook(preprocessor, resources):
    """The course's release of the page's notebook (an nbformat notebook), or None outside an
    nbgrader run or when the course folder has no readable release of it."""
    import nbformat

    coursedir, info = converter_coursedir(preprocessor), resources.get("nbgrader") or {}
    if coursedir is None or not (info.get("assignment") and info.get("notebook")):
        return None
    folder = Path(coursedir.format_path(coursedir.release_directory, ".", info["assignment"]))
    path = folder / f"{info['notebook']}.ipynb"
    try:
        return nbformat.read(path, as_version=4)
    except (OSError, ValueError):
        return None


def released_course_cells(released) -> set[tuple[str, str]]:
    """(cell type, source) of the cells of the ``released`` notebook that are neither answers nor
    tests; empty when there is no release (None)."""
    if released is None:
        return set()
    return {(cell.cell_type, cell.source) for cell in released.cells
            if not (cell.metadata.get("nbgrader", {}).get("solution")
                    or cell.metadata.get("nbgrader", {}).get("grade"))}


def assignment_title(released, gettext=str) -> str:
    """The title of the ``released`` notebook: its first markdown cell's level-1 heading, as plain
    text ("Assignment 02 — Softmax at σ = 8: ..."); "" when there is no release or no such heading.

    Read from the release, not the hand-in, so the page's header is the course's words; said by
    ``gettext`` (the course's catalogue, whose message is the heading's paragraph) when it
    translates the heading to a heading."""
    if released is None:
        return ""
    first = next((cell for cell in released.cells if cell.cell_type == "markdown"), None)
    line = first.source.lstrip().split("\n", 1)[0] if first is not None else ""
    if not line.startswith("# "):
        return ""
    said = gettext(line.strip())
    return (said if said.startswith("# ") else line)[2:].strip()


class FeedbackPage(NbGraderPreprocessor):
    """Summary at the top, tidy graded outputs, wrapping verdict text (see the module docstring)."""

    reads = {"resources.nbgrader", "cell.metadata.nbgrader: score and comment", "cell.outputs: inert",
             "cell.source: hidden tests removed"}
    writes = {"cell.metadata: page notes", "cell.outputs: the numbers cell's", "cell.outputs: visible tests' messages",
              "resources.feedback_summary", "resources.inlining: css",
              "resources.language", "resources.deadline_note", "resources.assignment_title"}

    locals().update(traits_of("FeedbackPage"))  # feedback_language (grader.settings)

    def page_language(self, resources) -> str:
        """The language of this page: the student's (``grader.language.student_language``), read from
        the course's private folder, never from the notebook."""
        coursedir, student = converter_coursedir(self), (resources.get("nbgrader") or {}).get("student")
        if coursedir is None or not student:
            return self.feedback_language
        return student_language(Path(coursedir.root) / STATE_DIR_NAME, student, self.feedback_language)

    def deadline_note(self, resources, language: str) -> str:
        """The student's own due date and late days left (grader.policy), as a line of text; "" outside
        a course's nbgrader run."""
        from grader.course import Course
        from grader.policy.course_policy import PolicyBook
        from grader.policy.declaration import PolicyFileError
        from grader.policy.page_note import deadline_note_text
        from grader.policy.standing import standing

        coursedir, info = converter_coursedir(self), resources.get("nbgrader") or {}
        if coursedir is None or not (info.get("student") and info.get("assignment")):
            return ""
        try:
            book = PolicyBook.of(Course(Path(coursedir.root)), config=self.config, student=info["student"])
        except PolicyFileError as exc:  # the page without the note rather than no page
            self.log.error("no deadline note on the feedback page: the course policy cannot be used: %s", exc)
            return ""
        return deadline_note_text(standing(book, info["student"], info["assignment"]), language)

    def preprocess(self, nb, resources):
        language = resources[PAGE_LANGUAGE_KEY] = self.page_language(resources)
        # ClearHiddenTests has removed the probe lines by now: trust comes from the gradebook.
        sources = instructor_sources(resources)
        coursedir = converter_coursedir(self)
        course_root = Path(coursedir.root) if coursedir is not None else None
        gettext = course_gettext(course_root, language) if course_root is not None else str
        say = str if language == SOURCE_LANGUAGE else page_translator(course_root, language)
        summaries = check_summaries(nb, sources, language, say)
        passed_checks = {s.check for s in summaries if s.passed}
        released = released_notebook(self, resources)
        course_cells = released_course_cells(released)
        resources["assignment_title"] = assignment_title(released, gettext)
        in_kernel, info = [], resources.get("nbgrader") or {}
        for cell in nb.cells:
            show_graded_numbers(cell, info.get("student"), info.get("assignment"), language)
            tidy_outputs(cell, sources, language)
            say_verdict_in(cell, sources, language, say)
            say_visible_test_in(cell, gettext)
            mark_for_the_page(cell, passed_checks, course_cells)
            if decided_in_kernel(cell, sources):
                add_kernel_verdict_note(cell, language)
                in_kernel.append(cell.metadata["nbgrader"]["grade_id"])
        nb.cells = [cell for cell in nb.cells if cell.get("id") != SUMMARY_CELL_ID]
        note = kernel_verdicts_html(in_kernel, language) + working_folder_note(nb)
        if summaries or note:  # a notebook without hidden checks or a note gets no summary, not an empty heading
            summary = new_markdown_cell(summary_html(summaries, note, language))
            summary["id"] = SUMMARY_CELL_ID
            nb.cells.insert(0, summary)
        resources.setdefault("inlining", {}).setdefault("css", []).append(PAGE_CSS)
        resources["feedback_summary"] = summaries
        resources["deadline_note"] = self.deadline_note(resources, language)
        return nb, resources
