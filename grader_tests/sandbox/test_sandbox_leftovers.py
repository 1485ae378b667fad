"""A grading process killed with SIGKILL leaves nothing behind once the next run has started."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest
from test_sandbox_kernel_failures import needs_sandbox

from grader.sandbox import leftovers
from grader.sandbox.launcher import all_pids

pytestmark = [pytest.mark.slow, needs_sandbox]

GRADER = textwrap.dedent('''
    import sys
    from nbformat.v4 import new_code_cell, new_notebook
    from grader.sandbox import SandboxedExecute
    nb = new_notebook(cells=[new_code_cell(
        "import os\\nos.mkdir('open'); os.chmod('open', 0o2777)\\n"
        "open('ready', 'w').close()\\nimport time\\ntime.sleep(600)")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    SandboxedExecute(timeout=900).preprocess(nb, {"metadata": {"path": sys.argv[1]}})
''')


def run_folders() -> set[str]:
    tmp = tempfile.gettempdir()
    return {os.path.join(tmp, n) for n in os.listdir(tmp) if n.startswith(leftovers.RUN_PREFIX)}


def uid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            return int(next(line for line in status if line.startswith("Uid:")).split()[1])
    except (OSError, StopIteration):
        return None


@pytest.fixture(scope="module")
def killed_grader(tmp_path_factory):
    """A grading process SIGKILLed while its kernel runs; returns (run folder, record, workdir)."""
    workdir = tmp_path_factory.mktemp("killed-grader")
    before = run_folders()
    grader = subprocess.Popen([sys.executable, "-c", GRADER, str(workdir)])
    deadline = time.monotonic() + 120
    record = run_dir = None
    while time.monotonic() < deadline and record is None:
        for folder in run_folders() - before:
            quota = os.path.join(folder, "work-quota")
            if os.path.exists(os.path.join(quota, "ready")):
                run_dir, record = folder, leftovers._read_record(folder)
        time.sleep(0.2)
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    assert record is not None, "the kernel never started"
    return run_dir, record, workdir


def test_leftovers_exist_right_after_the_kill(killed_grader):
    run_dir, record, _ = killed_grader
    assert os.path.isdir(run_dir) or not os.path.exists(run_dir)  # the launcher may not notice at once
    assert record["uid"] is not None and record["cgroup"] is not None


def sweep_until_gone(run_dir: str, seconds: float = 30) -> None:
    """:func:`leftovers.sweep` until ``run_dir`` is gone or ``seconds`` pass: a grader of another
    test worker, sweeping at its first sandbox, may hold the folder's lock while it reclaims it."""
    deadline = time.monotonic() + seconds
    leftovers.sweep()
    while os.path.exists(run_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
        leftovers.sweep()


def test_next_run_removes_run_folder_control_group_and_processes(killed_grader):
    run_dir, record, workdir = killed_grader
    sweep_until_gone(run_dir)
    assert not os.path.exists(run_dir)
    assert [p for p in record["cgroup"]["paths"].values() if os.path.isdir(p)] == []
    assert [pid for pid in all_pids() if uid_of(pid) == record["uid"]] == []


def test_next_run_gives_files_of_the_sandbox_uid_back_with_safe_modes(killed_grader):
    run_dir, record, workdir = killed_grader
    sweep_until_gone(run_dir)
    owned = [p for p in workdir.rglob("*") if p.lstat().st_uid == record["uid"]]
    assert owned == []
