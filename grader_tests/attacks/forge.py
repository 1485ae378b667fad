# The attacker's toolkit for forging probe reports, run in the student's kernel as a cell of its own.
#
# Nothing here is secret: the wire format and the injected probe code are public (grader/kernel_side.py,
# grader/grading/preprocessors/decide_verdicts.py), and the plan of a running probe cell (check name, token, inputs) is in that
# cell's source, which the kernel receives. What the attacker does not have is the expected values.
import ast
import json
import re

import numpy as np
from IPython import get_ipython

PROBE_MIME = "application/vnd.scaled-attention-lab.probe+json"
_PLAN_LITERAL = re.compile(r"\.loads\((?P<literal>'\{\"check\".*?\}')\), student_namespace\)")


def plan_in(source):
    """The plan (check, token, kind, inputs) of an injected probe cell, or None for any other cell."""
    # The probe program reaches the kernel as a string literal inside the cell: look inside each one.
    try:
        texts = [node.value for node in ast.walk(ast.parse(source))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    except SyntaxError:
        return None
    for text in [source, *texts]:
        match = _PLAN_LITERAL.search(text)
        if match:
            return json.loads(ast.literal_eval(match.group("literal")))
    return None


def decode_input(wire):
    if wire["t"] == "ndarray":
        values = [float(v) if isinstance(v, str) else v for v in wire["data"]]
        return np.array(values, dtype=wire["dtype"]).reshape(wire["shape"])
    return wire.get("v")


def encode_array(value):
    array = np.asarray(value, dtype=np.float64)
    data = [float(v) if np.isfinite(v) else str(v) for v in array.ravel()]
    return {"t": "ndarray", "dtype": "float64", "shape": list(array.shape), "data": data}


def identity_report(plan):
    """A well-formed report for `plan` holding the baseline's wrong answer (each first input returned
    unchanged), decorated with every field a naive grader might trust."""
    results = [{"ok": encode_array(decode_input(case["args"][0])), "passed": True} for case in plan["cases"]]
    return json.dumps({"check": plan["check"], "token": plan["token"], "results": results,
                       "passed": True, "fraction": 1.0, "score": 1.0})


def rewrite_reports(rewrite):
    """From now on every probe report the kernel displays goes through rewrite(report, raw), which
    returns the payloads to display instead (an empty list drops the report)."""
    publisher = get_ipython().display_pub
    publish = publisher.publish

    def forging_publish(data, metadata=None, *args, **kwargs):
        if isinstance(data, dict) and PROBE_MIME in data:
            raw = data[PROBE_MIME]
            for payload in rewrite(json.loads(raw), raw):
                publish({PROBE_MIME: payload}, metadata, *args, **kwargs)
            return None
        return publish(data, metadata, *args, **kwargs)

    publisher.publish = forging_publish


def publish_report(payload, **kwargs):
    """Display `payload` under the probe MIME type, as the probe would."""
    get_ipython().display_pub.publish({PROBE_MIME: payload}, {}, **kwargs)
