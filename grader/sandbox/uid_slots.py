"""A private numeric user id per running sandbox, reserved with a lock file.

Process limits (RLIMIT_NPROC) count every process of a user id machine-wide, so two
kernels sharing one id (say ``nobody``) would share one budget: a fork bomb in one
notebook would starve a notebook graded next to it. Each sandbox therefore runs as its own
unused uid, reserved across processes with ``flock`` on
``<tempdir>/<LOCK_DIR_NAME>-<euid>/<uid>``; a lock is released when its holder closes it or dies.
The folder is per user: only root reserves uids for kernels, and a folder another account made
(say root's, mode 0700) must not stop an ordinary user's run, nor hand root's locks to another.
"""

from __future__ import annotations

import fcntl
import os
import random
import stat
import tempfile

LOCK_DIR_NAME = "scaled-attention-lab-sandbox-uids"


class UidSlot:
    """One reserved uid; call :meth:`release` (or use as a context manager) when done."""

    def __init__(self, uid: int, lock_fd: int):
        self.uid = uid
        self._lock_fd: int | None = lock_fd

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing drops the flock
            self._lock_fd = None

    def __enter__(self) -> "UidSlot":
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()


def lock_dir() -> str:
    """This user's folder of uid locks, ``<tempdir>/<LOCK_DIR_NAME>-<euid>``, mode 0700.

    Raises RuntimeError naming the folder when it exists but is not a private folder of this
    user (another account made it first, or it is a link).
    """
    euid = os.geteuid()
    path = os.path.join(tempfile.gettempdir(), f"{LOCK_DIR_NAME}-{euid}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != euid
            or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
        raise RuntimeError(f"{path} is not a private folder of uid {euid}; remove it "
                           "(another account made it, or it is a link) and grade again")
    return path


def reserve_uid(base: int, count: int) -> UidSlot:
    """Reserve a uid in ``[base, base + count)`` that no other live sandbox holds.

    Raises RuntimeError naming the range when all of them are taken.
    """
    directory = lock_dir()
    start = random.randrange(count)
    for offset in range(count):
        uid = base + (start + offset) % count
        fd = os.open(os.path.join(directory, str(uid)), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UidSlot(uid, fd)
    raise RuntimeError(f"all {count} sandbox user ids from {base} are in use; raise "
                       "SandboxedExecute.uid_count or grade fewer notebooks at once")


def try_reserve(uid: int) -> UidSlot | None:
    """Reserve exactly ``uid`` if no live sandbox holds it (for clearing a killed grader's leftovers)."""
    fd = os.open(os.path.join(lock_dir(), str(uid)), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return UidSlot(uid, fd)
