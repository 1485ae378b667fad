"""The per-account budgets' own arithmetic (``grader.service.budgets``), without the service."""
from __future__ import annotations

import os

from grader.service.budgets import HourlySpending, archive_bytes


def test_a_sparse_file_counts_whole_in_the_archive(tmp_path):
    with open(tmp_path / "sparse.bin", "wb") as handle:
        handle.truncate(19_000_000)
    assert os.stat(tmp_path / "sparse.bin").st_blocks * 512 < 1_000_000  # it takes (almost) no disk
    assert archive_bytes(tmp_path) == 19_000_000


def test_a_small_file_counts_by_its_disk_blocks(tmp_path):
    (tmp_path / "one.txt").write_text("x")
    blocks = os.stat(tmp_path / "one.txt").st_blocks * 512
    assert archive_bytes(tmp_path) == max(1, blocks)


def test_the_archive_of_an_account_without_hand_ins_is_empty(tmp_path):
    assert archive_bytes(tmp_path / "nobody") == 0


def test_spending_older_than_an_hour_no_longer_counts():
    spending = HourlySpending()
    spending.add("alice", 30.0, now=1000.0)
    spending.add("alice", 5.0, now=3000.0)
    spending.add("bob", 7.0, now=3000.0)
    assert spending.spent("alice", now=3500.0) == 35.0
    assert spending.spent("alice", now=1000.0 + 3600.0 + 1) == 5.0
    assert spending.spent("carol", now=3500.0) == 0.0
