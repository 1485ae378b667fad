"""Trusted verdicts: a probe cell's outputs are judged in the grading process and fail closed."""
from __future__ import annotations

import json

import numpy as np
import pytest
from nbformat import from_dict
from nbgrader.utils import determine_grade

from grader import formats, kernel_side
from grader.checks import all_checks
from grader.checks.api import NO_REPORT, Case, Check, Misconception, Verdict
from grader.grading.preprocessors.decide_verdicts import MAX_REPORT_CHARS, judge_cell, verdict_outputs
from grader.grading.preprocessors.prepare_probes import injected_source
from grader.grading.probe_cells import probe_names
from grader.grading.verdict_records import verdict_records


def stable_softmax(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def naive_softmax(x):
    e = np.exp(np.asarray(x, dtype=float))
    return e / e.sum(axis=-1, keepdims=True)


TOY = Check(
    "toy_softmax", stable_softmax,
    cases=lambda rng: [Case("random scores", (rng.normal(size=4),)), Case("large logits", (np.array([1e4, 0.0]),))],
    misconceptions=[Misconception("no max subtraction", "exp overflows", "L3 §3", naive_softmax)],
)


@pytest.fixture(autouse=True)
def toy_check(monkeypatch):
    monkeypatch.setitem(all_checks(), TOY.name, TOY)


def record_for(seed=7, token="tok"):
    cases = TOY.draw_cases(seed)
    return {"check": TOY.name, "token": token, "cases": [c.to_wire() for c in cases], "source": "probe('toy_softmax')"}


def report_output(function, record, **changes):
    cases = [Case.from_wire(c) for c in record["cases"]]
    report = kernel_side.collect(TOY.plan(cases, record["token"]), {"toy_softmax": function})
    report.update(changes)
    return from_dict({"output_type": "display_data", "metadata": {},
                      "data": {kernel_side.PROBE_MIME: json.dumps(report)}})


def test_correct_report_passes():
    record = record_for()
    assert judge_cell([report_output(stable_softmax, record)], record).fraction == 1.0


def test_wrong_variant_earns_partial_credit_and_is_named():
    record = record_for()
    verdict = judge_cell([report_output(naive_softmax, record)], record)
    assert verdict.fraction == 0.5 and verdict.misconception.name == "no max subtraction"


def test_missing_report_scores_zero():
    verdict = judge_cell([], record_for())
    assert verdict.fraction == 0.0 and verdict.stage == NO_REPORT


def test_missing_report_says_in_plain_words_why_the_cell_did_not_finish():
    error = from_dict({"output_type": "error", "ename": "DeadKernelError", "evalue": "Kernel died", "traceback": []})
    problem = judge_cell([error], record_for()).problem
    assert "the kernel stopped" in problem and "DeadKernelError" not in problem


def test_missing_report_names_the_students_own_error():
    error = from_dict({"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                       "traceback": []})
    assert "ZeroDivisionError: division by zero" in judge_cell([error], record_for()).problem


def test_duplicated_report_scores_zero_even_when_both_are_correct():
    record = record_for()
    output = report_output(stable_softmax, record)
    assert judge_cell([output, output], record).fraction == 0.0


def test_report_with_another_token_scores_zero():
    record = record_for()
    forged = report_output(stable_softmax, record, token="guessed")
    assert judge_cell([forged], record).fraction == 0.0


def test_report_for_another_check_scores_zero():
    record = record_for()
    assert judge_cell([report_output(stable_softmax, record, check="softmax")], record).fraction == 0.0


def test_oversized_report_scores_zero():
    record = record_for()
    huge = from_dict({"output_type": "display_data", "metadata": {},
                      "data": {kernel_side.PROBE_MIME: " " * (MAX_REPORT_CHARS + 1)}})
    assert judge_cell([huge], record).fraction == 0.0


@pytest.mark.parametrize("payload", [
    "not json", "[]", json.dumps({"check": "toy_softmax", "token": "tok"}),
    json.dumps({"check": "toy_softmax", "token": "tok", "results": [{"ok": {"t": "ndarray", "dtype": "float64",
                                                                              "shape": [4], "data": [1.0]}}] * 2}),
    json.dumps({"check": "toy_softmax", "token": "tok", "results": [{"ok": {"t": "ndarray", "dtype": "object",
                                                                              "shape": [1], "data": [1.0]}}] * 2}),
    json.dumps({"check": "toy_softmax", "token": "tok", "results": "everything passed"}),
])
def test_malformed_report_scores_zero(payload):
    output = from_dict({"output_type": "display_data", "metadata": {}, "data": {kernel_side.PROBE_MIME: payload}})
    assert judge_cell([output], record_for()).fraction == 0.0


def test_reports_outside_the_probe_mime_type_are_ignored():
    record = record_for()
    text = from_dict({"output_type": "stream", "name": "stdout", "text": "all tests passed\n"})
    assert judge_cell([text], record).stage == NO_REPORT


def test_full_marks_output_is_read_by_nbgrader_as_full_points():
    verdict = judge_cell([report_output(stable_softmax, record_for())], record_for())
    cell = grade_cell(verdict_outputs(verdict, points=3))
    assert determine_grade(cell) == (3.0, 3.0)


def test_partial_output_is_read_by_nbgrader_as_that_many_points():
    record = record_for()
    verdict = judge_cell([report_output(naive_softmax, record)], record)
    assert determine_grade(grade_cell(verdict_outputs(verdict, points=3))) == (1.5, 3.0)


def test_zero_output_is_read_by_nbgrader_as_zero():
    verdict = judge_cell([], record_for())
    assert determine_grade(grade_cell(verdict_outputs(verdict, points=3))) == (0, 3.0)


def test_verdict_outputs_carry_a_record_for_the_class_report():
    record = record_for()
    verdict = judge_cell([report_output(naive_softmax, record)], record)
    cell = grade_cell(verdict_outputs(verdict, points=2))
    cell.source = 'probe("toy_softmax")'  # records count only in probe cells
    assert verdict_records(cell) == [{"check": "toy_softmax", "fraction": 0.5, "stage": "not finite",
                                      "misconception": "no max subtraction", "problem": verdict.problem,
                                      "case": "large logits", "detail": verdict.detail}]
    assert verdict.problem.startswith("not finite — on large logits: ")


def test_a_verdict_record_carries_the_first_problem_cut_to_the_length_its_format_allows():
    longest = formats.max_length(formats.VERDICT_RECORD, "problem")
    record = Verdict("toy_softmax", 0.0, [], detail="x" * (3 * longest), stage="raised an error").record()
    formats.check(formats.VERDICT_RECORD, record)
    assert len(record["problem"]) == longest and record["problem"].endswith("…")
    assert len(record["detail"]) == formats.max_length(formats.VERDICT_RECORD, "detail")


def test_a_passed_verdicts_record_names_no_problem():
    assert Verdict("toy_softmax", 1.0, []).record()["problem"] is None


def test_verdict_text_never_contains_the_expected_values():
    record = record_for()
    verdict = judge_cell([report_output(lambda x: np.zeros_like(np.asarray(x, float)), record)], record)
    text = json.dumps([o for o in verdict_outputs(verdict, points=2)])
    for case in record["cases"]:
        expected = stable_softmax(Case.from_wire(case).args[0])
        assert all(f"{v:.4f}" not in text for v in expected if 0 < v < 1)


def run_probe_cell(namespace: dict) -> list:
    """Run the injected probe cell of the toy check in ``namespace``; what it displayed."""
    import IPython.display

    cases = [Case.from_wire(c) for c in record_for()["cases"]]
    shown = []
    original = IPython.display.display
    IPython.display.display = lambda obj, raw=False: shown.append(obj)
    try:
        exec(compile(injected_source(TOY.plan(cases, "tok")), "cell", "exec"), namespace)
    finally:
        IPython.display.display = original
    return shown


def test_injected_source_runs_without_the_project_and_reports_once():
    shown = run_probe_cell({"toy_softmax": stable_softmax, "__name__": "__main__"})
    assert len(shown) == 1 and json.loads(shown[0][kernel_side.PROBE_MIME])["token"] == "tok"


def test_the_probe_cell_binds_no_name_and_ignores_the_students_exec_compile_and_globals():
    def not_the_builtin(*args, **kwargs):
        raise AssertionError("the probe cell used the student's name")

    namespace = {"toy_softmax": stable_softmax, "__name__": "__main__", "exec": not_the_builtin,
                 "compile": not_the_builtin, "globals": not_the_builtin, "json": "the student's json"}
    before = dict(namespace)
    shown = run_probe_cell(namespace)
    report = json.loads(shown[0][kernel_side.PROBE_MIME])
    assert len(shown) == 1 and report["token"] == "tok" and all("ok" in result for result in report["results"])
    assert {k: v for k, v in namespace.items() if k != "__builtins__"} == before


def test_probe_names_reads_only_whole_probe_lines():
    assert probe_names('x = 1\nprobe("softmax")\n# probe("entropy") is not a call') == ["softmax"]


def grade_cell(outputs):
    return from_dict({"cell_type": "code", "source": "", "outputs": outputs, "execution_count": None,
                      "metadata": {"nbgrader": {"grade": True, "solution": False, "points": 3, "grade_id": "t"}}})
