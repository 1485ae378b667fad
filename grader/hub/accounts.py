"""The hub's Unix accounts: one instructor and N students, each with a random password.

Accounts are made with ``useradd`` (home 0700 under the hub's ``home/``) and given a password with
``chpasswd``; the passwords exist only in the hub's root-only ``state/accounts.json`` (0600), which
the instructor reads to hand them out. PAM checks them at login, as for any account on the machine.
"""
from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.hub.layout import HubLayout

PASSWORD_BYTES = 18
#: Where the account tools live when PATH leaves out the sbin folders.
SBIN = "/usr/local/sbin:/usr/sbin:/sbin"


def _tool(name: str) -> str:
    return shutil.which(name) or shutil.which(name, path=SBIN) or name


@dataclass(frozen=True)
class Account:
    name: str
    password: str
    home: str


@dataclass(frozen=True)
class Accounts:
    instructor: Account
    students: tuple[Account, ...]

    @property
    def all(self) -> tuple[Account, ...]:
        return (self.instructor, *self.students)

    def save(self, path: Path) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump({"instructor": asdict(self.instructor), "students": [asdict(s) for s in self.students]},
                      handle, indent=1)

    @classmethod
    def load(cls, path: Path) -> "Accounts":
        data = json.loads(path.read_text())
        return cls(Account(**data["instructor"]), tuple(Account(**s) for s in data["students"]))


def account_names(prefix: str, students: int) -> tuple[str, list[str]]:
    """(instructor, [students]): ``<prefix>-instructor``, ``<prefix>-s1`` ... ``<prefix>-sN``."""
    return f"{prefix}-instructor", [f"{prefix}-s{index}" for index in range(1, students + 1)]


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def create_account(layout: HubLayout, name: str) -> Account:
    """A new account with a private home and a fresh random password. RuntimeError if it exists."""
    if _exists(name):
        raise RuntimeError(f"the account {name} already exists; remove it (userdel -r {name}) or choose "
                           f"another --prefix")
    home = layout.home(name)
    subprocess.run([_tool("useradd"), "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                    "--user-group", name], check=True, capture_output=True)
    home.chmod(0o700)
    password = secrets.token_urlsafe(PASSWORD_BYTES)
    subprocess.run([_tool("chpasswd")], input=f"{name}:{password}\n", text=True, check=True, capture_output=True)
    return Account(name, password, str(home))


def create_accounts(layout: HubLayout, prefix: str, students: int) -> Accounts:
    instructor, names = account_names(prefix, students)
    made = []
    try:
        for name in (instructor, *names):
            made.append(create_account(layout, name))
    except BaseException:
        remove_accounts([account.name for account in made])
        raise
    return Accounts(made[0], tuple(made[1:]))


def account_uids(names: list[str]) -> set[int]:
    uids = set()
    for name in names:
        try:
            uids.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            pass
    return uids


def remove_accounts(names: list[str]) -> None:
    """``userdel --remove --force`` each account that exists (their processes must be gone first)."""
    for name in names:
        if _exists(name):
            subprocess.run([_tool("userdel"), "--remove", "--force", name], capture_output=True)
