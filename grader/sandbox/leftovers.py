"""What a killed grading process leaves behind, and how the next run removes it.

Each sandbox run folder (``<tempdir>/sal-XXXXXX``, owned by the grader, mode 0711) holds
``owner.lock``, locked (``flock``) by the grading process for the run's whole life, and
``leftovers.json`` (mode 0600), written before anything else is created: the sandbox uid, the
working folder, the control group and the working-folder mount. The lock dies with its process,
so a run folder whose lock can be taken belongs to a grader that was killed (SIGKILL, power
cut, ...). :func:`sweep` then kills what is left in its control group and of its uid (only if
no live sandbox holds that uid now), unmounts its working-folder filesystem, gives files the
uid left in its working folder back to the folder's owner with safe modes, removes links it
left there, and deletes the run folder.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import stat
import tempfile

from .cgroups import SandboxCgroup
from .launcher import kill_processes_of_uid
from .uid_slots import try_reserve
from .workdir_quota import is_mount_point, unmount

RUN_PREFIX = "sal-"
LOCK_FILE = "owner.lock"
RECORD_FILE = "leftovers.json"
MAX_RECORD_BYTES = 64 * 1024
UNSAFE_MODE_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH

log = logging.getLogger(__name__)
_swept_in_this_process = False


def hold_lock(run_dir: str) -> int:
    """Create and lock the run folder's lock file; returns the descriptor to keep open.

    The file is locked under another name and then renamed, so a sweeper never finds it unlocked.
    """
    temporary = os.path.join(run_dir, LOCK_FILE + ".new")
    fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(temporary, os.path.join(run_dir, LOCK_FILE))
    return fd


def write_record(run_dir: str, record: dict) -> None:
    """Write (or replace) the run's record of what it creates outside its folder."""
    temporary = os.path.join(run_dir, RECORD_FILE + ".tmp")
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        json.dump(record, handle)
    os.replace(temporary, os.path.join(run_dir, RECORD_FILE))


def make_mode_safe(path: str) -> None:
    """Clear set-uid, set-gid, sticky and world-write bits of a regular file or folder."""
    info = os.lstat(path)
    if (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)) and info.st_mode & UNSAFE_MODE_BITS:
        os.chmod(path, stat.S_IMODE(info.st_mode) & ~UNSAFE_MODE_BITS)


def _trusted_run_folder(path: str) -> bool:
    """Only folders this user made as run folders: a stranger's fake record is never obeyed."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _read_record(run_dir: str) -> dict | None:
    path = os.path.join(run_dir, RECORD_FILE)
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_size > MAX_RECORD_BYTES:
            return None
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _give_back(workdir: str, uid: int) -> int:
    """Files of ``uid`` in ``workdir``: links removed, the rest to the folder's owner, safe modes."""
    try:
        owner = os.lstat(workdir)
    except OSError:
        return 0
    fixed = 0
    for folder, dirs, files in os.walk(workdir, followlinks=False):
        for name in dirs + files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
                if info.st_uid != uid:
                    continue
                if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                    os.unlink(path)
                else:
                    os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
                    make_mode_safe(path)
                fixed += 1
            except OSError:
                continue
    return fixed


def reclaim(run_dir: str) -> str | None:
    """Remove one dead run's leftovers; returns what was done, or None if the run is alive."""
    if not _trusted_run_folder(run_dir):
        return None
    try:
        lock = os.open(os.path.join(run_dir, LOCK_FILE), os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return None  # not a run folder of this version, or just being created
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None  # a live grader holds it
        record = _read_record(run_dir) or {}
        done = []
        if isinstance(record.get("cgroup"), dict):
            group = SandboxCgroup.from_record(record["cgroup"])
            if group.pids() or any(os.path.isdir(p) for p in group.paths.values()):
                group.remove()
                done.append(f"control group {group.name}")
        uid = record.get("uid")
        if isinstance(uid, int):
            slot = try_reserve(uid)
            if slot is not None:
                with slot:
                    if kill_processes_of_uid(uid) == 0:
                        done.append(f"processes of uid {uid}")
        mount_point = record.get("workdir_mount")
        if isinstance(mount_point, str) and mount_point.startswith(run_dir + os.sep) \
                and is_mount_point(mount_point):
            unmount(mount_point)
            done.append("working-folder filesystem")
        workdir = record.get("workdir")
        if isinstance(uid, int) and isinstance(workdir, str) and os.path.isdir(workdir):
            if _give_back(workdir, uid):
                done.append(f"files of uid {uid} in {workdir}")
        shutil.rmtree(run_dir, ignore_errors=True)
        return "removed " + (", ".join(done) + " and " if done else "") + f"run folder {run_dir}"
    finally:
        os.close(lock)


def sweep(tempdir: str | None = None) -> list[str]:
    """Reclaim every dead run folder in ``tempdir`` (default: the system's); what was done."""
    tempdir = tempdir or tempfile.gettempdir()
    done = []
    try:
        names = [n for n in os.listdir(tempdir) if n.startswith(RUN_PREFIX)]
    except OSError:
        return done
    for name in sorted(names):
        try:
            result = reclaim(os.path.join(tempdir, name))
        except OSError as exc:
            log.warning("Could not remove the leftovers of %s: %s", name, exc)
            continue
        if result:
            done.append(result)
    return done


def sweep_once(logger: logging.Logger | None = None) -> list[str]:
    """:func:`sweep` at the first sandbox of this process (later calls do nothing)."""
    global _swept_in_this_process
    if _swept_in_this_process:
        return []
    _swept_in_this_process = True
    done = sweep()
    for line in done:
        (logger or log).warning("A grading process was killed earlier; %s", line)
    return done
