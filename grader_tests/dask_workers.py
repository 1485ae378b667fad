"""Finding the Dask worker process that runs a given task, for the tests that kill it mid-task."""
from __future__ import annotations

import os
import time

WAIT = 600  # seconds: a generous bound for anything a loaded machine may take


def pid_of_worker_running(client, key_prefix: str, wait: float = WAIT) -> int:
    """The pid of the worker process running the task whose key starts with ``key_prefix``."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for worker, keys in client.processing().items():
            if any(str(key).startswith(key_prefix) for key in keys):
                return client.run(os.getpid, workers=[worker])[worker]
        time.sleep(0.05)
    raise AssertionError(f"no task {key_prefix}... reached a worker within {wait} s")
