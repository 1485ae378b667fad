"""The service's workers are warm before the first hand-in lands: every worker has started its
kernel zygote and run one sandboxed kernel, so the first student's feedback is as quick as the next."""
from __future__ import annotations

import gc
import json
import logging
import os
import shutil
import subprocess
import sys
import time

import pytest

from grader.course import Course
from grader.sandbox import layers
from grader.service.grading import warm_up
from grader.service.watch import GradingLoop
from grader_tests.checkout import ASSIGNMENTS, create_course
from grader_tests.processes import zygote_children

MISSING_LAYERS = layers.detect_layers().missing
needs_sandbox = pytest.mark.skipif(bool(MISSING_LAYERS) or os.geteuid() != 0,
                                   reason=f"needs root and every sandbox layer: {MISSING_LAYERS}")
pytestmark = [pytest.mark.slow]

# In a process of its own: warm up, then grade a notebook as the course's pipeline runs it, and
# say which zygotes existed after each.
FIRST_GRADING = """
import gc, json, sys, tempfile
from nbformat.v4 import new_code_cell, new_notebook
from grader.course import Course, load_config
from grader.sandbox import SandboxedExecute, zygote
from grader.service.grading import warm_up
course = Course(sys.argv[1])
warm_up(str(course.root))
frozen = gc.get_freeze_count()
after_warm_up = {str(key): z.process.pid for key, z in zygote._zygotes.items() if z.alive()}
notebook = new_notebook(cells=[new_code_cell("print(6 * 7)")],
                        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
with tempfile.TemporaryDirectory() as folder:
    SandboxedExecute(config=load_config(course), course_root=str(course.root)).preprocess(
        notebook, {"metadata": {"path": folder}})
after_grading = {str(key): z.process.pid for key, z in zygote._zygotes.items() if z.alive()}
print(json.dumps({"warm": after_warm_up, "graded": after_grading, "frozen": frozen,
                  "output": notebook.cells[0].outputs[0].get("text", "")}))
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return create_course(tmp_path_factory.mktemp("warm") / "course")


@pytest.fixture(scope="module")
def first_grading(course) -> dict:
    """What FIRST_GRADING saw, in a process of its own."""
    result = subprocess.run([sys.executable, "-c", FIRST_GRADING, str(course.root)], capture_output=True,
                            text=True, timeout=300, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


@needs_sandbox
def test_a_warmed_up_worker_grades_its_first_notebook_with_the_zygote_the_warm_up_started(first_grading):
    seen = first_grading
    assert seen["output"].strip() == "42"
    assert len(seen["warm"]) == 1, "the warm-up starts one zygote"
    assert seen["graded"] == seen["warm"], "the first grading forked from it instead of starting another"


@needs_sandbox
def test_what_the_warm_up_loaded_is_kept_out_of_later_garbage_collections(first_grading):
    assert first_grading["frozen"] > 10_000  # the imports, the compiled templates, the checks


# In a process of its own: rehearse the pages, then grade and write the page of one hand-in.
REHEARSAL = """
import json, sys
from pathlib import Path
from nbgrader.api import Gradebook
from grader.course import Course
from grader.grading import nbgrader_apps
from grader.grading.grade_one import grade_one
from grader.pages.exporter import _highlighted
course = Course(Path(sys.argv[1]))
before = sorted((str(p), p.stat().st_mtime_ns) for p in course.root.rglob("*"))
app = nbgrader_apps.warm_feedback_app(course)
rendered = app.rehearse(course)
seen = {"rendered": rendered, "highlighted": len(_highlighted.cache),
        "changed": before != sorted((str(p), p.stat().st_mtime_ns) for p in course.root.rglob("*"))}
with Gradebook(course.db_url) as gradebook:
    seen["students"] = [student.id for student in gradebook.students]
if sys.argv[2:] == ["grade"]:  # grading needs the sandbox
    path = course.submitted_notebook("ada", "02_softmax")
    path.parent.mkdir(parents=True)
    path.write_text(sys.stdin.read())
    seen["graded"] = grade_one(str(course.root), "02_softmax", "ada").graded
    seen["page_written"] = nbgrader_apps.generate_feedback_warm(course, "02_softmax", "ada")["success"]
    seen["page"] = course.feedback_page("ada", "02_softmax").read_text(encoding="utf-8")
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def rehearsed(released_course_template, tmp_path_factory) -> dict:
    """What REHEARSAL saw in a copy of the released course (where the sandbox works, with the model
    answer of 02_softmax handed in and graded after the rehearsal)."""
    import nbformat

    from grader.demo.corpus import build_notebook, get_submission

    root = tmp_path_factory.mktemp("rehearsal") / "course"
    shutil.copytree(released_course_template.root, root)
    course = Course(root)
    model = nbformat.writes(build_notebook(
        get_submission("02_softmax", "model_answer"), nbformat.read(course.release_notebook("02_softmax"), 4),
        nbformat.read(course.source_notebook("02_softmax"), 4)))
    grade = [] if MISSING_LAYERS or os.geteuid() != 0 else ["grade"]
    result = subprocess.run([sys.executable, "-c", REHEARSAL, str(root), *grade], input=model,
                            capture_output=True, text=True, timeout=600, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_warm_feedback_app_renders_a_page_of_every_released_notebook_in_memory(rehearsed):
    assert rehearsed["rendered"] == len(ASSIGNMENTS)
    assert rehearsed["highlighted"] > 4 * len(ASSIGNMENTS), "the code of the released notebooks is highlighted"
    assert not rehearsed["changed"], "the rehearsal wrote nothing into the course"
    assert rehearsed["students"] == [], "nor into its gradebook"


@needs_sandbox
def test_a_page_written_after_the_rehearsal_carries_its_score(rehearsed):
    assert rehearsed["graded"] and rehearsed["page_written"]
    assert "Feedback on 02_softmax: 21 / 21" in rehearsed["page"]


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


@pytest.fixture
def unfrozen():
    """The test process's objects go back to the garbage collector after a warm-up froze them."""
    yield
    gc.unfreeze()


def test_a_worker_whose_warm_up_fails_says_so_and_goes_on(tmp_path, caplog, unfrozen):
    not_a_course = tmp_path / "empty"
    not_a_course.mkdir()
    with caplog.at_level(logging.WARNING, logger="grader.service.grading"):
        warm_up(str(not_a_course))
    assert "warming up a grading worker failed (the sandboxed kernel)" in caplog.text


def test_a_warm_up_whose_pages_fail_still_starts_the_kernel_zygote(course, monkeypatch, unfrozen):
    from grader.grading import nbgrader_apps

    started = []
    monkeypatch.setattr(nbgrader_apps._WarmGenerateFeedback, "rehearse",
                        lambda self, course: (_ for _ in ()).throw(ValueError("a broken release")))
    monkeypatch.setattr("grader.service.grading.warm_sandboxed_kernel", lambda *args: started.append(args))
    warm_up(str(course.root))
    assert len(started) == 1
