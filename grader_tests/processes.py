"""What a process has started, read from ``/proc`` (Linux): its children, and its kernel zygotes."""
from __future__ import annotations

from pathlib import Path

from grader.sandbox.zygote import ZYGOTE_SCRIPT


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s child processes ([] once it is gone)."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def is_zygote(pid: int) -> bool:
    """Whether ``pid`` runs a kernel zygote (``grader.sandbox.zygote``)."""
    try:
        return ZYGOTE_SCRIPT.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False


def zygote_children(pid: int) -> list[int]:
    """The kernel zygotes among ``pid``'s child processes."""
    return [child for child in children(pid) if is_zygote(child)]
