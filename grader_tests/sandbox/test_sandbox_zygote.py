"""Kernels forked from the zygote: a fresh, sandboxed kernel that inherits nothing of the course.

Each test runs real notebooks through SandboxedExecute (which forks from the zygote by default)
and compares with what a kernel started by exec sees.
"""
from __future__ import annotations

import json
import os

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.sandbox import SandboxedExecute, layers, zygote

MISSING_LAYERS = layers.detect_layers().missing
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(bool(MISSING_LAYERS) or os.geteuid() != 0,
                                 reason=f"needs root and every sandbox layer: {MISSING_LAYERS}")]
KERNEL_METADATA = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
INSPECT = """
import json, os, sys
print(json.dumps({
    "pid": os.getpid(), "uid": os.getuid(), "env": sorted(os.environ),
    "modules": sorted(m for m in sys.modules if m.split('.')[0] in ('grader', 'solutions', 'nbgrader')),
    "fds": len(os.listdir('/proc/self/fd')), "random": __import__('numpy').random.rand(),
    "main": sys.modules['__main__'].__name__, "path0": sys.path[0],
}))
"""


def inspect_kernel(workdir, fork: bool) -> dict:
    notebook = new_notebook(cells=[new_code_cell(INSPECT)], metadata=KERNEL_METADATA)
    executor = SandboxedExecute()
    executor.config.SandboxedKernelManager.fork_from_zygote = fork
    executor.preprocess(notebook, {"metadata": {"path": str(workdir)}})
    text = "".join(o.get("text", "") for o in notebook.cells[0].outputs)
    return json.loads(text.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("work")
    return {"exec": inspect_kernel(workdir, fork=False), "fork": inspect_kernel(workdir, fork=True),
            "fork_again": inspect_kernel(workdir, fork=True)}


def test_forked_kernel_is_pid_2_of_its_own_namespace_as_an_unprivileged_user(kernels):
    assert kernels["fork"]["pid"] == kernels["exec"]["pid"] == 2
    assert kernels["fork"]["uid"] != 0


def test_forked_kernel_has_exactly_the_environment_of_an_exec_kernel(kernels):
    assert kernels["fork"]["env"] == kernels["exec"]["env"]
    assert "MPLCONFIGDIR" not in kernels["fork"]["env"]


def test_forked_kernel_has_no_grading_module_loaded(kernels):
    assert kernels["fork"]["modules"] == []


def test_forked_kernel_opens_no_more_descriptors_than_an_exec_kernel(kernels):
    assert kernels["fork"]["fds"] <= kernels["exec"]["fds"]


def test_forked_kernel_looks_like_python_m_ipykernel_launcher(kernels):
    assert kernels["fork"]["main"] == kernels["exec"]["main"] == "__main__"
    assert kernels["fork"]["path0"] == kernels["exec"]["path0"]


def test_each_forked_kernel_has_its_own_numpy_random_state(kernels):
    assert kernels["fork"]["random"] != kernels["fork_again"]["random"]


def test_zygote_holds_only_its_socket_to_the_grading_process(kernels):
    for process in zygote._zygotes.values():
        fds = os.listdir(f"/proc/{process.process.pid}/fd")
        targets = [os.readlink(f"/proc/{process.process.pid}/fd/{fd}") for fd in fds if int(fd) > 2]
        assert len(targets) == 1 and targets[0].startswith("socket:")
    assert zygote._zygotes, "the forked kernels should have started a zygote"


def test_zygote_has_not_imported_the_course(kernels):
    for process in zygote._zygotes.values():
        with open(f"/proc/{process.process.pid}/maps") as maps:
            mapped = maps.read()
        assert "/solutions/" not in mapped and "gradebook" not in mapped
        with open(f"/proc/{process.process.pid}/cmdline", "rb") as cmdline:
            assert b"zygote.py" in cmdline.read()
