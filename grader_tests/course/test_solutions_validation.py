"""Specification of the shared argument checks: every rejection names the argument."""
import numpy as np
import pytest

from solutions.validation import (
    as_axis,
    as_bool_array,
    as_float_array,
    as_generator,
    as_positive_int,
    as_real,
    float_or_array,
)


def test_as_float_array_converts_nested_lists_and_ints_to_a_float64_copy():
    original = np.arange(6).reshape(2, 3)
    converted = as_float_array(original, "X")
    assert converted.dtype == np.float64
    np.testing.assert_array_equal(converted, original)
    converted[0, 0] = 99.0
    assert original[0, 0] == 0


@pytest.mark.parametrize(
    "value, fragment",
    [
        ([[1.0], [2.0, 3.0]], "rectangular"),
        ([True, False], "real numbers"),
        ([1 + 2j], "real numbers"),
        (["1.0"], "real numbers"),
        (None, "real numbers"),
        ([], "must not be empty"),
        ([1.0, np.nan], "finite"),
        ([1.0, -np.inf], "finite"),
        (np.array([1e400], dtype=np.longdouble), "finite"),
    ],
)
def test_as_float_array_names_the_argument_and_the_problem(value, fragment):
    with pytest.raises(ValueError, match=f"^scores .*{fragment}"):
        as_float_array(value, "scores")


def test_as_float_array_checks_the_number_of_dimensions():
    with pytest.raises(ValueError, match=r"^K must have 2 dimension\(s\); got shape \(3,\)"):
        as_float_array([1.0, 2.0, 3.0], "K", ndim=2)
    with pytest.raises(ValueError, match=r"^Q must have at least 2 dimension\(s\)"):
        as_float_array([1.0], "Q", min_ndim=2)


def test_as_float_array_can_allow_non_finite_values():
    assert np.isnan(as_float_array([np.nan], "x", finite=False)[0])


def test_as_bool_array_rejects_a_zero_one_integer_mask():
    with pytest.raises(ValueError, match="^mask must be a boolean array"):
        as_bool_array([[1, 0]], "mask")


@pytest.mark.parametrize("value", [0, -1, 2.0, True, np.bool_(True), "3", None])
def test_as_positive_int_rejects_anything_but_a_positive_integer(value):
    with pytest.raises(ValueError, match="^d_k must"):
        as_positive_int(value, "d_k")


def test_as_positive_int_accepts_numpy_integers_and_enforces_a_maximum():
    assert as_positive_int(np.int32(5), "d") == 5
    with pytest.raises(ValueError, match="^d must be at most 4"):
        as_positive_int(5, "d", maximum=4)


@pytest.mark.parametrize(
    "value, kwargs",
    [(np.nan, {}), (np.inf, {}), ("1", {}), (-0.5, {"minimum": 0.0}), (0.0, {"minimum": 0.0, "strict": True})],
)
def test_as_real_rejects_non_finite_non_real_or_out_of_range_values(value, kwargs):
    with pytest.raises(ValueError, match="^beta must"):
        as_real(value, "beta", **kwargs)


def test_as_real_accepts_numpy_scalars_and_zero_d_arrays():
    assert as_real(np.float32(0.5), "beta") == 0.5
    assert as_real(np.array(2), "beta") == 2.0


@pytest.mark.parametrize("rng", [0, np.random, np.random.RandomState(0), None])
def test_as_generator_rejects_anything_but_a_numpy_generator(rng):
    with pytest.raises(ValueError, match="^rng must be a numpy.random.Generator"):
        as_generator(rng)


@pytest.mark.parametrize("axis, ndim, expected", [(-1, 3, 2), (0, 1, 0), (-3, 3, 0)])
def test_as_axis_normalises_negative_axes(axis, ndim, expected):
    assert as_axis(axis, ndim) == expected


@pytest.mark.parametrize("axis", [3, -4, 1.0])
def test_as_axis_rejects_axes_outside_the_array(axis):
    with pytest.raises(ValueError, match="^axis must"):
        as_axis(axis, 3)


def test_float_or_array_unwraps_only_zero_dimensional_results():
    assert type(float_or_array(np.float64(2.0))) is float
    assert isinstance(float_or_array(np.ones(1)), np.ndarray)
