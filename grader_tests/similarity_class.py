"""An honest class of any size for 02_softmax, and disguised copies of its members.

Real independent solutions share idioms (``np.max(x, axis=axis, keepdims=True)``, a finiteness
check, ``math.sqrt(d_k)``) but rarely a whole cell. Each cell here is therefore written from a few
*steps* (convert the input, validate it, shift, exponentiate, ...), and every step has several
idioms a student might choose; a student's cell is one idiom per step, with names of their own.
So every idiom is shared, token for token, by a quarter to a half of the class, while two
students rarely share all the steps of a cell: a harder test for a similarity check than a real
class, whose code also differs inside the idioms. Students are drawn from a seeded generator.

``copy_of(student)`` is what a copying student hands in: the same idioms with every name changed,
comments added, a line of dead code and a statement split over two lines.
"""
from __future__ import annotations

import itertools
import math
import random
import re
import textwrap
from dataclasses import dataclass

ASSIGNMENT = "02_softmax"

NAMES = {
    "x": ["x", "arr", "z", "logits", "values", "a"],
    "s": ["shifted", "s", "centered", "diff", "stable", "u"],
    "e": ["e", "exps", "ex", "numer", "w", "unnorm"],
    "t": ["total", "denom", "norm", "tot", "z_sum", "summed"],
    "p": ["p", "probs", "dist", "pr", "prob", "pp"],
    "h": ["h", "ent", "result", "out", "H", "value"],
    "y": ["onehot", "y", "target_oh", "hot", "eye_rows", "labels"],
    "g": ["grad", "g", "weights", "probs", "sm", "soft"],
    "q": ["q", "query", "queries", "qs", "qq", "qv"],
    "k": ["k", "keys", "ks", "kk", "K_", "kmat"],
    "m": ["m", "peak", "mx", "top", "biggest", "row_max"],
}

SIGNATURES = {
    "softmax": "def softmax(x, axis=-1):",
    "entropy": "def entropy(p, axis=-1):",
    "score_gradient": "def score_gradient(scores, target):",
    "unit_variance_scale": "def unit_variance_scale(d_k):",
    "saturation_experiment": "def saturation_experiment(d_k, n_keys, n_trials, scale, rng):",
}

# The three results of saturation_experiment, in whichever order a student writes them.
_RESULTS = {"max_weight": ("float({p}.max(axis=-1).mean())", "float(np.mean(np.max({p}, axis=1)))"),
            "entropy": ("float(np.mean(entropy({p})))", "float(entropy({p}, axis=1).mean())"),
            "gap": ("float({h}.mean())", "float(np.mean({h}))")}
RESULT_IDIOMS = []
for _order in itertools.permutations(_RESULTS):
    _style = len(RESULT_IDIOMS) % 2
    RESULT_IDIOMS += [
        "return {{" + ", ".join(f"'{key}': {_RESULTS[key][_style]}" for key in _order) + "}}",
        "result = {{}}\n" + "\n".join(f"result['{key}'] = {_RESULTS[key][1 - _style]}" for key in _order)
        + "\nreturn result",
        "return dict(" + ", ".join(f"{key}={_RESULTS[key][_style]}" for key in _order) + ")"]

# grade_id -> steps -> idioms (each a block of body code with {name} placeholders).
STEPS: dict[str, list[list[str]]] = {
    "softmax": [
        ["{x} = np.asarray(x, dtype=float)",
         "{x} = np.array(x, dtype=np.float64)",
         "try:\n    {x} = np.asarray(x, dtype=np.float64)\nexcept (TypeError, ValueError):\n    raise ValueError('x must be numeric')",
         "{x} = np.asarray(x).astype(np.float64)"],
        ["", "{x} = {x}.copy()"],
        ["", "if {x}.ndim == 0 or {x}.size == 0:\n    raise ValueError('x must be a non-empty array')\nif not np.isfinite({x}).all():\n    raise ValueError('x must be finite')",
         "if {x}.ndim == 0 or {x}.size == 0 or not np.all(np.isfinite({x})):\n    raise ValueError('bad x')",
         "if {x}.size == 0 or {x}.ndim < 1:\n    raise ValueError('x is empty')\nif np.any(np.isnan({x})) or np.any(np.isinf({x})):\n    raise ValueError('x has nan or inf')",
         "if not ({x}.ndim and {x}.size and np.isfinite({x}).all()):\n    raise ValueError('x must be a finite, non-empty array')"],
        ["", "axis = int(axis)", "axis = axis % {x}.ndim"],
        ["{s} = {x} - np.max({x}, axis=axis, keepdims=True)",
         "{s} = {x} - {x}.max(axis=axis, keepdims=True)",
         "{m} = np.amax({x}, axis=axis, keepdims=True)\n{s} = {x} - {m}",
         "{s} = {x} - np.expand_dims(np.max({x}, axis=axis), axis)"],
        ["{e} = np.exp({s})\nreturn {e} / np.sum({e}, axis=axis, keepdims=True)",
         "{e} = np.exp({s})\n{t} = {e}.sum(axis=axis, keepdims=True)\nreturn {e} / {t}",
         "return np.exp({s} - np.log(np.sum(np.exp({s}), axis=axis, keepdims=True)))",
         "{e} = np.exp({s})\n{e} /= {e}.sum(axis=axis, keepdims=True)\nreturn {e}"],
    ],
    "entropy": [
        ["{p} = np.asarray(p, dtype=float)",
         "{p} = np.array(p, dtype=np.float64)",
         "{p} = np.asarray(p).astype(float)"],
        ["", "axis = axis % {p}.ndim", "{p} = {p}.astype(np.float64, copy=False)"],
        ["if {p}.ndim == 0 or {p}.size == 0:\n    raise ValueError('p must be a non-empty array')\nif not np.isfinite({p}).all() or ({p} < 0).any():\n    raise ValueError('p must be finite and non-negative')",
         "if {p}.size == 0 or {p}.ndim == 0 or np.any({p} < 0) or not np.all(np.isfinite({p})):\n    raise ValueError('bad p')",
         "if not {p}.size or not {p}.ndim:\n    raise ValueError('p is empty')\nif np.isnan({p}).any() or np.isinf({p}).any() or {p}.min() < 0:\n    raise ValueError('p must hold probabilities')"],
        ["", "if np.any(np.abs({p}.sum(axis=axis) - 1.0) > 1e-6):\n    raise ValueError('p must sum to one')",
         "if not np.allclose({p}.sum(axis=axis), 1.0, atol=1e-6):\n    raise ValueError('each slice of p must sum to 1')",
         "{t} = np.sum({p}, axis=axis)\nif np.max(np.abs({t} - 1)) > 1e-6:\n    raise ValueError('p does not sum to one')"],
        ["{h} = -np.sum(np.where({p} > 0, {p} * np.log(np.where({p} > 0, {p}, 1.0)), 0.0), axis=axis)",
         "with np.errstate(divide='ignore', invalid='ignore'):\n    {e} = {p} * np.log({p})\n{h} = -np.nansum({e}, axis=axis)",
         "{e} = np.log(np.where({p} > 0, {p}, 1.0))\n{h} = -({p} * {e}).sum(axis=axis)",
         "{e} = np.zeros_like({p})\n{e}[{p} > 0] = {p}[{p} > 0] * np.log({p}[{p} > 0])\n{h} = -{e}.sum(axis=axis)",
         "{h} = -np.sum(np.log({p}, out=np.zeros_like({p}), where={p} > 0) * {p}, axis=axis)",
         "{e} = np.ma.log({p}).filled(0.0)\n{h} = -np.sum({p} * {e}, axis=axis)"],
        ["return float({h}) if np.ndim({h}) == 0 else {h}",
         "if np.ndim({h}) == 0:\n    return float({h})\nreturn {h}",
         "return {h}.item() if {h}.ndim == 0 else {h}"],
    ],
    "score_gradient": [
        ["", "scores = np.asarray(scores, dtype=float)"],
        ["{g} = softmax(scores)",
         "{g} = softmax(np.asarray(scores, dtype=float))",
         "{g} = softmax(scores, axis=-1)"],
        ["target = np.asarray(target)\nif target.dtype.kind not in 'iu':\n    raise ValueError('target must be integer')",
         "target = np.array(target)\nif not np.issubdtype(target.dtype, np.integer):\n    raise ValueError('target must hold integers')"],
        ["", "if target.shape != {g}.shape[:-1]:\n    raise ValueError('target has the wrong shape')\nif np.any(target < 0) or np.any(target >= {g}.shape[-1]):\n    raise ValueError('target out of range')",
         "if target.shape != {g}.shape[:-1] or (target < 0).any() or (target >= {g}.shape[-1]).any():\n    raise ValueError('bad target')",
         "n = {g}.shape[-1]\nif target.shape != {g}.shape[:-1]:\n    raise ValueError('target shape')\nif target.min(initial=0) < 0 or target.max(initial=0) >= n:\n    raise ValueError('target range')"],
        ["{y} = np.eye({g}.shape[-1])[target]\nreturn {g} - {y}",
         "{y} = (np.arange({g}.shape[-1]) == target[..., None]).astype(float)\nreturn {g} - {y}",
         "{g} = {g}.copy()\nnp.put_along_axis({g}, target[..., None], np.take_along_axis({g}, target[..., None], axis=-1) - 1.0, axis=-1)\nreturn {g}",
         "{y} = np.zeros_like({g})\nnp.put_along_axis({y}, np.expand_dims(target, -1), 1.0, axis=-1)\nreturn {g} - {y}"],
    ],
    "unit_variance_scale": [
        ["if isinstance(d_k, bool) or int(d_k) != d_k or d_k < 1:\n    raise ValueError('d_k must be a positive integer')",
         "if not isinstance(d_k, (int, np.integer)) or isinstance(d_k, bool) or d_k <= 0:\n    raise ValueError('d_k must be a positive integer')",
         "if type(d_k) is bool or d_k < 1 or d_k != int(d_k):\n    raise ValueError('d_k must be a positive integer')"],
        ["return float(np.sqrt(d_k))", "return math.sqrt(d_k)", "return float(d_k) ** 0.5", "return d_k ** 0.5"],
    ],
    "saturation_experiment": [
        ["for name, value, least in (('d_k', d_k, 1), ('n_keys', n_keys, 2), ('n_trials', n_trials, 1)):\n    if isinstance(value, bool) or int(value) != value or value < least:\n        raise ValueError(f'{{name}} must be an integer >= {{least}}')",
         "if d_k < 1 or n_trials < 1 or n_keys < 2:\n    raise ValueError('d_k, n_trials >= 1 and n_keys >= 2 are needed')",
         "if not (isinstance(d_k, int) and d_k >= 1):\n    raise ValueError('d_k')\nif not (isinstance(n_keys, int) and n_keys >= 2):\n    raise ValueError('n_keys')\nif not (isinstance(n_trials, int) and n_trials >= 1):\n    raise ValueError('n_trials')"],
        ["", "scale = float(scale)", "d_k, n_keys, n_trials = int(d_k), int(n_keys), int(n_trials)"],
        ["", "if not scale > 0:\n    raise ValueError('scale must be positive')\nif not isinstance(rng, np.random.Generator):\n    raise ValueError('rng must be a Generator')",
         "if not isinstance(rng, np.random.Generator) or not np.isfinite(scale) or scale <= 0:\n    raise ValueError('bad scale or rng')"],
        ["{q} = rng.standard_normal((n_trials, d_k))\n{k} = rng.standard_normal((n_trials, n_keys, d_k))\nscores = np.einsum('tkd,td->tk', {k}, {q}) / scale",
         "{q} = rng.normal(size=(n_trials, 1, d_k))\n{k} = rng.normal(size=(n_trials, n_keys, d_k))\nscores = ({k} * {q}).sum(axis=-1) / scale",
         "{q} = rng.standard_normal((n_trials, d_k, 1))\n{k} = rng.standard_normal((n_trials, n_keys, d_k))\nscores = ({k} @ {q})[..., 0] / scale"],
        ["{p} = softmax(scores)\n{m} = np.sort(scores, axis=-1)\n{h} = {m}[:, -1] - {m}[:, -2]",
         "{p} = softmax(scores, axis=-1)\n{m} = np.partition(scores, -2, axis=-1)\n{h} = {m}[:, -1] - {m}[:, -2]",
         "{p} = softmax(scores)\n{m} = -np.sort(-scores, axis=1)\n{h} = {m}[:, 0] - {m}[:, 1]"],
        RESULT_IDIOMS,
    ],
    "answer_worked_example": [["answer_worked_example = softmax([3.2, 0.1, -2.5, 0.4])",
                               "answer_worked_example = softmax(np.array([3.2, 0.1, -2.5, 0.4]))"]],
    "answer_weights_unscaled": [["answer_weights_unscaled = softmax([14, 10, 12])",
                                 "answer_weights_unscaled = softmax(np.array([14.0, 10.0, 12.0]))"]],
    "answer_weights_scaled": [["answer_weights_scaled = softmax(np.array([14, 10, 12]) / 8)",
                               "answer_weights_scaled = softmax(np.array([14.0, 10.0, 12.0]) / np.sqrt(64))",
                               "answer_weights_scaled = softmax([14 / 8, 10 / 8, 12 / 8])"]],
    "answer_culprit": [["answer_culprit = 'B'", 'answer_culprit = "B"']],
}

COMMENTS = ["# stable version", "# as in the lecture", "# check the input first", "# TODO tidy",
            "# this avoids overflow", "# shape [..., n]", "# works for any axis"]


@dataclass(frozen=True)
class Student:
    """An honest student: one idiom index per step of every cell, a name for each placeholder, and
    whether they write reductions as methods (``x.sum(...)``) or functions (``np.sum(x, ...)``)."""

    name: str
    choices: dict[str, tuple[int, ...]]
    names: dict[str, str]
    methods: bool = False


_FUNCTION_CALL = re.compile(r"\bnp\.(sum|max|mean)\((\w+)(, |\))")
_METHOD_CALL = re.compile(r"\b(\w+)\.(sum|max|mean)\((\)?)")


def _styled(code: str, methods: bool) -> str:
    """Reductions in the student's own style (the idioms are written both ways)."""
    if methods:
        return _FUNCTION_CALL.sub(lambda m: f"{m.group(2)}.{m.group(1)}(" + (")" if m.group(3) == ")" else ""), code)
    return _METHOD_CALL.sub(lambda m: f"np.{m.group(2)}({m.group(1)}" + (")" if m.group(3) else ", ")
                            if m.group(1) not in ("np", "rng") else m.group(0), code)


LONG_CELLS = ("softmax", "entropy", "score_gradient", "saturation_experiment")


def combinations(cell: str) -> int:
    """How many different cells the idioms of ``cell`` make."""
    return math.prod(len(idioms) for idioms in STEPS[cell])


def honest_class(size: int, seed: int = 0) -> list[Student]:
    """``size`` honest students; no two write the same long cell while the idioms allow it
    (a class larger than a cell's number of combinations repeats some)."""
    rng = random.Random(seed)
    students = []
    seen: dict[str, set[tuple[int, ...]]] = {cell: set() for cell in LONG_CELLS}
    while len(students) < size:
        choices = {cell: tuple(rng.randrange(len(idioms)) for idioms in steps) for cell, steps in STEPS.items()}
        if any(choices[c] in seen[c] and len(seen[c]) < combinations(c) for c in LONG_CELLS):
            continue
        for cell in LONG_CELLS:
            seen[cell].add(choices[cell])
        names = {placeholder: rng.choice(pool) for placeholder, pool in NAMES.items()}
        students.append(Student(f"s{len(students):03d}", choices, names, methods=rng.random() < 0.5))
    return students


def cells_of(student: Student) -> dict[str, str]:
    """grade_id -> the code the student hands in for that solution cell."""
    return {cell: _styled(_cell_code(cell, [STEPS[cell][i][choice] for i, choice in enumerate(student.choices[cell])],
                                     student.names), student.methods)
            for cell in STEPS}


def _cell_code(cell: str, blocks: list[str], names: dict[str, str]) -> str:
    body = "\n".join(block.format(**names) for block in blocks if block)
    if cell not in SIGNATURES:
        return body + "\n"
    return SIGNATURES[cell] + "\n" + textwrap.indent(body, "    ") + "\n"


def copy_of(student: Student, name: str, seed: int = 1) -> dict[str, str]:
    """The cells of a student who copied ``student``'s notebook and disguised it (see the module docstring)."""
    rng = random.Random(seed)
    renamed = {placeholder: _other(rng, pool, student.names[placeholder]) + "_" + rng.choice("abcxyz")
               for placeholder, pool in NAMES.items()}
    copied = {}
    for cell in STEPS:
        blocks = [STEPS[cell][i][choice] for i, choice in enumerate(student.choices[cell])]
        code = _styled(_cell_code(cell, blocks, renamed), student.methods)
        copied[cell] = _disguise(code, rng) if cell in SIGNATURES else code
    return copied


def _other(rng: random.Random, pool: list[str], taken: str) -> str:
    return rng.choice([n for n in pool if n != taken])


def _disguise(code: str, rng: random.Random) -> str:
    """Comments, one dead assignment after the signature, and the first long call split over two lines."""
    lines = code.splitlines()
    body = [lines[0], "    unused_counter = 0  # not needed any more"]
    split_done = False
    for line in lines[1:]:
        if not split_done and "(" in line and len(line) > 40 and line.rstrip().endswith(")"):
            at = line.index("(") + 1
            indent = " " * (len(line) - len(line.lstrip()) + 8)
            body += [line[:at], indent + line[at:].strip()]
            split_done = True
            continue
        body.append(line + ("  " + rng.choice(COMMENTS) if rng.random() < 0.4 and not line.rstrip().endswith(":") else ""))
    return "\n".join(body) + "\n"
