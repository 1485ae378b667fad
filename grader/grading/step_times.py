"""Where one notebook's grading time goes: an nbgrader Autograde that times its own steps.

Categories (seconds per notebook):

- ``kernel``: starting the sandboxed kernel and stopping it (everything in the execute
  preprocessor outside its cells);
- ``cells``: running the notebook's cells in that kernel;
- ``verdicts``: preparing the hidden probes and judging their reports (``grader.grading.preprocessors.decide_verdicts``);
- ``gradebook``: nbgrader's gradebook reads and writes (submission set-up, cell metadata from
  the gradebook, saving the scores, late penalties);
- ``nbconvert``: the rest of the conversion (reading, sanitizing, writing the notebook);
- ``setup``: loading the course config and building the converter.
"""
from __future__ import annotations

import time
from collections import defaultdict

from nbgrader.converters import Autograde
from nbgrader.preprocessors import SaveAutoGrades

from grader.grading.preprocessors.batched_save_autogrades import BatchedSaveAutoGrades

CATEGORIES = ("kernel", "cells", "verdicts", "gradebook", "nbconvert", "setup")

_CATEGORY_OF_PREPROCESSOR = {
    "SandboxedExecute": "kernel", "Execute": "kernel",
    "PrepareProbes": "verdicts", "DecideVerdicts": "verdicts",
    "RestoreCellMetadata": "gradebook", "OverwriteCells": "gradebook",
    "SaveAutoGrades": "gradebook", "BatchedSaveAutoGrades": "gradebook", "AssignLatePenalties": "gradebook",
}


class _TimedPreprocessor:
    """Calls a preprocessor and adds its seconds to ``times[category]``."""

    def __init__(self, preprocessor, category: str, times: dict):
        self.preprocessor, self.category, self.times = preprocessor, category, times
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
            self.times[self.category] += time.perf_counter() - started


class TimedAutograde(Autograde):
    """nbgrader's Autograde with the seconds of each step added to ``times``; the course's
    preprocessors run unchanged, except that ``SaveAutoGrades`` writes the same scores in one
    transaction per notebook (:class:`grader.grading.preprocessors.batched_save_autogrades.BatchedSaveAutoGrades`)."""

    times: dict = {}  # set per instance to a dict from new_times()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.autograde_preprocessors = [BatchedSaveAutoGrades if p is SaveAutoGrades else p
                                        for p in self.autograde_preprocessors]

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        started = time.perf_counter()
        try:
            super().init_assignment(assignment_id, student_id)
        finally:
            self.times["gradebook"] += time.perf_counter() - started

    def _init_preprocessors(self) -> None:
        super()._init_preprocessors()
        self.exporter._preprocessors = [
            _TimedPreprocessor(p, _CATEGORY_OF_PREPROCESSOR.get(type(p).__name__, "nbconvert"), self.times)
            for p in self.exporter._preprocessors]


def new_times() -> defaultdict:
    return defaultdict(float)


def settle(times: dict, total: float) -> dict[str, float]:
    """Every category in seconds: the execute preprocessor's time less its cells is ``kernel``,
    and what no step accounts for (total - the rest) goes to ``nbconvert``."""
    out = {name: float(times.get(name, 0.0)) for name in CATEGORIES}
    out["kernel"] = max(0.0, out["kernel"] - out["cells"])
    accounted = sum(out[name] for name in CATEGORIES if name != "nbconvert")
    out["nbconvert"] = max(0.0, total - accounted)
    return out
