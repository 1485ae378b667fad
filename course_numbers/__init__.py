"""Per-student numbers (variants): the parameters of every quiz item, derived from the student id.

This package is what the notebooks' ``my_numbers`` cell imports: standard library only, installed
in the students' environment and visible inside the sandboxed grading kernel, and holding nothing
a student may not read (no answer, no check). The grading side (``solutions.variants``) imports the
same functions, so the notebook and the grader derive the numbers one way.

Every ``answer_*`` item of the four assignments is graded against the submitting student's own
numbers. They are a deterministic function of the course id, the student id and the item: each
parameter is picked from a short list of values that keep the item teaching what the lesson
teaches (a saturated example still saturates, a ratio never rounds to 0 or 1, every number prints
in a few digits), by the first 8 bytes of SHA-256 over ``course id, student id, group, parameter,
attempt`` (joined by U+001F). Items that belong to one example share a *group* (the Blog's scores
for both weight answers, the A/B keys for the three A/B answers), so they share their numbers.

Deliberate limits: the derivation is not a secret. It deters copying (a classmate's answers, or
the lesson's, earn nothing) but a student who reads this code can compute anyone else's numbers
from their id; it hides nothing and is not meant to. Grading never takes the numbers from the
student's kernel: a student who changes this module in their kernel only misleads themselves.

The cell's words are in the language of the student's Jupyter where the course translates it
(``kernel_language``), else English; ``translations.py`` holds them, copied from the course's catalogues.
"""
import hashlib
import math
import os

from course_numbers.translations import TRANSLATIONS

VARIANT_COURSE_ID = "scaled-attention-lab"

#: The options of the multiple-choice item, by key; the lesson's order is A, B, C, D as listed.
CULPRIT_OPTIONS = {
    "vanish": "the gradient p - y vanishes",
    "gap": "the gap between the top scores grows with sigma while the step size stays fixed",
    "overflow": "softmax overflows to nan",
    "values": "the values V get larger",
}

#: The lesson's numbers: what a notebook uses when it has no student id (the lesson's variant).
LESSON_NUMBERS = {
    "answer_std_ratio": {"d_k_small": 4, "d_k_large": 64},
    "answer_var_component4": {"d_k": 64, "component_variance": 4.0},
    "answer_sigma_divide_dk": {"d_k": 64},
    "answer_worked_example": {"scores": [3.2, 0.1, -2.5, 0.4]},
    "answer_weights_unscaled": {"scores": [14.0, 10.0, 12.0], "d_k": 64},
    "answer_weights_scaled": {"scores": [14.0, 10.0, 12.0], "d_k": 64},
    "answer_culprit": {"options": [CULPRIT_OPTIONS[k] for k in ("vanish", "gap", "overflow", "values")]},
    "answer_ab_exp": {"s_a": 1.0, "s_b": 0.6, "beta": 4.0},
    "answer_ab_ratio": {"s_a": 1.0, "s_b": 0.6, "beta": 4.0},
    "answer_ab_weights": {"s_a": 1.0, "s_b": 0.6, "beta": 4.0},
    "answer_beta_equiv": {"d_k": 64},
    "answer_init_std": {"d_model": 512, "d_k": 64},
}

#: The quiz items of each assignment, in notebook order.
ASSIGNMENT_ITEMS = {
    "01_variance": ("answer_std_ratio", "answer_var_component4", "answer_sigma_divide_dk"),
    "02_softmax": ("answer_worked_example", "answer_weights_unscaled", "answer_weights_scaled", "answer_culprit"),
    "03_readout": ("answer_ab_exp", "answer_ab_ratio", "answer_ab_weights", "answer_beta_equiv"),
    "04_attention": ("answer_init_std",),
}


def variant_unit(student, group, parameter, attempt=0):
    """A number in [0, 1): the first 8 bytes of SHA-256(course, student, group, parameter, attempt)."""
    text = "\x1f".join((VARIANT_COURSE_ID, str(student), group, parameter, str(attempt)))
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64


def variant_pick(student, group, parameter, options, attempt=0):
    """One of ``options``, chosen by ``variant_unit``."""
    return options[int(variant_unit(student, group, parameter, attempt) * len(options))]


def _softmax_list(scores):
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def _worked_example_scores(student):
    # a clear winner near 0.9 (L3 §3) and a smallest weight that still prints (>= 0.002)
    for attempt in range(200):
        top = variant_pick(student, "worked_example", "top", range(25, 41), attempt) / 10
        others = []
        for i in range(3):
            others.append(variant_pick(student, "worked_example", f"other{i}", range(-30, 11), attempt) / 10)
        weights = _softmax_list([top] + others)
        if len(set(others)) == 3 and 0.75 <= weights[0] <= 0.95 and min(weights) >= 0.002:
            return [top] + others
    return list(LESSON_NUMBERS["answer_worked_example"]["scores"])


def _blog_scores(student):
    # the Blog's pattern: top score 2-3 above the runner-up (saturated, max weight >= 0.8) and a third further down
    top = variant_pick(student, "blog_example", "top", range(12, 19))
    runner_up = top - variant_pick(student, "blog_example", "gap2", (2, 3))
    third = top - variant_pick(student, "blog_example", "gap3", (4, 5, 6))
    orders = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
    order = variant_pick(student, "blog_example", "order", orders)
    ranked = (float(top), float(runner_up), float(third))
    return [ranked[i] for i in order]


def _ab_numbers(student):
    # exponentials must stretch the ratio (B/A well below s_b/s_a) without rounding it to 0 or 1
    for attempt in range(200):
        s_a = variant_pick(student, "ab_example", "s_a", (0.8, 0.9, 1.0, 1.1, 1.2), attempt)
        s_b = round(s_a - variant_pick(student, "ab_example", "difference", (0.2, 0.3, 0.4, 0.5), attempt), 1)
        beta = variant_pick(student, "ab_example", "beta", (2.0, 3.0, 4.0, 5.0, 6.0), attempt)
        stretch = beta * (s_a - s_b)
        if 0.8 <= stretch <= 2.5 and math.exp(-stretch) < 0.8 * s_b / s_a and beta * s_a <= 6.5:
            return {"s_a": s_a, "s_b": s_b, "beta": beta}
    return dict(LESSON_NUMBERS["answer_ab_exp"])


def variant_numbers(student):
    """item name -> its parameters for ``student``; the lesson's numbers when ``student`` is empty."""
    if not student:
        return {item: dict(params) for item, params in LESSON_NUMBERS.items()}
    blog = _blog_scores(student)
    blog_d_k = variant_pick(student, "blog_example", "d_k", (36, 49, 64, 81, 100))
    ab = _ab_numbers(student)
    culprit_keys = sorted(CULPRIT_OPTIONS, key=lambda key: variant_unit(student, "culprit", key))
    return {
        "answer_std_ratio": {"d_k_small": variant_pick(student, "std_ratio", "d_k_small", (2, 3, 4, 5, 6, 8)),
                             "d_k_large": variant_pick(student, "std_ratio", "d_k_large", (32, 48, 64, 96, 128, 256))},
        "answer_var_component4": {
            "d_k": variant_pick(student, "var_component", "d_k", (16, 32, 48, 64, 96, 128)),
            "component_variance": variant_pick(student, "var_component", "variance", (2.0, 3.0, 4.0, 5.0, 6.0))},
        "answer_sigma_divide_dk": {
            "d_k": variant_pick(student, "sigma_divide", "d_k", (16, 25, 36, 49, 64, 81, 100, 128, 144, 256))},
        "answer_worked_example": {"scores": _worked_example_scores(student)},
        "answer_weights_unscaled": {"scores": list(blog), "d_k": blog_d_k},
        "answer_weights_scaled": {"scores": list(blog), "d_k": blog_d_k},
        "answer_culprit": {"options": [CULPRIT_OPTIONS[key] for key in culprit_keys]},
        "answer_ab_exp": dict(ab),
        "answer_ab_ratio": dict(ab),
        "answer_ab_weights": dict(ab),
        "answer_beta_equiv": {
            "d_k": variant_pick(student, "beta_equiv", "d_k", (16, 25, 36, 49, 64, 81, 100, 121, 144, 256))},
        "answer_init_std": {"d_model": variant_pick(student, "init_std", "d_model", (128, 256, 384, 512, 768, 1024)),
                            "d_k": variant_pick(student, "init_std", "d_k", (16, 32, 64))},
    }


def notebook_student_id():
    """The id ``nbgrader submit`` records for this account (as nbgrader.utils.get_username), or None.

    The login name of the process; on the shared ``jovyan`` account of a container, JupyterHub's
    ``JUPYTERHUB_USER`` (``jovyan`` without it, as nbgrader). None when the process has no login
    name (a uid without an account, or no ``pwd`` module): then nbgrader could not submit either.
    """
    try:
        import pwd
        name = pwd.getpwuid(os.getuid())[0]
    except (ImportError, KeyError):
        return None
    if name == "jovyan":
        name = os.environ.get("JUPYTERHUB_USER", "jovyan")
    return name or None


#: What the ``my_numbers`` cell says besides the numbers: message ids of the course's catalogues
#: (``grader/language``), whose translations ``course_numbers.translations`` carries into the kernel.
NUMBERS_HEADING = "Your numbers (student id {student}); the graded quiz items use these:"
LESSON_NUMBERS_HEADING = ("No student id: this Jupyter has no login name that nbgrader would submit under, so these "
                          "are the lesson's numbers. When your hand-in is graded, your own numbers are used.")
MESSAGES = (NUMBERS_HEADING, LESSON_NUMBERS_HEADING, *CULPRIT_OPTIONS.values())


def say(message, language="en", **values):
    """``message`` (one of ``MESSAGES``) in ``language`` ("en", "zh"), its ``{name}`` parts filled;
    in English when the language has no translation of it."""
    text = TRANSLATIONS.get(language, {}).get(message) or message
    return text.format(**values) if values else text


#: The variable the course hub sets to the student's language for the student's server and kernels
#: (the same name as ``notebook_language.fetch.LANGUAGE_VARIABLE``, which the notebooks' fetch reads).
STUDENT_LANGUAGE_VARIABLE = "STUDENT_LANGUAGE"


def kernel_language(environ=None):
    """The language of the student's Jupyter: the course hub's ``STUDENT_LANGUAGE`` when it names
    one the course translates (or "en"), else as gettext finds it (``LANGUAGE``, ``LC_ALL``,
    ``LC_MESSAGES``, then ``LANG``: "zh_CN.UTF-8" -> "zh"; ``LANGUAGE`` may list several); "en"
    for a language the course's catalogues do not translate (and for "C" or nothing set).

    Only the student's own view: the feedback page says the numbers in the language the grading
    side chose for the student, never in the kernel's."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(STUDENT_LANGUAGE_VARIABLE, "")
    if chosen in TRANSLATIONS or chosen == "en":
        return chosen
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if value:  # LANGUAGE may list several, in order of preference: "fr:zh"
            for choice in value.split(":"):
                language = choice.split(".")[0].split("@")[0].split("_")[0].lower()
                if language in TRANSLATIONS or language == "en":
                    return language
            return "en"
    return "en"


def show_numbers(numbers, student, language="en"):
    """The text of the "Your numbers" cell in ``language``: who they are for, then one line per item
    (item names, parameter names and numbers as they are; a choice item's options in ``language``)."""
    if student:
        lines = [say(NUMBERS_HEADING, language, student=repr(student))]
    else:
        lines = [say(LESSON_NUMBERS_HEADING, language)]
    for item, params in numbers.items():
        if "options" in params:
            text = "; ".join(f"{'ABCD'[i]}: {say(option, language)}" for i, option in enumerate(params["options"]))
        else:
            text = ", ".join(f"{name} = {value:g}" if isinstance(value, (int, float))
                             else f"{name} = [{', '.join(f'{v:g}' for v in value)}]"
                             for name, value in params.items())
        lines.append(f"  {item}: {text}")
    return "\n".join(lines)


def numbers_for(student, assignment=None):
    """item -> parameters of ``student`` (the lesson's for None or ""), for one assignment or all."""
    numbers = variant_numbers(student)
    if assignment is None:
        return numbers
    return {item: numbers[item] for item in ASSIGNMENT_ITEMS[assignment]}


def notebook_numbers(assignment, graded_student_id=None):
    """The ``my_numbers`` of a notebook: item -> its parameters, for ``assignment``'s quiz items only.

    ``graded_student_id`` is the id the grader writes into the cell of a hand-in; None (the
    student's own Jupyter) means the id ``nbgrader submit`` would record here. Prints the numbers
    (``show_numbers``, in ``kernel_language``) so that the cell's output shows them.
    """
    if assignment not in ASSIGNMENT_ITEMS:
        raise ValueError(f"unknown assignment {assignment!r}; the course's assignments are "
                         f"{', '.join(ASSIGNMENT_ITEMS)}")
    student = notebook_student_id() if graded_student_id is None else graded_student_id
    numbers = numbers_for(student, assignment)
    print(show_numbers(numbers, student, kernel_language()))
    return numbers


def ranged_numbers(ranges, student):
    """item -> its parameters for ``student``, for items whose numbers are whole-number ranges.

    ``ranges``: item -> {parameter: (low, high)}, both ends included (what an assignment's checks
    file declares for its quiz items, copied into its ``my_numbers`` cell). Each parameter is
    picked as ``variant_pick`` picks; without a student id every parameter is its ``low`` end
    (the worked example's numbers).
    """
    numbers = {}
    for item, parameters in ranges.items():
        numbers[item] = {}
        for parameter, (low, high) in parameters.items():
            numbers[item][parameter] = (variant_pick(student, item, parameter, range(low, high + 1))
                                        if student else low)
    return numbers


def notebook_ranged_numbers(ranges, graded_student_id=None):
    """The ``my_numbers`` of a notebook whose quiz items declare whole-number ranges (``ranged_numbers``).

    ``graded_student_id`` as for ``notebook_numbers``; prints the numbers so that the cell shows them.
    """
    student = notebook_student_id() if graded_student_id is None else graded_student_id
    numbers = ranged_numbers(ranges, student)
    print(show_numbers(numbers, student))
    return numbers
