"""The declared formats (grader/formats/): each schema is valid, and a malformed document of each
kind is refused where it is read, with a message naming the format and the field."""
from __future__ import annotations

import json
import logging

import pytest
from jsonschema import Draft202012Validator
from nbformat import from_dict

from grader import formats, kernel_side
from grader.course import Course
from grader.grading.preprocessors.decide_verdicts import judge_cell
from grader.grading.run_record import read_record_file, write_record
from grader.sandbox.limits import SandboxError, SandboxLimits
from grader.sandbox.run import SandboxRun

from test_verdicts import record_for, toy_check  # noqa: F401 - toy_check (autouse) registers the toy check


def nested(depth: int) -> dict:
    """An encoded int inside ``depth`` lists."""
    value = {"t": "int", "v": 1}
    for _ in range(depth):
        value = {"t": "list", "items": [value]}
    return value


def probe_output(report: dict):
    return from_dict({"output_type": "display_data", "metadata": {},
                      "data": {kernel_side.PROBE_MIME: json.dumps(report)}})


def refusal(name: str, document) -> formats.FormatError:
    with pytest.raises(formats.FormatError) as caught:
        formats.check(name, document)
    return caught.value


@pytest.mark.parametrize("name", formats.FORMATS)
def test_each_format_is_a_valid_draft_2020_12_schema(name):
    schema = formats.schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema" and schema["title"]


def test_an_unknown_format_is_refused_with_the_list_of_formats():
    with pytest.raises(KeyError, match="kernel_report"):
        formats.check("no_such_format", {})


def test_a_kernel_report_with_a_negative_dimension_scores_zero_naming_the_format_and_field():
    record = record_for()
    array = {"t": "ndarray", "dtype": "float64", "shape": [-1], "data": []}
    results = [{"raised": "ValueError", "message": "no"}, {"ok": array}]
    verdict = judge_cell([probe_output({"check": record["check"], "token": record["token"], "results": results})],
                         record)
    assert verdict.fraction == 0.0
    assert "the kernel's report of a probe cell" in verdict.problem and "$.results[1].ok.shape[0]" in verdict.problem


def test_a_kernel_report_value_may_nest_eight_deep():
    formats.check(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": nested(8)})


def test_a_kernel_report_value_nested_nine_deep_is_refused_saying_how_deep_it_may_nest():
    error = refusal(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": nested(9)})
    assert error.field == "$.value" + ".items[0]" * 9 and "at most 8 levels" in error.problem


def test_a_kernel_report_array_of_text_is_refused_naming_its_dtype():
    array = {"t": "ndarray", "dtype": "S2000000000", "shape": [1], "data": [1]}
    assert refusal(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": array}).field == "$.value.dtype"


def test_a_kernel_report_whose_array_data_does_not_fill_its_shape_scores_zero():
    record = record_for()
    array = {"t": "ndarray", "dtype": "float64", "shape": [4], "data": [1.0]}
    report = {"check": record["check"], "token": record["token"], "results": [{"ok": array}] * 2}
    verdict = judge_cell([probe_output(report)], record)
    assert verdict.fraction == 0.0 and "could not read this cell's report" in verdict.problem


def test_a_long_offending_value_is_shortened_in_the_message():
    error = refusal(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": {"t": "float", "v": ["x"] * 10_000}})
    assert error.field == "$.value.v" and len(error.problem) <= formats.MAX_PROBLEM_CHARS + 1


def test_a_verdict_record_with_a_fraction_above_one_is_refused_naming_the_field():
    record = {"check": "softmax", "fraction": 1.5, "stage": None, "misconception": None}
    error = refusal(formats.VERDICT_RECORD, record)
    assert error.field == "$.fraction" and "the verdict record" in str(error)


def test_a_verdict_record_with_a_key_of_its_own_is_refused():
    record = {"check": "softmax", "fraction": 1.0, "stage": None, "misconception": None, "points": 99}
    assert "points" in refusal(formats.VERDICT_RECORD, record).problem


def test_a_run_record_without_seconds_is_ignored_with_a_warning_naming_the_field(tmp_path, caplog):
    path = tmp_path / "ada.json"
    path.write_text(json.dumps({"inputs_digest": "0" * 64, "graded": True, "reason": None, "times": {},
                                "finished": 1.0}), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="grader.grading.run_record"):
        assert read_record_file(path) is None
    assert "the run record" in caplog.text and "'seconds' is a required property" in caplog.text


def test_writing_a_run_record_of_another_format_is_refused_and_writes_nothing(tmp_path):
    course = Course(tmp_path)
    with pytest.raises(formats.FormatError, match=r"\$\.seconds"):
        write_record(course, "02_softmax", "ada", {"inputs_digest": "0" * 64, "graded": True, "reason": None,
                                                   "seconds": "fast", "times": {}, "finished": 1.0})
    assert not list(tmp_path.rglob("ada.json"))


SPEC = {
    "command": ["/usr/bin/python3", "-m", "ipykernel_launcher"], "env": {"PATH": "/usr/bin"},
    "workdir": "/course/autograded/ada/01_variance", "ipc_dir": "/run/k/ipc", "run_dir": "/run/k",
    "new_root": "/run/k/root", "mount_namespace": True, "pid_namespace": True, "system_paths": ["/usr"],
    "readonly_paths": [], "hidden_paths": ["/course"], "workdir_hidden": ["variance.ipynb"],
    "sandbox_home": "/home/student", "fallback_home": "/run/k/home", "fallback_tmp": "/run/k/tmp",
    "tmp_size": 67108864, "max_files": 4096, "workdir_source": None, "cgroup_procs": [], "uid": 1900000000,
    "gid": 1900000000, "limits": {"address_space": 2147483648, "processes": None, "core_size": 0},
    "required": False, "grader_fd": 5, "own_user_namespace": False, "workdir_tmpfs": None,
    "watched_memory": None, "syscall_filter": None,
}


def test_a_launcher_spec_with_a_relative_working_folder_is_refused_naming_the_field():
    formats.check(formats.LAUNCHER_SPEC, SPEC)
    assert refusal(formats.LAUNCHER_SPEC, {**SPEC, "workdir": "course/autograded"}).field == "$.workdir"


def test_a_launcher_spec_with_a_limit_the_launcher_does_not_know_is_refused_naming_it():
    spec = {**SPEC, "limits": {"stack_size": 8}}
    assert "stack_size" in refusal(formats.LAUNCHER_SPEC, spec).problem


def test_a_launcher_report_without_its_layers_stops_the_kernel_start_naming_the_field(tmp_path):
    run = SandboxRun(SandboxLimits(), str(tmp_path))
    run.run_dir = str(tmp_path)
    (tmp_path / "report.json").write_text(json.dumps({"status": "ready", "warnings": []}), encoding="utf-8")
    with pytest.raises(SandboxError, match="the sandbox launcher's report .*'layers' is a required property"):
        run.check_report(lambda: None)


def test_the_launcher_spec_names_exactly_the_limits_the_launcher_applies():
    from grader.sandbox import launcher

    names = formats.schema(formats.LAUNCHER_SPEC)["properties"]["limits"]["propertyNames"]["enum"]
    assert sorted(names) == sorted(launcher.RLIMITS)


def test_the_kernel_report_accepts_every_dtype_the_kernel_sends_as_numbers():
    import numpy as np

    sent = {str(np.dtype(t)) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                       np.uint32, np.uint64, np.float16, np.float32, np.float64, np.longdouble)}
    for dtype in sent:
        encoded = kernel_side.encode(np.zeros(2, dtype=dtype))
        assert "data" in encoded
        formats.check(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": encoded})


def test_a_document_the_compiled_validator_accepts_is_not_checked_again(monkeypatch):
    def jsonschema_must_not_run(name):
        raise AssertionError(f"jsonschema was asked about a valid {name}")

    monkeypatch.setattr(formats, "_validator", jsonschema_must_not_run)
    formats.check(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": nested(8)})


@pytest.mark.parametrize("scalar", [float("nan"), float("inf"), 10 ** 40], ids=["nan", "inf", "int beyond 64 bits"])
def test_a_number_the_compiled_validator_cannot_take_is_judged_by_jsonschema(scalar):
    formats.check(formats.KERNEL_REPORT, {"check": "c", "token": "t", "value": {"t": "float", "v": scalar}})


def wire_values(depth: int = 10):
    """Hypothesis: encoded values as a kernel (or a student forging one) might send them, nesting past the limit."""
    from hypothesis import strategies as st

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(), st.text(max_size=4))
    kinds = st.sampled_from(["int", "float", "str", "NoneType", "ndarray", "list", "tuple", "dict", "object", ""])
    arrays = st.fixed_dictionaries({"t": st.just("ndarray"), "dtype": st.sampled_from(["float64", "int8", "S2", "O"]),
                                    "shape": st.lists(st.integers(-1, 3), max_size=2),
                                    "data": st.lists(st.one_of(scalars, st.sampled_from(["nan", "-inf", "inf\n"])),
                                                     max_size=4)})
    leaves = st.one_of(arrays, st.fixed_dictionaries({"t": kinds}, optional={"v": scalars, "repr": scalars}), scalars)
    return st.recursive(leaves, lambda inner: st.one_of(
        st.fixed_dictionaries({"t": kinds, "items": st.lists(inner, max_size=3)}),
        st.fixed_dictionaries({"t": kinds, "items": st.dictionaries(st.text(max_size=2), inner, max_size=2)})),
        max_leaves=depth)


def test_the_compiled_validator_accepts_only_what_jsonschema_accepts():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    reports = st.fixed_dictionaries(
        {"check": st.text(max_size=3), "token": st.one_of(st.text(max_size=3), st.integers())},
        optional={"value": wire_values(), "undefined": st.booleans(),
                  "results": st.lists(st.one_of(st.fixed_dictionaries({"ok": wire_values()}),
                                                st.fixed_dictionaries({"raised": st.text(max_size=3)},
                                                                      optional={"message": st.integers()})),
                                      max_size=3)})

    @settings(max_examples=400, deadline=None)
    @given(reports)
    def agree(report):
        if formats._valid_at_once(formats.KERNEL_REPORT, report):
            assert formats._validator(formats.KERNEL_REPORT).is_valid(report)

    agree()
