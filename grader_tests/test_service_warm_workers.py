"""The service's workers are warm before the first hand-in lands: every worker has started its
kernel zygote and run one sandboxed kernel, so the first student's feedback is as quick as the next."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time

import pytest

from grader.course import create_course
from grader.sandbox import layers
from grader.service.grading import warm_up
from grader.service.watch import GradingLoop
from grader_tests.processes import zygote_children

MISSING_LAYERS = layers.detect_layers().missing
needs_sandbox = pytest.mark.skipif(bool(MISSING_LAYERS) or os.geteuid() != 0,
                                   reason=f"needs root and every sandbox layer: {MISSING_LAYERS}")
pytestmark = [pytest.mark.slow]

# In a process of its own: warm up, then grade a notebook as the course's pipeline runs it, and
# say which zygotes existed after each.
FIRST_GRADING = """
import json, sys, tempfile
from nbformat.v4 import new_code_cell, new_notebook
from grader.course import Course, load_config
from grader.sandbox import SandboxedExecute, zygote
from grader.service.grading import warm_up
course = Course(sys.argv[1])
warm_up(str(course.root))
after_warm_up = {str(key): z.process.pid for key, z in zygote._zygotes.items() if z.alive()}
notebook = new_notebook(cells=[new_code_cell("print(6 * 7)")],
                        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
with tempfile.TemporaryDirectory() as folder:
    SandboxedExecute(config=load_config(course), course_root=str(course.root)).preprocess(
        notebook, {"metadata": {"path": folder}})
after_grading = {str(key): z.process.pid for key, z in zygote._zygotes.items() if z.alive()}
print(json.dumps({"warm": after_warm_up, "graded": after_grading,
                  "output": notebook.cells[0].outputs[0].get("text", "")}))
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return create_course(tmp_path_factory.mktemp("warm") / "course")


@needs_sandbox
def test_a_warmed_up_worker_grades_its_first_notebook_with_the_zygote_the_warm_up_started(course):
    result = subprocess.run([sys.executable, "-c", FIRST_GRADING, str(course.root)], capture_output=True,
                            text=True, timeout=300, check=True)
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["output"].strip() == "42"
    assert len(seen["warm"]) == 1, "the warm-up starts one zygote"
    assert seen["graded"] == seen["warm"], "the first grading forked from it instead of starting another"


@needs_sandbox
def test_every_local_worker_of_the_service_has_its_zygote_before_any_hand_in(course, monkeypatch, tmp_path):
    monkeypatch.setenv("GRADER_EXCHANGE_ROOT", str(tmp_path / "exchange"))
    service = GradingLoop(course, workers=2)
    service._pool = service._new_pool()
    try:
        service._warm_workers()
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            workers = list(service._pool._processes)
            if len(workers) == 2 and all(zygote_children(pid) for pid in workers):
                break
            time.sleep(0.5)
        workers = list(service._pool._processes)
        assert len(workers) == 2, "both workers are started before the first hand-in"
        assert all(len(zygote_children(pid)) == 1 for pid in workers), "each worker warmed its own zygote once"
    finally:
        service._pool.shutdown(wait=True)


def test_a_worker_whose_warm_up_fails_says_so_and_goes_on(tmp_path, caplog):
    not_a_course = tmp_path / "empty"
    not_a_course.mkdir()
    with caplog.at_level(logging.WARNING, logger="grader.service.grading"):
        warm_up(str(not_a_course))
    assert "warming up a grading worker failed" in caplog.text
