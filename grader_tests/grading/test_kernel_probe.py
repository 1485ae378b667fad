"""The wire format between the student's kernel and the grader: exact, JSON-safe, strict on types."""
from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader import kernel_side
from grader.kernel_side import collect, decode, encode

float_arrays = hnp.arrays(dtype=st.sampled_from([np.float64, np.float32]), shape=hnp.array_shapes(max_dims=3, max_side=4),
                          elements=st.floats(allow_nan=True, allow_infinity=True, width=32))


def roundtrip(value):
    return decode(json.loads(json.dumps(encode(value), allow_nan=False)))


@given(float_arrays)
def test_arrays_survive_the_wire_exactly_including_non_finite_values(array):
    back = roundtrip(array)
    assert back.dtype == array.dtype and back.shape == array.shape
    assert np.array_equal(back, array, equal_nan=True)


@given(st.floats(allow_nan=False) | st.integers(-10**6, 10**6) | st.booleans() | st.text(max_size=20))
def test_python_scalars_and_strings_survive_the_wire(value):
    back = roundtrip(value)
    assert back == value and type(back) is type(value)


def test_tuples_and_dicts_keep_their_structure():
    value = (1.5, {"max_weight": np.float64(0.25), "gap": 2.0}, [True, None])
    assert roundtrip(value) == value


def test_a_float_subclass_is_reported_as_an_object_not_a_number():
    class AlwaysEqual(float):
        def __eq__(self, other):
            return True

    assert encode(AlwaysEqual(1.0)) == {"t": "AlwaysEqual", "repr": "1.0"}


def test_an_ndarray_subclass_is_reported_as_an_object_not_an_array():
    class Sneaky(np.ndarray):
        pass

    assert encode(np.zeros(3).view(Sneaky))["t"] == "Sneaky"


def test_a_hostile_repr_does_not_stop_the_report():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no")

    assert "repr failed" in encode(Hostile())["repr"]


def test_collect_reports_an_undefined_name():
    plan = {"check": "softmax", "token": "t", "kind": "function", "cases": []}
    assert collect(plan, {}) == {"check": "softmax", "token": "t", "undefined": True}


def test_collect_reports_an_exception_by_type_and_message():
    plan = {"check": "f", "token": "t", "kind": "function", "cases": [{"args": [], "kwargs": {}}]}
    report = collect(plan, {"f": lambda: 1 / 0})
    assert report["results"] == [{"raised": "ZeroDivisionError", "message": "division by zero"}]


def test_collect_builds_a_fresh_generator_from_an_rng_slot():
    plan = {"check": "f", "token": "t", "kind": "function", "cases": [{"args": [{"t": "rng", "seed": 5}]}]}
    report = collect(plan, {"f": lambda rng: rng.random()})
    assert report["results"][0]["ok"]["v"] == np.random.default_rng(5).random()


def test_collect_reads_a_value_check_without_calling_it():
    plan = {"check": "answer", "token": "t", "kind": "value", "cases": []}
    assert collect(plan, {"answer": 4.0})["value"] == {"t": "float", "v": 4.0}


def test_the_probe_module_imports_nothing_from_the_project():
    source = open(kernel_side.__file__, encoding="utf-8").read()
    assert "import grader" not in source and "solutions" not in source
