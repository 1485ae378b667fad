"""What a kernel sends is bounded, and the whole notebook has a wall-clock limit."""
from __future__ import annotations

import os
import stat

import pytest

from test_sandbox_kernel_failures import errors, execute, needs_sandbox

pytestmark = [pytest.mark.slow, needs_sandbox]

COMM_FLOOD = '''
from ipykernel.comm import Comm
for _ in range(5):
    Comm(target_name="jupyter.widget", data={"state": {"_model_name": "X", "blob": "x" * 2**20}})
'''


def test_comm_messages_are_dropped_and_no_widget_state_is_written(tmp_path):
    from grader.sandbox import SandboxedExecute

    executor = SandboxedExecute()
    cells = execute([COMM_FLOOD, "print('after')"], tmp_path, executor=executor)
    assert executor.dropped_comm_messages >= 5
    assert "widgets" not in executor.nb.metadata
    assert "".join(o.get("text", "") for o in cells[1].outputs) == "after\n"


def test_display_updates_count_against_the_output_limit(tmp_path):
    source = ("from IPython.display import display, update_display\n"
              "display('x', display_id='d')\n"
              "for _ in range(40):\n"
              "    update_display('y' * 2**20, display_id='d')\n")
    [cell] = execute([source], tmp_path, max_output_bytes=4 * 2**20)
    assert [name for name, _ in errors(cell)] == ["OutputLimitExceeded"]
    assert sum(len(str(o.get("data", {}))) for o in cell.outputs) < 8 * 2**20


def test_notebook_past_its_wall_clock_limit_is_stopped_with_a_clear_error(tmp_path):
    sleep = "import time\ntime.sleep(4)"
    cells = execute([sleep] * 5 + ["print('never')"], tmp_path, timeout=30, notebook_timeout=9)
    names = [name for cell in cells for name, _ in errors(cell)]
    assert "NotebookTimeoutError" in names
    assert errors(cells[-1])[0][0] == "DeadKernelError" and "ran out of its 9 s" in errors(cells[-1])[0][1]


def test_folders_a_kernel_makes_world_writable_or_setgid_are_made_safe(tmp_path):
    source = ("import os\n"
              "os.mkdir('open'); os.chmod('open', 0o777)\n"
              "os.mkdir('sgid'); os.chmod('sgid', 0o2777)\n"
              "open('f', 'w').close(); os.chmod('f', 0o4777)\n")
    execute([source], tmp_path)
    modes = {name: stat.S_IMODE(os.lstat(tmp_path / name).st_mode) for name in ("open", "sgid", "f")}
    assert all(mode & 0o7002 == 0 for mode in modes.values()), {k: oct(v) for k, v in modes.items()}
    assert {os.lstat(tmp_path / name).st_uid for name in modes} == {os.getuid()}
