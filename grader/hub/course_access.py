"""Who may change what in the hub's course folder: root alone changes what root loads.

The grading service runs as root (the sandbox needs it) and loads the course's
``nbgrader_config.py`` (Python) on every grading, imports ``grader`` (its checks and page templates)
and ``solutions``, and writes ``autograded/``, ``feedback/`` and ``.grader/``. If the instructor's
account could change any of that, the instructor's account would be root. So the course folder is
root's (``give_course_to_root``):

    course/                2750 root:<instructor>  config, source/, release/, grader/, solutions/
                                (the instructor's server imports them), submitted/, autograded/,
                                feedback/: files 0640, folders 2750 (new ones keep the group)
      .grader/             0700 root:root  the service's private state (the course secret)
      gradebook/           2770 root:<instructor>
        gradebook.db       0660 <instructor>  the formgrader writes manual grades and comments;
                                root reads it as data (SQLite gives its WAL files the same owner)

The instructor reads everything but the service's state and writes only the gradebook; assignments
are generated and released by root (``grader hub up``), from the course as the repository holds it.
"""
from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

from grader.state_folders import STATE_DIR_NAME

GROUP_FOLDER = 0o2750  # setgid: what root makes inside later keeps the instructor's group
GRADEBOOK_FOLDER = 0o2770
GRADEBOOK_FILE = 0o660


def _group_file_mode(mode: int) -> int:
    """Owner's bits kept, the group may read (and run what the owner may run), others nothing."""
    owner = stat.S_IMODE(mode) & 0o700
    return owner | 0o040 | ((owner & 0o100) >> 3)


def give_course_to_root(course_root: Path, gradebook_folder: Path, instructor: str) -> None:
    """Set the owners and modes of the module docstring on ``course_root`` (made by root)."""
    gid = pwd.getpwnam(instructor).pw_gid
    uid = pwd.getpwnam(instructor).pw_uid
    state = course_root / STATE_DIR_NAME
    for parent, folders, files in os.walk(course_root):
        here = Path(parent)
        if here == state or state in here.parents:
            os.lchown(here, 0, 0)
            os.chmod(here, 0o700)
            for name in files:
                os.lchown(here / name, 0, 0)
            continue
        os.lchown(here, 0, gid)
        os.chmod(here, GRADEBOOK_FOLDER if here == gradebook_folder else GROUP_FOLDER)
        for name in files:
            path = here / name
            if path.is_symlink():
                os.lchown(path, 0, gid)
            elif here == gradebook_folder:
                os.lchown(path, uid, gid)
                os.chmod(path, GRADEBOOK_FILE)
            else:
                os.lchown(path, 0, gid)
                os.chmod(path, _group_file_mode(os.lstat(path).st_mode))
