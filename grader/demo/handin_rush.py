"""A deadline rush as it lands on a hub: many accounts write their hand-in folders at once.

On a JupyterHub every student's ``nbgrader submit`` runs in that student's own server, so a rush
reaches the exchange as folders written into ``inbound/`` by many accounts within a second, not as
submits started one after another on the grading machine. :class:`Rush` writes such a rush: one
process per hand-in, forked and switched to its account before anything is written, waits at a
gate; :meth:`Rush.release` opens the gate and every process writes its folder as
``nbgrader submit`` (``ExchangeSubmit.copy_files``) does:

1. ``inbound/<student>+<assignment>+<timestamp>+<random>`` with the notebooks
   (``<timestamp>`` in nbgrader's form, UTC; ``<random>`` 9 random bytes, URL-safe base64);
2. ``timestamp.txt``, then ``submission_secret.txt`` last (``secrets.token_hex(64)``: 128 hex digits);
3. files 0644 and folders 0755, then the hand-in's own folder 0777;
4. the student's own copy in their nbgrader cache (``<cache>/<course>/<student>+<assignment>+<timestamp>``),
   by which ``nbgrader fetch_feedback`` finds the page.

The benchmark ``benchmarks/feedback_latency.py`` and the service's durability tests use it; it is
not used when grading a real course. Root only (it switches to each account).
"""
from __future__ import annotations

import base64
import json
import os
import pwd
import secrets
import select
import signal
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from grader.course import TIMESTAMP_FILE
from grader.service.inbound import SECRET_FILE, nbgrader_timestamp

FILE_MODE = stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH  # 0644, as submit's set_perms
FOLDER_MODE = 0o755
HANDIN_FOLDER_MODE = 0o777  # "so the instructor can delete later", nbgrader's comment says
ERROR_LIMIT = 1000  # characters of an error reported: a report stays one atomic pipe write (4096 bytes)


@dataclass(frozen=True)
class Handin:
    """One hand-in to write: ``account`` writes it and is the student its name carries.

    files: name -> content of each file at the top of the hand-in (the notebooks), written in this order;
    cache: the account's nbgrader cache folder of the course (``<cache>/<course id>``), where submit
    keeps the student's own copy; None leaves no copy (``fetch_feedback`` then finds nothing).
    """

    account: str
    assignment: str
    files: dict[str, bytes]
    cache: Path | None = None


@dataclass(frozen=True)
class Written:
    """What one process wrote: the folder's name in ``inbound/``, its submission secret, and
    ``written_at``, epoch seconds just after its last write (the secret written and the modes set)."""

    account: str
    folder: str
    secret: str
    written_at: float


def handin_from_home(account: str, assignment: str, files: dict[str, bytes], home: Path,
                     course_id: str) -> Handin:
    """The hand-in of ``account`` whose home is ``home`` (made, and given to the account, as a
    hub's spawner makes a home, when it is missing): its cache copy goes where a
    :class:`grader.service.student.StudentSide` of that home looks for it (``.nbgrader_cache``)."""
    entry = _account(account)
    home.mkdir(parents=True, exist_ok=True)
    os.chown(home, entry.pw_uid, entry.pw_gid)
    return Handin(account, assignment, files, home / ".nbgrader_cache" / course_id)


def _account(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise ValueError(f"no account {name!r} on this machine: a hand-in is written by the account "
                         "it names; create it first (grader.service.student.temporary_accounts)") from None


class Rush:
    """The hand-ins ``handins``, each in a process of its own already running as its account,
    waiting to write into ``inbound`` until :meth:`release`. Use as a context manager: leaving
    it ends and reaps any process still running."""

    def __init__(self, inbound: Path, handins: list[Handin]):
        if os.geteuid() != 0:
            raise PermissionError("a rush writes each hand-in as its own account: run as root")
        self.inbound = Path(inbound)
        self.handins = list(handins)
        self.released_at: float | None = None
        gate_read, self._gate = os.pipe()
        self._results, results_write = os.pipe()
        self._pids: list[int] = []
        try:
            for index, handin in enumerate(self.handins):
                entry = _account(handin.account)
                pid = os.fork()
                if pid == 0:  # the child: never returns
                    os.close(self._gate)
                    os.close(self._results)
                    _write_as(entry, index, handin, self.inbound, gate_read, results_write)
                self._pids.append(pid)
        finally:
            os.close(gate_read)
            os.close(results_write)

    def __enter__(self) -> Rush:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def release(self) -> float:
        """Let every process write; returns the epoch seconds of the release."""
        self.released_at = time.time()
        os.close(self._gate)
        self._gate = -1
        return self.released_at

    def wait(self, timeout: float = 120) -> list[Written]:
        """Every hand-in written, in the order of ``handins``; raises RuntimeError naming the
        accounts that failed (their error) or did not finish within ``timeout`` seconds."""
        if self._gate != -1:
            raise RuntimeError("release() the rush before waiting for it")
        raw = b""
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self._results], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(self._results, 65536)
            if not chunk:
                break
            raw += chunk
        reports = [json.loads(line) for line in raw.decode().splitlines()]
        failed = [f"{r['account']}: {r['error']}" for r in reports if "error" in r]
        written = {r.pop("index"): Written(**r) for r in reports if "error" not in r}
        reported = {r["account"] for r in reports}
        missing = [h.account for h in self.handins if h.account not in reported]
        if failed or missing:
            raise RuntimeError("hand-ins not written: " + "; ".join(
                failed + [f"{account}: no report within {timeout:g} s" for account in missing]))
        self._reap()
        return [written[index] for index in range(len(self.handins))]

    def close(self) -> None:
        for fd in (self._gate, self._results):
            if fd != -1:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._gate = self._results = -1
        for pid in self._pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._reap()

    def _reap(self) -> None:
        for pid in self._pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self._pids = []


def write_rush(inbound: Path, handins: list[Handin], timeout: float = 120) -> list[Written]:
    """Prepare every hand-in's process, release them together, and wait until all are written."""
    with Rush(inbound, handins) as rush:
        rush.release()
        return rush.wait(timeout)


def _write_as(entry: pwd.struct_passwd, index: int, handin: Handin, inbound: Path, gate: int,
              results: int) -> None:
    """The forked process: become ``entry``, wait for the gate to close, write, report, exit."""
    code = 1
    try:
        try:
            os.setgroups([])
            os.setgid(entry.pw_gid)
            os.setuid(entry.pw_uid)
            os.umask(0o022)
            while os.read(gate, 1):  # end of file: released
                pass
            report = {"index": index, **_write_handin(handin, inbound)}
            code = 0
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises
            report = {"account": handin.account, "error": f"{type(exc).__name__}: {exc}"[:ERROR_LIMIT]}
        os.write(results, (json.dumps(report) + "\n").encode())
    finally:
        os._exit(code)


def _write_handin(handin: Handin, inbound: Path) -> dict:
    """Write the hand-in as ``nbgrader submit`` does (see the module's docstring); its report."""
    stamp = nbgrader_timestamp(time.time())
    random_part = base64.urlsafe_b64encode(os.urandom(9)).decode("ascii")
    secret = secrets.token_hex(64)
    name = f"{handin.account}+{handin.assignment}+{stamp}"
    folder = inbound / f"{name}+{random_part}"
    _write_folder(folder, handin.files, stamp, secret)
    for path in folder.iterdir():
        path.chmod(FILE_MODE)
    folder.chmod(FOLDER_MODE)
    folder.chmod(HANDIN_FOLDER_MODE)
    written_at = time.time()
    if handin.cache is not None:
        handin.cache.mkdir(parents=True, exist_ok=True)
        _write_folder(handin.cache / name, handin.files, stamp, secret)
    return {"account": handin.account, "folder": folder.name, "secret": secret, "written_at": written_at}


def _write_folder(folder: Path, files: dict[str, bytes], stamp: str, secret: str) -> None:
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    (folder / TIMESTAMP_FILE).write_text(stamp)
    (folder / SECRET_FILE).write_text(secret)
