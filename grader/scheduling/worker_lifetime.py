"""Grading worker processes end with the process that started them, however it ends, and end quickly.

A worker left behind by a killed parent would hold its kernel zygote and could race a restarted
grader over the same submission. Two mechanisms, because either alone has been seen to miss:
the kernel's parent-death signal (``PR_SET_PDEATHSIG``, Linux), and a watchdog thread that exits
the worker once its parent is gone (it is re-parented, so ``os.getppid()`` changes).

A worker that has loaded nbgrader spends about 0.4 s of its exit in the garbage collector's passes
over every object it ever imported, and the grading command waits for its workers' exits:
``exit_without_collecting`` leaves those objects out of the last collections (the exit handlers,
the flushing of files and the freeing of memory still happen).
"""
from __future__ import annotations

import atexit
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time

from grader.sandbox.launcher import PR_SET_PDEATHSIG

WATCH_INTERVAL_SECONDS = 0.5


def die_with_parent() -> None:
    """Arrange for this process to end when its parent does; a pool initializer.

    The parent can die while a spawned worker is still starting, before this runs: the worker is
    then already re-parented, and it exits at once instead of waiting for tasks that never come.
    """
    started_by = multiprocessing.parent_process()
    parent = started_by.pid if started_by is not None else os.getppid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_exit_when_orphaned, args=(parent,), name="die-with-parent", daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL_SECONDS)
    os._exit(1)


def exit_without_collecting() -> None:
    """At this process's exit, leave every object alive then out of the garbage collector's last
    passes (``gc.freeze``); a pool initializer. Reference cycles left at exit are then not
    collected, which only skips finalizers Python does not promise to run at exit anyway."""
    atexit.register(gc.freeze)
