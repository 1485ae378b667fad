"""How SandboxedExecute reports kernels that die or hang, and that kernels are single-use.

Every notebook here runs in a real sandboxed kernel with short timeouts; a failure of the
kernel must end up as error outputs in the graded notebook, never as a crash of the grader
and never as a test cell that passes because it did not run.
"""
from __future__ import annotations

import os
import uuid

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.sandbox import SandboxedExecute, SandboxError, layers
from grader.sandbox.launcher import LAUNCHER_NAME, all_pids, processes_with_marker

MISSING_LAYERS = layers.detect_layers().missing
needs_sandbox = pytest.mark.skipif(bool(MISSING_LAYERS), reason=f"sandbox layers "
                                   f"unavailable here: {MISSING_LAYERS}")
KERNEL_METADATA = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                  "language": "python"}}
IGNORE_INTERRUPTS = ("import signal\n"
                     "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                     "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n")


def execute(sources, workdir, executor=None, **options):
    """Run code cells in a sandboxed kernel with ``workdir`` as its folder; returns the cells."""
    notebook = new_notebook(cells=[new_code_cell(source) for source in sources],
                            metadata=KERNEL_METADATA)
    executor = executor or SandboxedExecute(**options)
    executor.preprocess(notebook, {"metadata": {"path": str(workdir)}})
    return notebook.cells


def errors(cell):
    return [(o.ename, o.evalue) for o in cell.outputs if o.output_type == "error"]


def texts(cell):
    return "".join(o.get("text", "") for o in cell.outputs)



def child_launchers() -> list[int]:
    """Sandbox launchers (and their unshare parents) started by this test process."""
    found = []
    for pid in all_pids():
        try:
            with open(f"/proc/{pid}/stat") as stat, open(f"/proc/{pid}/cmdline", "rb") as cmd:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                if parent == os.getpid() and LAUNCHER_NAME.encode() in cmd.read():
                    found.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    return found


@pytest.fixture(scope="module")
def exited_kernel(tmp_path_factory):
    return execute(["print('before')", "import os\nos._exit(1)", "print('after')"],
                   tmp_path_factory.mktemp("exit"), timeout=30)


@pytest.mark.slow
@needs_sandbox
def test_os_exit_is_a_dead_kernel_error_in_that_cell(exited_kernel):
    [(name, message)] = errors(exited_kernel[1])
    assert name == "DeadKernelError"
    assert "exited with status 1" in message


@pytest.mark.slow
@needs_sandbox
def test_cells_before_a_dead_kernel_keep_their_output(exited_kernel):
    assert texts(exited_kernel[0]) == "before\n"


@pytest.mark.slow
@needs_sandbox
def test_cells_after_a_dead_kernel_are_marked_not_run(exited_kernel):
    [(name, message)] = errors(exited_kernel[2])
    assert name == "DeadKernelError"
    assert message.startswith("not run")
    assert texts(exited_kernel[2]) == ""


@pytest.mark.slow
@needs_sandbox
def test_segfault_is_a_dead_kernel_error_naming_the_signal(tmp_path):
    cells = execute(["import ctypes\nctypes.string_at(0)"], tmp_path, timeout=30)
    [(name, message)] = errors(cells[0])
    assert name == "DeadKernelError"
    assert "SIGSEGV" in message


@pytest.fixture(scope="module")
def hung_kernel(tmp_path_factory):
    marker = f"sandbox-test-child-{uuid.uuid4().hex}"
    child = f"{IGNORE_INTERRUPTS}import time\ntime.sleep(300)\n"
    hang = (f"import subprocess, sys\n"
            f"subprocess.Popen([sys.executable, '-c', {child!r}, {marker!r}])\n"
            f"{IGNORE_INTERRUPTS}while True:\n    pass\n")
    cells = execute([hang, "print('after')"], tmp_path_factory.mktemp("hang"), timeout=2,
                    iopub_timeout=1, interrupt_grace=1)
    return cells, processes_with_marker(marker), child_launchers()


@pytest.mark.slow
@needs_sandbox
def test_cell_ignoring_the_interrupt_ends_with_a_timeout_error(hung_kernel):
    cells, _, _ = hung_kernel
    names = [name for name, _ in errors(cells[0])]
    assert "CellTimeoutError" in names
    assert "DeadKernelError" in names


@pytest.mark.slow
@needs_sandbox
def test_kernel_ignoring_the_interrupt_is_killed_with_its_processes(hung_kernel):
    _, leftover_children, leftover_launchers = hung_kernel
    assert leftover_children == []
    assert leftover_launchers == []


@pytest.mark.slow
@needs_sandbox
def test_cells_after_a_killed_kernel_are_marked_not_run(hung_kernel):
    cells, _, _ = hung_kernel
    [(name, message)] = errors(cells[1])
    assert name == "DeadKernelError"
    assert message.startswith("not run")


@pytest.mark.slow
@needs_sandbox
def test_interrupted_cell_leaves_a_responsive_kernel_running(tmp_path):
    cells = execute(["while True:\n    pass", "print('after')"], tmp_path, timeout=2,
                    iopub_timeout=1, interrupt_grace=1)
    assert "KeyboardInterrupt" in [name for name, _ in errors(cells[0])]
    assert texts(cells[1]) == "after\n"


@pytest.mark.slow
@needs_sandbox
def test_next_notebook_gets_a_fresh_kernel(tmp_path):
    executor = SandboxedExecute(timeout=30)
    execute(["planted = 'from the first notebook'"], tmp_path, executor=executor)
    cells = execute(["print('planted' in globals())"], tmp_path, executor=executor)
    assert texts(cells[0]) == "False\n"


def test_passing_a_kernel_manager_is_refused():
    notebook = new_notebook(cells=[new_code_cell("1")], metadata=KERNEL_METADATA)
    with pytest.raises(ValueError, match="fresh sandboxed kernel"):
        SandboxedExecute().preprocess(notebook, {}, km=object())


def test_required_sandbox_with_a_missing_layer_fails_naming_it(tmp_path, monkeypatch):
    support = layers.LayerSupport(None, {layers.NETWORK: "switched off for this test"})
    monkeypatch.setattr(layers, "detect_layers", lambda: support)
    notebook = new_notebook(cells=[new_code_cell("1")], metadata=KERNEL_METADATA)
    with pytest.raises(SandboxError, match="network isolation: switched off for this test"):
        SandboxedExecute(require_sandbox=True).preprocess(
            notebook, {"metadata": {"path": str(tmp_path)}})
