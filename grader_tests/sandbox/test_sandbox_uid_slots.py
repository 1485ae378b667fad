"""The uid locks of the sandbox live in a folder of the user running, so root's runs and an
ordinary user's runs on one machine never stand in each other's way."""
from __future__ import annotations

import os
import random
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from grader.sandbox import uid_slots

NOBODY = 65534


@pytest.fixture
def temp_folder(monkeypatch):
    """A stand-in for the machine's temporary folder, sticky and open to all like /tmp (and,
    unlike pytest's folders, reachable by another account)."""
    folder = Path(tempfile.mkdtemp(prefix="sal-uid-slots-"))
    os.chmod(folder, 0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder)


def test_the_uid_lock_folder_is_a_private_folder_of_the_user_running(temp_folder):
    folder = uid_slots.lock_dir()
    info = os.lstat(folder)
    assert folder == str(temp_folder / f"{uid_slots.LOCK_DIR_NAME}-{os.geteuid()}")
    assert info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700


def test_a_lock_folder_that_is_a_link_is_refused_naming_it(temp_folder):
    (temp_folder / "elsewhere").mkdir(mode=0o700)
    planted = temp_folder / f"{uid_slots.LOCK_DIR_NAME}-{os.geteuid()}"
    os.symlink(temp_folder / "elsewhere", planted)
    with pytest.raises(RuntimeError, match=f"{planted} is not a private folder"):
        uid_slots.reserve_uid(random.randrange(3_200_000_000, 3_300_000_000), 1)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another account needs root")
def test_a_lock_folder_another_account_made_is_refused(temp_folder):
    planted = temp_folder / f"{uid_slots.LOCK_DIR_NAME}-{os.geteuid()}"
    planted.mkdir(mode=0o700)
    os.chown(planted, NOBODY, NOBODY)
    with pytest.raises(RuntimeError, match="another account made it"):
        uid_slots.lock_dir()


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another account needs root")
def test_root_s_lock_folder_does_not_stop_an_ordinary_user_reserving_a_uid(temp_folder):
    base = random.randrange(3_300_000_000, 3_400_000_000)
    with uid_slots.reserve_uid(base, 1):  # root's folder exists, 0700, and holds a lock
        child = os.fork()
        if child == 0:  # the ordinary user, in a process of its own
            code = 1
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                with uid_slots.reserve_uid(base, 1) as slot:
                    code = 0 if slot.uid == base else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.lstat(temp_folder / f"{uid_slots.LOCK_DIR_NAME}-{NOBODY}").st_uid == NOBODY
