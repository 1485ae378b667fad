"""An ordinary Unix account that runs this project's environment, for the tests and benchmarks of
the sandbox without root (root only).

The environment may sit where other accounts cannot go (a Python under root's home), so the account
gets an environment of its own in a folder everyone can traverse: a venv of ``/usr/bin/python3.11``
(or whichever python3.11 every account can execute) whose ``site-packages`` and ``share`` are
read-only bind mounts of this environment's, and whose scripts (``grader``, ``nbgrader``,
``alembic``, ...) are this environment's with their first line pointing at the new interpreter.
The checkout may be private too, so the account gets a copy of its tracked files in its home
(``checkout``, its own, with ``.venv`` pointing at its environment, as ``make install`` leaves it),
first on its ``PYTHONPATH``: ``grader`` and ``solutions`` are imported from there.

    with ordinary_user("rootless") as user:
        user.run(["make", "demo"], cwd=user.checkout)
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from grader.service.student import temporary_accounts
from grader_tests.checkout import REPO_ROOT
from grader_tests.student_accounts import root_skip_reason, student_python

PACKAGE_FOLDERS = (Path(sysconfig.get_paths()["purelib"]), Path(sys.prefix) / "share")


@dataclass(frozen=True)
class OrdinaryUser:
    """``name``: the account; ``home``: its private home (0700, its own); ``venv``: its environment;
    ``checkout``: its copy of the checkout."""

    name: str
    home: Path
    venv: Path

    @property
    def checkout(self) -> Path:
        return self.home / "checkout"

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def environment(self) -> dict[str, str]:
        return {"HOME": str(self.home), "USER": self.name, "LOGNAME": self.name, "LANG": "C.UTF-8",
                "PATH": f"{self.bin}:/usr/bin:/bin", "PYTHONPATH": str(self.checkout)}

    def run(self, argv: list[str], cwd: Path | None = None, timeout: float = 900,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run ``argv`` as the account with a clean environment (a name in ``argv[0]`` is looked up
        in its venv first)."""
        variables = {**self.environment(), **(env or {})}
        return subprocess.run(["runuser", "-u", self.name, "--", "env", "-i",
                               *[f"{k}={v}" for k, v in variables.items()], *argv],
                              cwd=cwd or self.home, capture_output=True, text=True, timeout=timeout)


def skip_reason() -> str | None:
    """Why an ordinary account cannot run the environment here, or None."""
    reason = root_skip_reason()
    if reason is None and shutil.which("mount") is None:
        reason = "needs mount (util-linux) to lend the environment's packages to the account"
    return reason


def _venv_for_everyone(top: Path) -> Path:
    """A venv under ``top`` lending this environment's packages and scripts (see the module)."""
    venv = top / "venv"
    subprocess.run([student_python(), "-m", "venv", "--without-pip", str(venv)], check=True,
                   capture_output=True)
    own_purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                       "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                      check=True, capture_output=True, text=True).stdout.strip())
    for source, target in zip(PACKAGE_FOLDERS, (own_purelib, venv / "share")):
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", str(source), str(target)], check=True, capture_output=True)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], check=True, capture_output=True)
    for script in Path(sys.prefix, "bin").iterdir():
        target = venv / "bin" / script.name
        if target.exists() or script.is_symlink() or not script.is_file():
            continue
        with open(script, "rb") as handle:
            first, rest = handle.readline(), handle.read()
        if first.startswith(b"#!") and b"python" in first:
            target.write_bytes(b"#!" + os.fsencode(venv / "bin" / "python") + b"\n" + rest)
            target.chmod(0o755)
    return venv


def _copy_checkout(target: Path, venv: Path) -> None:
    """The checkout's tracked files at ``target``, with ``.venv`` an installed ``venv``."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        source = REPO_ROOT / name
        if source.is_file() and not source.is_symlink():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(venv)
    (venv / ".installed").touch()  # make's stamp: the environment is installed


def _unmount_all(top: Path) -> None:
    for target in (top / "venv" / "share", *sorted((top / "venv" / "lib").glob("python*/site-packages"))):
        subprocess.run(["umount", "--lazy", str(target)], capture_output=True)


@contextlib.contextmanager
def ordinary_user(name: str) -> Iterator[OrdinaryUser]:
    """A temporary account ``name`` (prefixed, :func:`temporary_accounts`) with a home and an
    environment of its own; everything is removed afterwards."""
    top = Path(tempfile.mkdtemp(prefix="sal-ordinary-user-"))
    top.chmod(0o755)
    try:
        venv = _venv_for_everyone(top)
        with temporary_accounts([name], prefix="salu") as accounts:
            account = accounts[name]
            home = top / "home"
            home.mkdir(mode=0o700)
            user = OrdinaryUser(account, home, venv)
            _copy_checkout(user.checkout, venv)
            subprocess.run(["chown", "-R", f"{account}:{account}", str(home)], check=True)
            yield user
    finally:
        _unmount_all(top)
        shutil.rmtree(top, ignore_errors=True)
