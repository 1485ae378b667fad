"""Grading workers end with the process that started them, whether it is killed or simply exits."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

PARENT = textwrap.dedent("""
    import concurrent.futures as cf, multiprocessing, os, sys, time
    from grader.scheduling.worker_lifetime import die_with_parent

    def pid_after_a_while():
        time.sleep(0.5)
        return os.getpid()

    if __name__ == "__main__":
        pool = cf.ProcessPoolExecutor(max_workers=2, initializer=die_with_parent,
                                      mp_context=multiprocessing.get_context("spawn"))
        print(*sorted({f.result() for f in [pool.submit(pid_after_a_while) for _ in range(4)]}), flush=True)
        if sys.argv[1] == "exit":
            os._exit(0)  # no pool shutdown: only the workers' own arrangements can end them
        time.sleep(600)
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except OSError:
        return False


def _workers_of_a_parent_that(ends: str, tmp_path) -> list[int]:
    script = tmp_path / "parent.py"
    script.write_text(PARENT, encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script), ends], stdout=subprocess.PIPE, text=True)
    workers = [int(pid) for pid in parent.stdout.readline().split()]
    if ends == "killed":
        parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=60)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in workers if _alive(pid)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("ends", ["killed", "exit"])
def test_pool_workers_end_with_their_parent(tmp_path, ends):
    survivors = _workers_of_a_parent_that(ends, tmp_path)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == []


def test_a_worker_whose_parent_died_while_it_started_exits_at_once(tmp_path):
    script = tmp_path / "orphan.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing, os, sys, time
        from grader.scheduling.worker_lifetime import die_with_parent

        def child(ready):
            started_by = multiprocessing.parent_process().pid
            ready.wait()
            while os.getppid() == started_by:  # the parent is gone before the initializer runs
                time.sleep(0.01)
            die_with_parent()
            time.sleep(600)

        if __name__ == "__main__":
            context = multiprocessing.get_context("spawn")
            ready = context.Event()
            process = context.Process(target=child, args=(ready,))
            process.start()
            print(process.pid, flush=True)
            ready.set()
            os._exit(0)
    """), encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    parent.wait(timeout=60)
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    survived = _alive(child)
    if survived:
        os.kill(child, signal.SIGKILL)
    assert not survived


EXITING = textwrap.dedent("""
    import atexit, sys
    from grader.scheduling.worker_lifetime import exit_without_collecting

    class Cycle:
        # What __del__ needs, kept here: the exit's last collection comes after builtins are gone.
        mark, opener = sys.argv[1] + "/collected", open

        def __del__(self):
            self.opener(self.mark, "w").close()

    def garbage_only_a_collection_frees():
        cycle = Cycle()
        cycle.itself = cycle

    exit_without_collecting()
    atexit.register(lambda: open(sys.argv[1] + "/exit-handler-ran", "w").close())
    garbage_only_a_collection_frees()
""")


def _exited(tmp_path) -> set[str]:
    script = tmp_path / "exiting.py"
    script.write_text(EXITING, encoding="utf-8")
    marks = tmp_path / "marks"
    marks.mkdir()
    assert subprocess.run([sys.executable, str(script), str(marks)], timeout=60).returncode == 0
    return {path.name for path in marks.iterdir()}


def test_a_worker_leaves_what_it_holds_at_exit_out_of_the_last_collections(tmp_path):
    assert "collected" not in _exited(tmp_path)


def test_a_worker_that_exits_without_collecting_still_runs_its_exit_handlers(tmp_path):
    assert "exit-handler-ran" in _exited(tmp_path)
