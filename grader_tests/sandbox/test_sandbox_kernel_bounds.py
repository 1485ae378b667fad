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


def outputs_text(cell):
    return "".join(o.get("text", "") for o in cell.outputs)


def test_memory_held_across_processes_is_bounded_for_the_whole_tree(tmp_path):
    source = ("import os, time\n"
              "pids = []\n"
              "for _ in range(4):\n"
              "    pid = os.fork()\n"
              "    if pid == 0:\n"
              "        block = bytearray(200 * 2**20)\n"
              "        for i in range(0, len(block), 4096): block[i] = 1\n"
              "        time.sleep(3); os._exit(0)\n"
              "    pids.append(pid)\n"
              "killed = sum(os.WIFSIGNALED(os.waitpid(p, 0)[1]) for p in pids)\n"
              "print('killed', killed)\n")
    [cell] = execute([source], tmp_path, tree_memory_limit=512 * 2**20)
    assert outputs_text(cell).startswith("killed ") and int(outputs_text(cell).split()[1]) >= 1


def test_forks_in_new_sessions_are_bounded_for_the_whole_tree(tmp_path):
    source = ("import os, time\n"
              "made = 0\n"
              "try:\n"
              "    for _ in range(200):\n"
              "        if os.fork() == 0:\n"
              "            os.setsid(); time.sleep(30); os._exit(0)\n"
              "        made += 1\n"
              "except OSError:\n"
              "    pass\n"
              "print(made)\n")
    [cell] = execute([source], tmp_path, tree_process_limit=40, max_processes=None)
    assert int(outputs_text(cell)) < 40


def test_working_folder_holds_a_bounded_number_of_bytes_and_files(tmp_path):
    source = ("import os\n"
              "for n in range(10):\n"
              "    try:\n"
              "        with open(f'big{n}', 'wb') as f: f.write(bytes(4 * 2**20))\n"
              "    except OSError as e: print('bytes', e.errno); break\n"
              "for n in range(1000):\n"
              "    try: open(f'empty{n}', 'w').close()\n"
              "    except OSError as e: print('files', e.errno); break\n")
    [cell] = execute([source], tmp_path, workdir_size_limit=16 * 2**20, workdir_file_limit=200)
    assert outputs_text(cell) == "bytes 28\nfiles 28\n"  # ENOSPC both times
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) <= 200 and sum(p.stat().st_size for p in files) <= 16 * 2**20


def test_a_message_past_the_size_limit_stops_the_kernel_instead_of_being_read(tmp_path):
    from grader.sandbox import SandboxedExecute

    source = ("from comm import create_comm\n"
              "create_comm(target_name='x', data={'blob': 'x' * 8 * 2**20})\n")
    executor = SandboxedExecute(max_message_bytes=4 * 2**20)
    cells = execute([source, "print('after')"], tmp_path, executor=executor)
    assert [name for name, _ in errors(cells[0])] == ["OutputLimitExceeded"]
    assert executor.dropped_comm_messages == 0  # never read
    assert errors(cells[1])[0][0] == "DeadKernelError"


def test_the_kernel_runs_in_its_sandbox_s_control_group(tmp_path):
    [cell] = execute(["print(open('/proc/self/cgroup').read())"], tmp_path)
    from grader.sandbox.cgroups import support

    lines = dict(line.split(":", 2)[1:] for line in outputs_text(cell).splitlines() if line.count(":") >= 2)
    controllers = ("memory", "pids", "cpu") if support().version == 1 else ("",)
    assert all("/sal-" in lines[controller] for controller in controllers)


# ---- the notebook's output limit ----------------------------------------------------------------

def _run_notebook(cells, workdir, **options):
    """Run ``cells`` (NotebookNode code cells, metadata as given) in a sandboxed kernel."""
    from nbformat.v4 import new_notebook
    from test_sandbox_kernel_failures import KERNEL_METADATA

    from grader.sandbox import SandboxedExecute

    executor = SandboxedExecute(**options)
    notebook = new_notebook(cells=cells, metadata=KERNEL_METADATA)
    executor.preprocess(notebook, {"metadata": {"path": str(workdir)}})
    return notebook, executor


PRINT_ONE_MIB = "print('x' * (2**20 - 100))"


def test_output_past_the_notebook_limit_is_removed_with_a_note_in_each_cell_that_lost_some(tmp_path):
    from nbformat.v4 import new_code_cell

    nb, executor = _run_notebook([new_code_cell(PRINT_ONE_MIB) for _ in range(6)], tmp_path,
                                 max_notebook_output_bytes=3 * 2**20)
    kept = [len(outputs_text(cell)) for cell in nb.cells]
    assert kept[:3] == [2**20 - 99] * 3 and kept[3:] == [0, 0, 0]
    note = "output limit of 3 MiB for the whole notebook reached; later output removed"
    assert [errors(cell) for cell in nb.cells[3:]] == [[("OutputLimitExceeded", note)]] * 3
    assert executor.notebook_limit_note() == note


def test_a_hidden_check_s_report_is_kept_after_the_notebook_limit_is_spent(tmp_path):
    from nbformat.v4 import new_code_cell

    from grader.grading.probe_cells import METADATA_KEY
    from grader.kernel_side import PROBE_MIME

    report = (f"from IPython.display import display\nprint('late print')\n"
              f"display({{{PROBE_MIME!r}: '{{\"check\": \"softmax\"}}'}}, raw=True)\n")
    probe = new_code_cell(report, metadata={METADATA_KEY: {"check": "softmax"}})
    ordinary = new_code_cell(report)
    nb, _ = _run_notebook([new_code_cell(PRINT_ONE_MIB) for _ in range(3)] + [probe, ordinary], tmp_path,
                          max_notebook_output_bytes=2 * 2**20)
    reports = [[o.data[PROBE_MIME] for o in cell.outputs if PROBE_MIME in o.get("data", {})]
               for cell in nb.cells[3:]]
    assert reports == [['{"check": "softmax"}'], []]
    assert "late print" not in outputs_text(nb.cells[3])


def test_a_display_id_shared_by_many_outputs_is_charged_for_every_copy_it_rewrites(tmp_path):
    from nbformat.v4 import new_code_cell

    shown = new_code_cell("from IPython.display import display\nfor _ in range(200):\n"
                          "    display('.', display_id='d')\n")
    rewrite = new_code_cell("from IPython.display import update_display\n"
                            "update_display('y' * 100_000, display_id='d')\n")
    nb, _ = _run_notebook([shown, rewrite], tmp_path, max_notebook_output_bytes=4 * 2**20)
    stored = sum(len(str(o.get("data", {}))) for cell in nb.cells for o in cell.outputs)
    assert stored < 4 * 2**20
    assert [name for name, _ in errors(nb.cells[1])] == ["OutputLimitExceeded"]
