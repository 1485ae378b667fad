"""Argument checks shared by every reference function.

Each check either returns the argument in the form the numerics need (a float64 array, a Python
int, a Python float, a normalised axis) or raises ``ValueError`` whose message starts with the
argument's name and says what a valid value looks like.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def as_float_array(
    value: Any,
    name: str,
    *,
    ndim: int | None = None,
    min_ndim: int = 0,
    finite: bool = True,
    allow_empty: bool = False,
) -> np.ndarray:
    """Convert an array-like of real numbers to a float64 array.

    value: anything ``np.asarray`` understands (list, tuple, scalar, array of int/float).
    ndim: exact number of dimensions required, or None.
    min_ndim: smallest number of dimensions accepted.
    finite: reject nan and ±inf.
    allow_empty: accept arrays with zero elements.
    Returns a new float64 array (the caller may modify it).
    Raises ValueError naming ``name`` for ragged or non-numeric input (bool, complex, strings,
    objects), a wrong number of dimensions, an empty array or non-finite entries.
    """
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{name} must be a rectangular array of real numbers; {error}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must hold real numbers (int or float); got dtype {array.dtype}. "
            f"Convert it with np.asarray({name}, dtype=float)."
        )
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s); got shape {array.shape}.")
    if array.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s); got shape {array.shape}.")
    if not allow_empty and array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}.")
    with np.errstate(over="ignore"):
        converted = np.array(array, dtype=np.float64)
    if finite and not np.all(np.isfinite(converted)):
        raise ValueError(f"{name} must contain only finite numbers (no nan or inf) in float64.")
    return converted


def as_bool_array(value: Any, name: str, *, min_ndim: int = 0) -> np.ndarray:
    """Convert an array-like of booleans to a bool array; integer 0/1 masks are rejected.

    Raises ValueError naming ``name`` when the dtype is not bool (a 0/1 or additive mask is an easy
    way to invert the meaning silently) or the array has fewer than ``min_ndim`` dimensions.
    """
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{name} must be a rectangular boolean array; {error}") from None
    if array.dtype != np.bool_:
        raise ValueError(
            f"{name} must be a boolean array (True = may attend); got dtype {array.dtype}. "
            f"Build it with a comparison or np.asarray(..., dtype=bool)."
        )
    if array.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s); got shape {array.shape}.")
    return array


def as_positive_int(value: Any, name: str, *, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int >= 1 (and <= ``maximum`` if given).

    Raises ValueError naming ``name`` for bools, non-integers (including 4.0) and values < 1.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be a positive integer; got {value!r} of type {type(value).__name__}.")
    value = int(value)
    if value < 1:
        raise ValueError(f"{name} must be a positive integer (>= 1); got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}; got {value}.")
    return value


def as_real(value: Any, name: str, *, minimum: float | None = None, strict: bool = False) -> float:
    """Return ``value`` as a finite Python float, optionally bounded below.

    minimum: lower bound; ``strict`` makes it exclusive (value > minimum).
    Raises ValueError naming ``name`` for non-real input, nan/inf and values below the bound.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {value!r} of type {type(value).__name__}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value}.")
    if minimum is not None:
        if strict and not value > minimum:
            raise ValueError(f"{name} must be greater than {minimum:g}; got {value:g}.")
        if not strict and not value >= minimum:
            raise ValueError(f"{name} must be at least {minimum:g}; got {value:g}.")
    return value


def as_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """Return ``rng`` if it is a ``numpy.random.Generator``.

    Raises ValueError naming ``name`` otherwise (a seed, ``np.random`` or a legacy RandomState).
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy.random.Generator; got {type(rng).__name__}. "
            f"Create one with np.random.default_rng(seed)."
        )
    return rng


def as_axis(axis: Any, ndim: int, name: str = "axis") -> int:
    """Return ``axis`` normalised to 0 <= axis < ndim.

    Raises ValueError naming ``name`` for a non-integer axis or one outside [-ndim, ndim).
    """
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise ValueError(f"{name} must be an integer; got {axis!r}.")
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name} must be in [{-ndim}, {ndim}) for an array with {ndim} dimension(s); got {axis}.")
    return axis % ndim


def float_or_array(values: np.ndarray) -> float | np.ndarray:
    """A 0-d result as a Python float; anything else unchanged as a float64 array."""
    values = np.asarray(values, dtype=np.float64)
    return float(values) if values.ndim == 0 else values
