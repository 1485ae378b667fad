"""Build an expensive test fixture once per pytest run, shared by every pytest-xdist worker."""
from __future__ import annotations

import fcntl
import json
import shutil
from pathlib import Path
from typing import Callable


def built_once(tmp_path_factory, request, name: str, build: Callable[[Path], dict]) -> tuple[Path, dict]:
    """(folder, summary) of ``build(folder)``, run by whichever worker comes first.

    The summary (JSON-safe) is kept beside the folder; the other workers wait on a lock and read it.
    A folder left by a run that broke off half-way is removed before building again.
    """
    shared = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # an xdist worker: its base folder is one per worker
        shared = shared.parent
    root, summary = shared / name, shared / f"{name}.json"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not summary.exists():
            shutil.rmtree(root, ignore_errors=True)
            summary.write_text(json.dumps(build(root)), encoding="utf-8")
    return root, json.loads(summary.read_text(encoding="utf-8"))
