"""A real Unix account other than root, for tests of what root refuses to trust (root only).

``other_account(lead)`` makes one fresh account (no home, no login shell) and removes it
afterwards; :meth:`OtherAccount.run` runs a command as it, :meth:`OtherAccount.owns` gives it a
path, as if it had made it.
"""
from __future__ import annotations

import os
import pwd
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.service.student import temporary_accounts
from grader_tests.account_prefix import unused_account_prefix


@dataclass(frozen=True)
class OtherAccount:
    name: str
    uid: int
    gid: int

    def owns(self, *paths: Path) -> None:
        """Make ``paths`` this account's (owner and group), links themselves not followed."""
        for path in paths:
            os.lchown(path, self.uid, self.gid)

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None,
            input: str | None = None) -> subprocess.CompletedProcess:
        """Run ``args`` as this account (its uid, its group, no other group)."""
        return subprocess.run(list(args), cwd=cwd, user=self.uid, group=self.gid, extra_groups=[],
                              capture_output=True, text=True, timeout=timeout, input=input,
                              env=env if env is not None else {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})


@contextmanager
def other_account(lead: str) -> Iterator[OtherAccount]:
    """A fresh account named ``lead`` + a few hex digits; without root the test is skipped, except
    under CI (``CI=true``), where it fails."""
    if os.geteuid() != 0:
        reason = "needs root to create a real account with useradd"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    with temporary_accounts(["x"], prefix=unused_account_prefix(lead)) as accounts:
        entry = pwd.getpwnam(accounts["x"])
        yield OtherAccount(entry.pw_name, entry.pw_uid, entry.pw_gid)
