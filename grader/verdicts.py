"""Trusted verdicts: nbgrader preprocessors that decide hidden checks outside the student's kernel.

The course's ``nbgrader_config.py`` puts them around the execute step of ``nbgrader autograde``::

    PrepareProbes -> (Sandboxed)Execute -> DecideVerdicts -> ... -> SaveAutoGrades

``PrepareProbes`` reads, from the gradebook (not from the submission), which test cells hold a
hidden ``probe("<name>")``; draws the inputs from the submission's secret seed (``grader.seeds``: the
course secret, the student, the assignment, the submitted code by its parse tree and the files
handed in beside it, so a regrade of an unchanged submission draws the same inputs); and replaces
each such cell's source by self-contained code that only calls the student's function and reports
the raw results.
The plan of inputs is kept in the cell's metadata, which the kernel cannot touch.

``DecideVerdicts`` reads exactly one report from each probe cell's outputs, rejects anything missing,
duplicated, oversized, malformed or answering another plan (fail closed: no points), judges it with
``grader.checks`` against ``solutions``, replaces the cell's outputs by the verdict in the form
nbgrader scores (no output: full marks; a number: partial credit; an error: zero) and restores the
instructor's source.
"""
from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import numpy as np
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from grader import kernel_probe
from grader.checks import get_check, reference_cache
from grader.checks.api import NO_REPORT, NOT_ATTEMPTED, NOT_DEFINED, Case, Verdict, not_attempted_problem
from grader.course import Course
from grader.seeds import course_secret, submission_seed
from grader.settings import traits_of
from grader.state_folders import QUIZ_ANSWERS
from grader.submission_fingerprint import (
    handin_files, handin_files_fingerprint, notebook_fingerprint, submission_fingerprint,
)
from grader.variants import NUMBERS_CELL, with_graded_student
from solutions.variants import numbers_for

PROBE_CALL = re.compile(r"""^\s*probe\(\s*["'](?P<name>\w+)["']\s*\)\s*$""", re.MULTILINE)
METADATA_KEY = "scaled_attention_lab"
MAX_REPORT_BYTES = 2_000_000
# The error output that makes nbgrader score a test cell 0 (its name is what a student may see).
NO_POINTS = "No points for this test"
# The dtypes of the arrays that ``kernel_probe.encode`` sends as data (kinds b, i, u, f).
_NUMERIC_DTYPES = frozenset(str(np.dtype(t)) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.longdouble))
_KERNEL_PROBE_SOURCE = Path(kernel_probe.__file__).read_text(encoding="utf-8")


class ProbeConfigError(ValueError):
    """A test cell of the course is not a valid probe cell (an instructor's mistake, not a student's)."""


def probe_names(source: str) -> list[str]:
    """The check names of the ``probe("<name>")`` lines in a test cell's source."""
    return [m.group("name") for m in PROBE_CALL.finditer(source)]


def injected_source(plan: dict) -> str:
    """The cell source the kernel runs: the probe module, then one report of ``plan``."""
    return (
        f"# Graded by the course's grader: this cell reports what `{plan['check']}` returns.\n"
        "def __grader_probe():\n"
        "    namespace = {}\n"
        f"    exec(compile({_KERNEL_PROBE_SOURCE!r}, 'grader_probe', 'exec'), namespace)\n"
        f"    namespace['report'](namespace['json'].loads({json.dumps(plan)!r}), globals())\n"
        "__grader_probe()\n"
        "del __grader_probe\n"
    )


class CoursePreprocessor(NbGraderPreprocessor):
    """A preprocessor that needs the ``.grader`` folder of the course it is grading."""

    def _converter_coursedir(self) -> CourseDirectory | None:
        """The course directory of the converter running this preprocessor (exporter -> converter)."""
        return getattr(getattr(self.parent, "parent", None), "coursedir", None)

    def _converter_root(self) -> str | None:
        coursedir = self._converter_coursedir()
        return coursedir.root if coursedir is not None else None

    def _course_root(self) -> str:
        # standalone, nbgrader's own rule applies (CourseDirectory.root from config, else the cwd)
        return self._converter_root() or CourseDirectory(config=self.config).root

    def _coursedir(self) -> CourseDirectory:
        """The converter's course directory settings (folders, ignore patterns), else the config's."""
        coursedir = self._converter_coursedir()
        return coursedir if coursedir is not None else CourseDirectory(config=self.config, root=self._course_root())

    def state_dir(self) -> Path:
        return Course(Path(self._course_root())).state_dir


class PrepareProbes(CoursePreprocessor):
    """Replace each probe cell's source by this run's probe code; keep the plan in cell metadata."""

    locals().update(traits_of("PrepareProbes"))  # seed (grader.settings)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        trusted = probe_cells_from_gradebook(info["db_url"], info["notebook"], info["assignment"])
        seed = self.seed if self.seed is not None else self.submission_seed(nb, info)
        # The student's numbers come from the id nbgrader recorded, never from the kernel (grader.variants).
        numbers = numbers_for(info["student"])
        set_numbers_cell_student(nb, info)
        for cell in nb.cells:
            # Only the plans written here may be judged: a submitted notebook can carry this key too.
            cell.metadata.pop(METADATA_KEY, None)
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type != "code" or grade_id not in trusted:
                continue
            source, points = trusted[grade_id]
            names = probe_names(source)
            if len(names) != 1:
                raise ProbeConfigError(f"test cell {grade_id!r} must hold exactly one probe(\"<name>\") line, found {len(names)}")
            # The gradebook, not the submission, says what this cell is worth.
            cell.metadata["nbgrader"].update(grade=True, solution=False, locked=True, points=points)
            check = get_check(names[0])
            cases = check.draw_cases(seed)
            token = secrets.token_hex(8)
            cell.metadata[METADATA_KEY] = {
                "check": check.name,
                "token": token,
                "cases": [case.to_wire() for case in cases],
                "source": source,
            }
            if check.kind == "value":
                cell.metadata[METADATA_KEY]["numbers"] = numbers[check.name]
            cell.source = injected_source(check.plan(cases, token))
        return nb, resources

    def submission_seed(self, nb, info) -> int:
        """The seed of this submission's inputs (``grader.seeds``); the notebook is as sanitized."""
        secret = course_secret(self.state_dir())
        fingerprint = submission_fingerprint(notebook_fingerprint(nb), self.files_fingerprint(info))
        return submission_seed(secret, info["student"], info["assignment"], info["notebook"], fingerprint)

    def files_fingerprint(self, info) -> str:
        """The fingerprint of the files the hand-in carries beside its notebooks (as nbgrader copies them)."""
        coursedir = self._coursedir()
        folder = Path(coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"]))
        source = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"]))
        instructor_files = handin_files(source, coursedir.ignore)
        return handin_files_fingerprint(folder, handin_files(folder, coursedir.ignore, instructor_files))


def set_numbers_cell_student(nb, info) -> None:
    """Give the ``my_numbers`` cell the submission's student id, in the instructor's source from the gradebook.

    The sandboxed kernel runs under another account, so without this the student's code would compute
    from someone else's numbers. A notebook without that cell is left as it is.
    """
    with Gradebook(info["db_url"]) as gb:
        try:
            notebook = gb.find_notebook(info["notebook"], info["assignment"])
        except MissingEntry:
            return
        sources = {cell.name: cell.source for cell in notebook.source_cells if cell.name == NUMBERS_CELL}
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_CELL \
                and NUMBERS_CELL in sources:
            try:
                cell.source = with_graded_student(sources[NUMBERS_CELL], info["student"])
            except ValueError as exc:
                raise ProbeConfigError(str(exc)) from None


def probe_cells_from_gradebook(db_url, notebook_id, assignment_id) -> dict[str, tuple[str, float]]:
    """grade_id -> (instructor source, points) of every test cell of the notebook holding a probe line."""
    with Gradebook(db_url) as gb:
        try:
            notebook = gb.find_notebook(notebook_id, assignment_id)
        except MissingEntry:
            return {}
        points = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
        return {cell.name: (cell.source, points.get(cell.name, 0.0)) for cell in notebook.source_cells
                if cell.name in points and probe_names(cell.source or "")}


class DecideVerdicts(CoursePreprocessor):
    """Judge each probe cell's report with the reference and write nbgrader-readable outputs."""

    def preprocess(self, nb, resources):
        # simulated reference values are kept per course; standalone (no converter), in this process
        root = self._converter_root()
        reference_cache.use_folder(Course(Path(root)).state_dir if root else None)
        verdicts = resources.setdefault("verdicts", {})
        stubs = released_stubs(nb)
        remember = self.attempt_memory(resources) if root else None
        answers = {}
        for cell in nb.cells:
            record = cell.metadata.pop(METADATA_KEY, None)
            if record is None:
                continue
            points = float(cell.metadata["nbgrader"].get("points", 0))
            verdict = mark_not_attempted(judge_cell(cell.outputs, record), stubs)
            if "numbers" in record:  # a quiz item: its answer is kept, and under immediate feedback remembered
                answers[record["check"]] = {"answer": reported_answer(cell.outputs, record),
                                            "passed": verdict.passed, "stage": verdict.stage}
                if remember is not None:
                    verdict = remember(verdict, record["check"], answers[record["check"]]["answer"])
            verdicts[cell.metadata["nbgrader"]["grade_id"]] = verdict
            cell.outputs = verdict_outputs(verdict, points)
            cell.source = record["source"]
        if answers and root:
            info = resources["nbgrader"]
            write_quiz_answers(Course(Path(root)).state_dir, info["assignment"], info["student"], answers)
        return nb, resources

    def attempt_memory(self, resources):
        """``remember(verdict, item, answer) -> verdict`` under immediate feedback (grader.attempts), else None.

        Only a grading run (a converter with a course) remembers; this preprocessor on its own does not.
        """
        from grader.attempts import Attempt, AttemptCredit, AttemptHistory, credit_with_history, submission_timestamp
        from grader.service.policy import GradingService

        info = resources["nbgrader"]
        if not GradingService(config=self.config).feedback_is_immediate(info["assignment"]):
            return None
        history, policy = AttemptHistory(self.state_dir()), AttemptCredit(config=self.config)
        timestamp = submission_timestamp(info["db_url"], info["assignment"], info["student"])

        def remember(verdict, item, answer):
            attempt = Attempt(info["assignment"], info["student"], item, timestamp, answer)
            return credit_with_history(verdict, attempt, history, policy)
        return remember


def reported_answer(outputs, record) -> dict | None:
    """The encoded value a quiz item's probe cell reported (None when it reported none, or no value)."""
    reports = [o for o in outputs if o.get("output_type") in ("display_data", "execute_result")
               and kernel_probe.PROBE_MIME in o.get("data", {})]
    if len(reports) != 1:
        return None
    try:
        report = json.loads(reports[0]["data"][kernel_probe.PROBE_MIME])
        _validate_report(report, record, 0, "value")
    except Exception:
        return None
    value = report.get("value")
    return value if isinstance(value, dict) else None


def write_quiz_answers(state_dir: Path, assignment: str, student: str, answers: dict) -> None:
    """Keep ``student``'s graded quiz answers of ``assignment`` in the private ``.grader/`` folder."""
    folder = Path(state_dir) / QUIZ_ANSWERS / assignment
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{student}.json"
    temporary = target.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(answers, sort_keys=True), encoding="utf-8")
    temporary.replace(target)


def released_stubs(nb) -> set[str]:
    """grade_ids of the solution cells whose run ended in NotImplementedError: still the released stub.

    By the course's convention a solution cell's grade_id is the name of what it defines.
    """
    return {cell.metadata["nbgrader"].get("grade_id") for cell in nb.cells
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")
            and any(o.get("output_type") == "error" and o.get("ename") == "NotImplementedError"
                    for o in cell.get("outputs", []))}


def mark_not_attempted(verdict: Verdict, stubs: set[str]) -> Verdict:
    """``verdict``, or "not attempted yet" when its item is undefined because its cell is still the stub."""
    if verdict.stage == NOT_DEFINED and verdict.check in stubs:
        return Verdict(verdict.check, 0.0, [], stage=NOT_ATTEMPTED, problem=not_attempted_problem(verdict.check))
    return verdict


def judge_cell(outputs, record) -> Verdict:
    """The verdict for one probe cell from its raw outputs; malformed or missing reports score zero."""
    check = get_check(record["check"])
    cases = [Case.from_wire(c) for c in record["cases"]]
    reports = [o for o in outputs if o.get("output_type") in ("display_data", "execute_result")
               and kernel_probe.PROBE_MIME in o.get("data", {})]
    if not reports:
        return Verdict(check.name, 0.0, [], stage=NO_REPORT, problem=_missing_report_reason(outputs, check.name))
    if len(reports) > 1:
        return Verdict(check.name, 0.0, [], stage=NO_REPORT, problem="the grader received more than one report from this cell; "
                       "printing or displaying from background threads is not allowed while tests run.")
    raw = reports[0]["data"][kernel_probe.PROBE_MIME]
    if not isinstance(raw, str) or len(raw) > MAX_REPORT_BYTES:
        return Verdict(check.name, 0.0, [], stage=NO_REPORT, problem="your function's output is too large to grade.")
    # The report is the kernel's data: whatever reading or judging it raises (nesting too deep for
    # the JSON parser, an integer too large for a float, ...) scores zero instead of stopping grading.
    try:
        report = json.loads(raw)
        _validate_report(report, record, len(cases), check.kind)
    except Exception as exc:
        return Verdict(check.name, 0.0, [], stage=NO_REPORT, problem=f"the grader could not read this cell's report ({exc}).")
    try:
        return check.decide(cases, report, record.get("numbers"))
    except Exception as exc:
        return Verdict(check.name, 0.0, [], stage=NO_REPORT, problem=f"the grader could not read your function's output ({exc}).")


# What a cell error raised by the grading machinery means, for a student.
_CELL_ERRORS = {
    "DeadKernelError": "the kernel stopped (a cell crashed it, exited or used too much memory)",
    "CellTimeoutError": "it ran longer than the time limit (a loop that never ends?)",
    "TimeoutError": "it ran longer than the time limit (a loop that never ends?)",
    "CellExecutionError": "an error stopped it",
}


def _missing_report_reason(outputs, name: str) -> str:
    for output in outputs:
        if output.get("output_type") == "error":
            ename = output.get("ename") or ""
            why = _CELL_ERRORS.get(ename, f"your code raised {ename}: {output.get('evalue', '')}"[:300])
            return (f"the test of `{name}` did not finish: {why}. An earlier cell may have crashed the kernel, "
                    "looped for ever, or changed how cells run.")
    return (f"the test of `{name}` reported nothing; code in your notebook may have changed how cells run "
            "or what they display.")


def _validate_report(report, record, n_cases: int, kind: str) -> None:
    if not isinstance(report, dict):
        raise ValueError("not an object")
    if report.get("check") != record["check"] or report.get("token") != record["token"]:
        raise ValueError("it answers another test")
    if report.get("undefined") is True or "not_callable" in report:
        return
    if kind == "value":
        _validate_wire(report["value"])
        return
    results = report["results"]
    if not isinstance(results, list) or len(results) != n_cases:
        raise ValueError("wrong number of results")
    for outcome in results:
        if not isinstance(outcome, dict):
            raise ValueError("a result is not an object")
        if "ok" in outcome:
            _validate_wire(outcome["ok"])
        elif not (isinstance(outcome.get("raised"), str) and isinstance(outcome.get("message"), str)):
            raise ValueError("a result is neither a value nor an error")


def _validate_wire(wire, depth: int = 0) -> None:
    """Reject wire data whose structure does not match the format of ``grader.kernel_probe``."""
    if depth > 8 or not isinstance(wire, dict) or not isinstance(wire.get("t"), str):
        raise ValueError("malformed value")
    kind = wire["t"]
    if kind in ("tuple", "list"):
        if not isinstance(wire["items"], list):
            raise ValueError("malformed sequence")
        for item in wire["items"]:
            _validate_wire(item, depth + 1)
    elif kind == "dict":
        if not isinstance(wire["items"], dict):
            raise ValueError("malformed dict")
        for item in wire["items"].values():
            _validate_wire(item, depth + 1)
    elif kind == "ndarray" and "data" in wire:
        shape = wire["shape"]
        if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)):
            raise ValueError("malformed shape")
        size = 1
        for n in shape:
            size *= n
        data = wire["data"]
        if not isinstance(data, list) or len(data) != size:
            raise ValueError("array data does not match its shape")
        if not all(isinstance(v, (int, float, bool)) or v in ("nan", "inf", "-inf") for v in data):
            raise ValueError("array data is not numbers")
        if wire.get("dtype") not in _NUMERIC_DTYPES:  # e.g. "S2000000000" would allocate gigabytes
            raise ValueError("array data has a dtype that is not numeric")
        kernel_probe.decode(wire)
    elif "v" in wire:
        if not isinstance(wire["v"], (int, float, bool, str)):
            raise ValueError("malformed scalar")
    elif kind != "NoneType" and not isinstance(wire.get("repr"), str):
        raise ValueError("malformed value")


def verdict_outputs(verdict: Verdict, points: float) -> list[NotebookNode]:
    """Outputs that make nbgrader score ``points * verdict.fraction`` and show why.

    nbgrader reads a test cell as: an error output -> 0; an execute_result holding a number -> that
    many points; otherwise full points. The verdict text goes in a display before them; the feedback
    page (``grader.feedback``) shows that text and the score, and hides the number and the error.
    """
    text = verdict.explain()
    if verdict.passed:
        return [_feedback_display(f"✓ {text}\n", verdict)]
    earned = round(points * verdict.fraction, 2)
    if earned <= 0:
        return [_feedback_display(f"✗ {text}\n", verdict),
                from_dict({"output_type": "error", "ename": NO_POINTS, "evalue": text.splitlines()[0],
                           "traceback": [f"{NO_POINTS}: see the explanation above."]})]
    return [
        _feedback_display(f"✗ {text}\nPartial credit: {earned:g} of {points:g} points.\n", verdict),
        from_dict({"output_type": "execute_result", "execution_count": None, "metadata": {},
                   "data": {"text/plain": repr(float(earned))}}),
    ]


def _feedback_display(text: str, verdict: Verdict) -> NotebookNode:
    # Streams carry no metadata in nbformat, so the machine-readable verdict rides on a display.
    return from_dict({"output_type": "display_data", "data": {"text/plain": text},
                      "metadata": {METADATA_KEY: verdict.record()}})


_RECORD_KEYS = {"check", "fraction", "stage", "misconception"}


def verdict_records(cell, source: str | None = None) -> list[dict]:
    """The verdict summary DecideVerdicts wrote into an autograded probe cell (empty otherwise)."""
    return read_verdict_records(cell, source)[0]


def read_verdict_records(cell, source: str | None = None) -> tuple[list[dict], int]:
    """(the trusted verdict records of ``cell``, how many other outputs claimed to be one).

    source: the instructor's source of this cell from the gradebook, where the cell's own no longer
    holds its probe line (nbgrader's ClearHiddenTests removes it from feedback); default: the cell's.

    Trusted: the first output of a test cell (nbgrader ``grade``) whose source holds exactly one
    ``probe("<name>")`` line, carrying a record of exactly the structure of ``Verdict.record`` for
    that check; DecideVerdicts replaces every output of such a cell. Anything else carrying the
    metadata key (a display from an ordinary cell, a second output, a wrong structure) is forged or
    damaged: ignored and counted.
    """
    outputs = [o for o in cell.get("outputs", []) if isinstance(o, dict)]
    claims = [i for i, o in enumerate(outputs)
              if isinstance(o.get("metadata"), dict) and METADATA_KEY in o["metadata"]]
    if not claims:
        return [], 0
    nbgrader = cell.get("metadata", {}).get("nbgrader")
    if source is None:
        source = cell.get("source") if isinstance(cell.get("source"), str) else ""
    names = probe_names(source or "")
    is_probe_cell = (cell.get("cell_type") == "code" and isinstance(nbgrader, dict)
                     and nbgrader.get("grade") is True and len(names) == 1)
    if is_probe_cell and claims[0] == 0 and _well_formed(outputs[0]["metadata"][METADATA_KEY], names[0]):
        return [dict(outputs[0]["metadata"][METADATA_KEY])], len(claims) - 1
    return [], len(claims)


def _well_formed(record, check: str) -> bool:
    if not isinstance(record, dict) or set(record) != _RECORD_KEYS or record["check"] != check:
        return False
    fraction = record["fraction"]
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0.0 <= fraction <= 1.0:
        return False
    return all(record[key] is None or (isinstance(record[key], str) and len(record[key]) <= 200)
               for key in ("stage", "misconception"))
