"""The test accounts' prefix avoids every account the machine already has, even when each run
gets the same random bytes."""
from __future__ import annotations

import grp
import os
import pwd
import subprocess

import pytest

from grader.service.student import temporary_accounts
from grader_tests import account_prefix
from grader_tests.account_prefix import unused_account_prefix


def _same_bytes_every_run(monkeypatch):
    monkeypatch.setattr(account_prefix.os, "urandom", lambda size: b"\0" * size)
    monkeypatch.setattr(account_prefix.time, "time_ns", lambda: 0)
    monkeypatch.setattr(account_prefix.os, "getpid", lambda: 1)


def _accounts(monkeypatch, names):
    template = pwd.getpwuid(0)
    monkeypatch.setattr(account_prefix.pwd, "getpwall",
                        lambda: [pwd.struct_passwd((name, *template[1:])) for name in names])


def test_the_prefix_is_the_lead_and_hex_digits(monkeypatch):
    _accounts(monkeypatch, [])
    prefix = unused_account_prefix("sal", digits=6)
    assert prefix.startswith("sal") and len(prefix) == 9
    int(prefix[3:], 16)


def test_a_prefix_an_earlier_run_left_accounts_under_is_not_taken_again(monkeypatch):
    _same_bytes_every_run(monkeypatch)
    _accounts(monkeypatch, [])
    first = unused_account_prefix("h")
    _accounts(monkeypatch, [f"{first}-instructor", f"{first}-s1"])
    second = unused_account_prefix("h")
    assert second != first and second.startswith("h")


def test_a_machine_whose_every_prefix_is_taken_is_named_in_the_error(monkeypatch):
    _same_bytes_every_run(monkeypatch)
    monkeypatch.setattr(account_prefix, "ATTEMPTS", 1)
    _accounts(monkeypatch, [])
    taken = unused_account_prefix("h")
    _accounts(monkeypatch, [f"{taken}-instructor"])
    with pytest.raises(RuntimeError, match="no unused account prefix h"):
        unused_account_prefix("h")


@pytest.mark.skipif(os.geteuid() != 0, reason="makes a Unix account: root only")
def test_a_group_left_behind_under_an_accounts_name_becomes_the_new_accounts_group():
    prefix = unused_account_prefix("g")
    subprocess.run(["groupadd", f"{prefix}left"], check=True, capture_output=True)
    try:
        with temporary_accounts(["left"], prefix=prefix) as accounts:
            account = pwd.getpwnam(accounts["left"])
            assert account.pw_gid == grp.getgrnam(f"{prefix}left").gr_gid
    finally:
        subprocess.run(["groupdel", f"{prefix}left"], capture_output=True)
