"""Per-account budgets on the grading service's own work (``c.GradingService``).

A student can make the service work for them in ways no hand-in's own budget bounds: entries made
in ``inbound/`` faster than they can be read, hand-ins that fill the archive with sparse files,
notebooks that sleep through their wall-clock limit in every assignment at once. Each budget here
counts one such kind of work per account; the loop (``grader.service.watch``) refuses or delays
what is over it, and ``grader doctor`` lists them.
"""
from __future__ import annotations

import os
from collections import defaultdict, deque
from pathlib import Path

HOUR = 3600.0
BLOCK_BYTES = 512  # st_blocks counts 512-byte units on Linux, whatever the file system's block size


class HourlySpending:
    """Seconds spent per account over the last hour (a sliding window)."""

    def __init__(self, window: float = HOUR):
        self.window = window
        self._spent: dict[str, deque[tuple[float, float]]] = defaultdict(deque)

    def add(self, account: str, seconds: float, now: float) -> None:
        self._spent[account].append((now, seconds))

    def spent(self, account: str, now: float) -> float:
        """Seconds ``account`` spent in the window ending at ``now``."""
        spending = self._spent.get(account)
        if not spending:
            return 0.0
        while spending and spending[0][0] < now - self.window:
            spending.popleft()
        return sum(seconds for _, seconds in spending)


def archive_bytes(folder: Path) -> int:
    """Bytes the files under ``folder`` take, each counted by the larger of its apparent size and
    its disk blocks: a sparse file counts whole (it becomes whole when anything copies it), a
    file of small blocks counts its blocks. 0 when the folder does not exist. Links are not
    followed (the archive holds none)."""
    total = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                info = os.lstat(os.path.join(parent, name))
            except FileNotFoundError:
                continue
            total += max(info.st_size, info.st_blocks * BLOCK_BYTES)
    return total


def budgets_summary(policy) -> str:
    """One line naming every per-account budget of ``policy`` (``c.GradingService``), for ``grader doctor``."""
    return (f"per account: {policy.max_inbound_entries_per_pass} new inbound entries a look (more are "
            f"refused together), {policy.max_collect_cpu_seconds_per_hour:g} CPU s an hour reading them, "
            f"{policy.max_archive_megabytes_per_account:g} MB of archive (sparse files counted whole), "
            f"{policy.max_grading_seconds_per_hour:g} s of grading an hour over every assignment; an "
            f"unfinished hand-in folder is refused after {policy.incomplete_handin_seconds:g} s "
            "(c.GradingService)")


def sparse_file_counts_whole(folder: Path, size: int = 1 << 20) -> bool:
    """Probe :func:`archive_bytes` for real: a sparse file of ``size`` bytes made in ``folder`` (an
    empty folder of the file system the archive is on) counts as ``size`` bytes."""
    probe = folder / "sparse-probe"
    with open(probe, "wb") as handle:
        handle.truncate(size)
    try:
        return archive_bytes(folder) >= size
    finally:
        probe.unlink()
