"""Where one notebook's grading time goes: an nbgrader Autograde that times its own steps.

Categories (``grader.grading.outcome.CATEGORIES``; seconds per notebook):

- ``kernel``: starting the sandboxed kernel and stopping it (everything in the execute
  preprocessor outside its cells);
- ``cells``: running the notebook's cells in that kernel;
- ``verdicts``: preparing the hidden probes and judging their reports (``grader.grading.preprocessors.decide_verdicts``);
- ``gradebook``: nbgrader's gradebook reads and writes (submission set-up, cell metadata from
  the gradebook, saving the scores, late penalties);
- ``nbconvert``: the rest of the conversion (reading, sanitizing, writing the notebook);
- ``setup``: loading the course config and building the converter.

Every step is also timed on its own: ``times["step <class name>"]`` (seconds). A step's category is
its contract's ``timed_as`` (``grader.grading.pipeline.contract_of``); the steps themselves, and
their order, are the pipeline's: nothing here adds, removes or replaces one.
"""
from __future__ import annotations

import time
from collections import defaultdict

from nbgrader.converters import Autograde

from grader.grading.outcome import CATEGORIES
from grader.grading.pipeline import contract_of

STEP_PREFIX = "step "  # times[STEP_PREFIX + class name]: the seconds of one step


class _TimedPreprocessor:
    """Calls a preprocessor and adds its seconds to ``times[category]`` and to its own ``times["step <name>"]``."""

    def __init__(self, preprocessor, category: str, times: dict):
        self.preprocessor, self.category, self.times = preprocessor, category, times
        self.step_key = STEP_PREFIX + type(preprocessor).__name__
        if category == "kernel":
            cell_method = preprocessor.preprocess_cell

            def timed_cell(*args, **kwargs):
                started = time.perf_counter()
                try:
                    return cell_method(*args, **kwargs)
                finally:
                    times["cells"] += time.perf_counter() - started
            preprocessor.preprocess_cell = timed_cell

    def __call__(self, nb, resources):
        started = time.perf_counter()
        try:
            return self.preprocessor(nb, resources)
        finally:
            seconds = time.perf_counter() - started
            self.times[self.category] += seconds
            self.times[self.step_key] += seconds


class TimedAutograde(Autograde):
    """nbgrader's Autograde as ``grade_one`` runs it: the course's steps, unchanged and in their
    order, each wrapped to add its seconds to ``times``.

    The course's ``pre_convert_hook`` that quarantines the submission
    (``grader.sandbox.submitted_links``) is not run again: ``grade_one`` quarantined the submission
    before it read or screened anything.
    """

    times: dict = {}  # set per instance to a dict from new_times()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if getattr(self.pre_convert_hook, "quarantines_submissions", False):
            self.pre_convert_hook = None

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        started = time.perf_counter()
        try:
            super().init_assignment(assignment_id, student_id)
        finally:
            self.times["gradebook"] += time.perf_counter() - started

    def _init_preprocessors(self) -> None:
        super()._init_preprocessors()
        self.exporter._preprocessors = [
            _TimedPreprocessor(p, contract_of(type(p)).timed_as, self.times)
            for p in self.exporter._preprocessors]


def new_times() -> defaultdict:
    """An empty ``times``: category or ``"step <name>"`` -> seconds."""
    return defaultdict(float)


def settle(times: dict, total: float) -> dict[str, float]:
    """Every category in seconds: the execute preprocessor's time less its cells is ``kernel``,
    and what no step accounts for (total - the rest) goes to ``nbconvert``."""
    out = {name: float(times.get(name, 0.0)) for name in CATEGORIES}
    out["kernel"] = max(0.0, out["kernel"] - out["cells"])
    accounted = sum(out[name] for name in CATEGORIES if name != "nbconvert")
    out["nbconvert"] = max(0.0, total - accounted)
    return out
