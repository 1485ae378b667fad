"""The kernel's working folder as a filesystem of its own: bounded in bytes and in files.

A per-file size limit (RLIMIT_FSIZE) does not stop 64 files of 16 MiB, nor 20 000 empty ones.
Instead the kernel works in a tmpfs mounted by the grading process (``size`` and ``nr_inodes``
set from the sandbox limits), which the sandbox binds at the working folder's usual path. Before the
kernel starts, the submission's files are copied in (not the notebook being graded); after every
sandbox process is dead, what the kernel left is copied back into the real folder: only regular
files and folders, never following a link, owned by the folder's owner, with safe modes
(no set-uid, set-gid, sticky or world-write bits). The tmpfs bounds the bytes the kernel wrote;
holes of sparse files cost it nothing, so every copy keeps holes as holes (``SEEK_DATA`` /
``SEEK_HOLE``) and the copy back also spends a budget of apparent bytes and entries
(:class:`grader.sandbox.leftover_budget.LeftoverBudget`): what does not fit stays behind.
The tmpfs's pages are charged to the sandbox's control group, so they count against its memory.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat

from .launcher import MNT_DETACH, MS_NODEV, MS_NOEXEC, MS_NOSUID, libc, mount
from .leftover_budget import LeftoverBudget
from .limits import SandboxError

COPY_CHUNK = 1024 * 1024
SAFE_FILE_MODE = 0o644
SAFE_EXEC_MODE = 0o755


def mount_quota(target: str, size_bytes: int, max_files: int, uid: int | None) -> None:
    """Mount an empty tmpfs of ``size_bytes`` and ``max_files`` inodes at ``target``."""
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
          f"mode=0700,size={size_bytes},nr_inodes={max_files}{owner}")


def unmount(target: str) -> None:
    """Detach the tmpfs at ``target`` (its pages are freed once nothing uses them)."""
    if libc().umount2(os.fsencode(target), MNT_DETACH) != 0:
        code = __import__("ctypes").get_errno()
        if code not in (errno.EINVAL, errno.ENOENT):
            raise OSError(code, f"umount {target}: {os.strerror(code)}")


def is_mount_point(path: str) -> bool:
    try:
        return os.path.ismount(path)
    except OSError:
        return False


def _entries(top: str):
    """(relative path, lstat) of every entry under ``top``, folders before their contents."""
    stack = [""]
    while stack:
        relative = stack.pop()
        try:
            names = sorted(os.listdir(os.path.join(top, relative)))
        except OSError:
            continue
        for name in names:
            child = os.path.join(relative, name)
            try:
                info = os.lstat(os.path.join(top, child))
            except OSError:
                continue
            yield child, info
            if stat.S_ISDIR(info.st_mode):
                stack.append(child)


def _data_extents(fd: int, size: int):
    """(start, end) byte ranges of ``fd`` that hold data, in order; the rest are holes. A file
    system that cannot tell (``SEEK_DATA`` unsupported) gives the whole file as data."""
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                return  # only a hole is left
            if exc.errno != errno.EINVAL:
                raise
            yield offset, size
            return
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        yield start, end
        offset = end


def copy_sparse(fd_in: int, fd_out: int) -> int:
    """Copy the file open as ``fd_in`` into the empty file ``fd_out``, holes as holes; returns the
    bytes of data copied (the apparent size is the source's)."""
    size = os.fstat(fd_in).st_size
    copied = 0
    for start, end in _data_extents(fd_in, size):
        os.lseek(fd_out, start, os.SEEK_SET)
        position = start
        while position < end:
            chunk = os.pread(fd_in, min(COPY_CHUNK, end - position), position)
            if not chunk:
                break  # the file shrank meanwhile
            os.write(fd_out, chunk)
            position += len(chunk)
            copied += len(chunk)
    os.ftruncate(fd_out, size)
    return copied


def _copy_file(source: str, target: str, mode: int, owner: tuple[int, int] | None) -> None:
    fd_in = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd_in).st_mode):
            return  # replaced by something else meanwhile
        fd_out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        try:
            copy_sparse(fd_in, fd_out)
            if owner is not None:
                os.fchown(fd_out, *owner)
            os.fchmod(fd_out, mode)
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)


def _safe_mode(info: os.stat_result) -> int:
    if stat.S_ISDIR(info.st_mode):
        return SAFE_EXEC_MODE
    return SAFE_EXEC_MODE if info.st_mode & stat.S_IXUSR else SAFE_FILE_MODE


def copy_tree(source: str, target: str, skip: tuple[str, ...], owner: tuple[int, int] | None,
              budget: LeftoverBudget | None = None) -> list[str]:
    """Copy regular files and folders of ``source`` into ``target`` (which exists), holes as holes.

    Top-level names in ``skip`` are left out; links and special files are left out and returned.
    Modes are made safe; ``owner`` (uid, gid) owns every copy (None: the caller's). With a
    ``budget``, each file and folder is charged to it first and what does not fit is not copied
    (the budget records it).
    """
    left_out = []
    for relative, info in _entries(source):
        if relative.split(os.sep, 1)[0] in skip:
            continue
        if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
            left_out.append(relative)
            continue
        if budget is not None and not budget.take(relative, info.st_size if stat.S_ISREG(info.st_mode) else 0):
            continue
        destination = os.path.join(target, relative)
        if stat.S_ISDIR(info.st_mode):
            os.makedirs(destination, exist_ok=True)
            os.chmod(destination, SAFE_EXEC_MODE)
            if owner is not None:
                os.chown(destination, *owner)
        else:
            _copy_file(os.path.join(source, relative), destination, _safe_mode(info), owner)
    return left_out


def fill(quota_dir: str, workdir: str, hidden: tuple[str, ...], uid: int | None) -> None:
    """Copy the working folder (except ``hidden`` names) into the empty quota filesystem."""
    try:
        copy_tree(workdir, quota_dir, hidden, (uid, uid) if uid is not None else None)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise SandboxError(
                "the submission's files do not fit into the kernel's working folder "
                "(SandboxedExecute.workdir_size_limit / workdir_file_limit); remove large or "
                "many extra files from the submission") from exc
        raise


def drain(quota_dir: str, workdir: str, keep: tuple[str, ...], budget: LeftoverBudget) -> list[str]:
    """Make ``workdir`` hold what the kernel left in ``quota_dir`` (``keep`` names stay as they are),
    within ``budget`` (what does not fit is recorded there and not copied).

    Everything is owned by the working folder's owner. Returns the links and special files
    that were not copied.
    """
    info = os.lstat(workdir)
    for name in os.listdir(workdir):
        if name in keep:
            continue
        path = os.path.join(workdir, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    return copy_tree(quota_dir, workdir, keep, (info.st_uid, info.st_gid), budget)


def trim(workdir: str, keep: tuple[str, ...], budget: LeftoverBudget) -> None:
    """Remove from ``workdir`` (where a kernel without its own filesystem wrote directly) what
    does not fit into ``budget``; top-level ``keep`` names are neither charged nor removed."""
    for relative, info in list(_entries(workdir)):
        if relative.split(os.sep, 1)[0] in keep:
            continue
        if budget.take(relative, info.st_size if stat.S_ISREG(info.st_mode) else 0):
            continue
        path = os.path.join(workdir, relative)
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.unlink(path)
