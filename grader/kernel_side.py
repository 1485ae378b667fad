"""The code that runs inside the student's kernel during grading: call, encode, report.

This module is self-contained on purpose (standard library and numpy only, no import of the
project): the grader injects its source text into each hidden test cell, so the sandboxed kernel
never needs to read the project's packages. It decides nothing. It calls the student's function on
the inputs of a plan, encodes whatever comes back as JSON-safe data and displays it under
``PROBE_MIME``; the trusted grading process decodes that data and decides the verdict.

Wire format (both directions), one JSON value per Python value:
    {"t": "ndarray", "dtype": "float64", "shape": [2, 3], "data": [...]}   flat, C order
    {"t": "float" | "int" | "bool" | "<numpy scalar type>", "v": 1.5}
    {"t": "str", "v": "B"}        {"t": "NoneType"}
    {"t": "tuple" | "list", "items": [...]}      {"t": "dict", "items": {"key": ...}}
    {"t": "rng", "seed": 123}                     (inputs only: a fresh numpy Generator)
    {"t": "<other type>", "repr": "..."}          (outputs only: an object that is not data)
Non-finite floats travel as the strings "nan", "inf" and "-inf".
"""
import json

import numpy as np

# The key of a probe cell's plan of inputs in the cell's metadata (the grader side reads it; the kernel never sees it).
METADATA_KEY = "scaled_attention_lab"
PROBE_MIME = "application/vnd.scaled-attention-lab.probe+json"
MAX_REPR_CHARS = 200
MAX_MESSAGE_CHARS = 500
_NUMPY_SCALAR_NAMES = {
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "longdouble",
}


def _encode_float(x):
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def _decode_float(x):
    return float(x) if isinstance(x, str) else x


def encode(value):
    """Encode a Python or numpy value as JSON-safe data (see the module docstring)."""
    if isinstance(value, np.random.Generator):
        raise TypeError("a Generator cannot be encoded; pass {'t': 'rng', 'seed': ...}")
    if type(value) is np.ndarray:
        kind = value.dtype.kind
        if kind in "biuf":
            flat = value.ravel()
            data = [bool(v) for v in flat] if kind == "b" else [_encode_float(v) for v in flat]
            return {"t": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "data": data}
        return {"t": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "repr": _short_repr(value)}
    # Exact types only: a subclass defined by the student (a float whose __eq__ lies) is not data.
    numpy_scalar = type(value).__module__ == "numpy"
    if type(value) is bool or (numpy_scalar and isinstance(value, np.bool_)):
        return {"t": type(value).__name__, "v": bool(value)}
    if type(value) is int or (numpy_scalar and isinstance(value, np.integer)):
        return {"t": type(value).__name__, "v": int(value)}
    if type(value) is float or (numpy_scalar and isinstance(value, np.floating)):
        return {"t": type(value).__name__, "v": _encode_float(value)}
    if type(value) is str:
        return {"t": "str", "v": value[:MAX_REPR_CHARS]}
    if value is None:
        return {"t": "NoneType"}
    if type(value) in (tuple, list):
        return {"t": type(value).__name__, "items": [encode(v) for v in value]}
    if type(value) is dict:
        return {"t": "dict", "items": {str(k): encode(v) for k, v in value.items()}}
    return {"t": type(value).__name__, "repr": _short_repr(value)}


def _short_repr(value):
    try:
        return repr(value)[:MAX_REPR_CHARS]
    except Exception as exc:  # a hostile __repr__ must not stop the report
        return f"<repr failed: {type(exc).__name__}>"


def decode(data):
    """Decode wire data into Python and numpy values (the inverse of ``encode`` for data)."""
    kind = data["t"]
    if kind == "ndarray":
        values = [_decode_float(v) for v in data["data"]]
        return np.array(values, dtype=data["dtype"]).reshape(data["shape"])
    if kind == "rng":
        return np.random.default_rng(data["seed"])
    if kind in ("tuple", "list"):
        items = [decode(v) for v in data["items"]]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        return {k: decode(v) for k, v in data["items"].items()}
    if kind == "NoneType":
        return None
    if kind == "str":
        return data["v"]
    if kind in ("bool", "bool_"):
        return bool(data["v"])
    if kind == "int":
        return int(data["v"])
    if kind == "float":
        return float(_decode_float(data["v"]))
    if kind in _NUMPY_SCALAR_NAMES and "v" in data:
        return np.dtype(kind).type(_decode_float(data["v"]))
    raise ValueError(f"cannot decode wire type {kind!r}")


def run_case(function, case):
    """Call ``function`` on one case of a plan and return the encoded outcome.

    case: {"args": [wire...], "kwargs": {name: wire}}. The outcome is {"ok": wire value} or
    {"raised": exception type name, "message": str}.
    """
    import warnings

    try:
        args = [decode(a) for a in case.get("args", [])]
        kwargs = {k: decode(v) for k, v in case.get("kwargs", {}).items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                result = function(*args, **kwargs)
        return {"ok": encode(result)}
    except Exception as exc:  # the student's error is data for the verdict
        return {"raised": type(exc).__name__, "message": str(exc)[:MAX_MESSAGE_CHARS]}


def collect(plan, namespace):
    """Run a plan against the student's namespace and return the report (JSON-safe dict).

    plan: {"check": name, "token": str, "kind": "function" | "value", "cases": [...]}.
    """
    report = {"check": plan["check"], "token": plan["token"]}
    if plan["check"] not in namespace:
        report["undefined"] = True
        return report
    target = namespace[plan["check"]]
    if plan["kind"] == "value":
        report["value"] = encode(target)
        return report
    if not callable(target):
        report["not_callable"] = encode(target)
        return report
    report["results"] = [run_case(target, case) for case in plan["cases"]]
    return report


def report(plan, namespace):
    """Collect the report for ``plan`` and display it as one output of the current cell."""
    from IPython.display import display

    payload = json.dumps(collect(plan, namespace), allow_nan=False)
    display({PROBE_MIME: payload}, raw=True)
