"""``DecideVerdicts``: judge each probe cell's report outside the student's kernel.

Reads exactly one report from each probe cell's outputs, rejects anything missing, duplicated,
oversized, malformed or answering another plan (fail closed: no points), judges it with
``grader.checks`` against ``solutions``, replaces the cell's outputs by the verdict in the form
nbgrader scores (no output: full marks; a number: partial credit; an error: zero) and restores the
instructor's source. Runs just after ``SandboxedExecute``.
"""
from __future__ import annotations

import json
from pathlib import Path

from nbformat.notebooknode import NotebookNode, from_dict

from grader import formats, kernel_side
from grader.checks import get_check, reference_cache
from grader.checks.api import NO_REPORT, NOT_DEFINED, Case, Verdict, not_attempted
from grader.course import Course
from grader.grading.preprocessors.course_preprocessor import CoursePreprocessor
from grader.grading.probe_cells import METADATA_KEY
from grader.state_folders import QUIZ_ANSWERS

MAX_REPORT_CHARS = 2_000_000  # of one probe cell's report, as text (the kernel sends it as a JSON string)
# The error output that makes nbgrader score a test cell 0 (its name is what a student may see).
NO_POINTS = "No points for this test"


class DecideVerdicts(CoursePreprocessor):
    """Judge each probe cell's report with the reference and write nbgrader-readable outputs."""

    reads = {"resources.nbgrader", "cell.metadata.nbgrader: from the gradebook", "cell.metadata: probe plans",
             "cell.outputs: executed"}
    writes = {"cell.outputs: judged", "cell.source: the instructor's locked and test cells",
              "cell.metadata: probe plans judged and removed", "resources.verdicts", ".grader: quiz answers"}
    timed_as = "verdicts"

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
            verdict = mark_not_attempted(judge_cell(cell.outputs, record, self._course_root()), stubs)
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
        """``remember(verdict, item, answer) -> verdict`` under immediate feedback (grader.grading.attempt_credit), else None.

        Only a grading run (a converter with a course) remembers; this preprocessor on its own does not.
        """
        from grader.grading.attempt_credit import (
            Attempt,
            AttemptCredit,
            AttemptHistory,
            credit_with_history,
            submission_timestamp,
        )
        from grader.service_policy import GradingService

        info = resources["nbgrader"]
        if not GradingService(config=self.config).feedback_is_immediate(info["assignment"]):
            return None
        # the student's own schedule (grader.policy: the class's c.AttemptCredit.schedule unless overridden)
        resolved = self.student_policy(resources).resolve(info["student"], info["assignment"])
        history = AttemptHistory(self.state_dir())
        policy = AttemptCredit(config=self.config, schedule=list(resolved.attempt_schedule))
        timestamp = submission_timestamp(info["db_url"], info["assignment"], info["student"])

        def remember(verdict, item, answer):
            attempt = Attempt(info["assignment"], info["student"], item, timestamp, answer)
            return credit_with_history(verdict, attempt, history, policy)
        return remember


def reported_answer(outputs, record) -> dict | None:
    """The encoded value a quiz item's probe cell reported (None when it reported none, or no value)."""
    reports = [o for o in outputs if o.get("output_type") in ("display_data", "execute_result")
               and kernel_side.PROBE_MIME in o.get("data", {})]
    if len(reports) != 1:
        return None
    try:
        report = json.loads(reports[0]["data"][kernel_side.PROBE_MIME])
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
        return not_attempted(verdict.check)
    return verdict


def judge_cell(outputs, record, course_root: str | None = None) -> Verdict:
    """The verdict for one probe cell from its raw outputs; malformed or missing reports score zero.

    course_root: the course whose checks judge it (default: ``grader.checks.use_course``'s)."""
    check = get_check(record["check"], course_root)
    cases = [Case.from_wire(c) for c in record["cases"]]
    reports = [o for o in outputs if o.get("output_type") in ("display_data", "execute_result")
               and kernel_side.PROBE_MIME in o.get("data", {})]
    if not reports:
        return no_report(check.name, _missing_report_reason(outputs, check.name))
    if len(reports) > 1:
        return no_report(check.name, MORE_THAN_ONE_REPORT)
    raw = reports[0]["data"][kernel_side.PROBE_MIME]
    if not isinstance(raw, str) or len(raw) > MAX_REPORT_CHARS:
        return no_report(check.name, OUTPUT_TOO_LARGE)
    # The report is the kernel's data: whatever reading or judging it raises (nesting too deep for
    # the JSON parser, an integer too large for a float, ...) scores zero instead of stopping grading.
    try:
        report = json.loads(raw)
        _validate_report(report, record, len(cases), check.kind)
    except Exception as exc:
        return no_report(check.name, UNREADABLE_REPORT.format(error=exc))
    try:
        return check.decide(cases, report, record.get("numbers"))
    except Exception as exc:
        return no_report(check.name, UNREADABLE_OUTPUT.format(error=exc))


def no_report(check: str, why: str) -> Verdict:
    """The verdict of a probe cell of ``check`` that gave no readable report, ``why`` said to the student."""
    return Verdict(check, 0.0, [], stage=NO_REPORT, detail=why)


# What a student reads when a probe cell gave no readable report: messages of the engine's
# catalogue, as ``grader.checks.api``'s problems are.
MORE_THAN_ONE_REPORT = ("the grader received more than one report from this cell; printing or displaying from "
                        "background threads is not allowed while tests run.")
OUTPUT_TOO_LARGE = "your function's output is too large to grade."
UNREADABLE_REPORT = "the grader could not read this cell's report ({error})."
UNREADABLE_OUTPUT = "the grader could not read your function's output ({error})."
DID_NOT_FINISH = ("the test of `{name}` did not finish: {why}. An earlier cell may have crashed the kernel, "
                  "looped for ever, or changed how cells run.")
REPORTED_NOTHING = ("the test of `{name}` reported nothing; code in your notebook may have changed how cells run "
                    "or what they display.")
RAISED_IN_CELL = "your code raised {ename}: {message}"
#: What a cell error raised by the grading machinery means, for a student.
CELL_ERRORS = {
    "DeadKernelError": "the kernel stopped (a cell crashed it, exited or used too much memory)",
    "CellTimeoutError": "it ran longer than the time limit (a loop that never ends?)",
    "TimeoutError": "it ran longer than the time limit (a loop that never ends?)",
    "CellExecutionError": "an error stopped it",
}
#: Every message above: each has a translation in every language's catalogue (tested).
NO_REPORT_MESSAGES = (MORE_THAN_ONE_REPORT, OUTPUT_TOO_LARGE, UNREADABLE_REPORT, UNREADABLE_OUTPUT, DID_NOT_FINISH,
                      REPORTED_NOTHING, RAISED_IN_CELL, *CELL_ERRORS.values())


def _missing_report_reason(outputs, name: str) -> str:
    for output in outputs:
        if output.get("output_type") == "error":
            ename = output.get("ename") or ""
            why = CELL_ERRORS.get(ename, RAISED_IN_CELL.format(ename=ename, message=output.get("evalue", ""))[:300])
            return DID_NOT_FINISH.format(name=name, why=why)
    return REPORTED_NOTHING.format(name=name)


def _validate_report(report, record, n_cases: int, kind: str) -> None:
    """Raise unless ``report`` matches the kernel report's format and answers the plan in ``record``."""
    formats.check(formats.KERNEL_REPORT, report)
    if report["check"] != record["check"] or report["token"] != record["token"]:
        raise ValueError("it answers another test")
    if report.get("undefined") is True or "not_callable" in report:
        return
    if kind == "value":
        if "value" not in report:
            raise ValueError("it holds no value")
        _decode_arrays(report["value"])
        return
    if len(report.get("results") or ()) != n_cases:
        raise ValueError(f"it holds {len(report.get('results') or ())} results for {n_cases} cases")
    for outcome in report["results"]:
        if "ok" in outcome:
            _decode_arrays(outcome["ok"])


def _decode_arrays(wire) -> None:
    """Decode every numeric array in ``wire``: the one rule of the format a schema cannot state is
    that an array's data fills its shape (``kernel_side.decode`` raises when it does not)."""
    if wire["t"] == "ndarray" and "data" in wire:
        kernel_side.decode(wire)
    elif wire["t"] in ("tuple", "list", "dict"):
        items = wire["items"]
        for item in items.values() if isinstance(items, dict) else items:
            _decode_arrays(item)


def verdict_outputs(verdict: Verdict, points: float) -> list[NotebookNode]:
    """Outputs that make nbgrader score ``points * verdict.fraction`` and show why.

    nbgrader reads a test cell as: an error output -> 0; an execute_result holding a number -> that
    many points; otherwise full points. The verdict text goes in a display before them; the feedback
    page (``grader.grading.preprocessors.feedback_page``) shows that text and the score, and hides the number and the error.
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
