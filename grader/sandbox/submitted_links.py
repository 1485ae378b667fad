"""Undo nbgrader's copies of links in a submission before the student's kernel starts.

``nbgrader autograde`` copies every extra file of ``submitted/<student>/<assignment>/`` into the
working folder with ``shutil.copy``, as the grader's user, following symbolic links. A submitted
link ``gradebook.db -> <course>/gradebook.db`` would therefore hand the kernel a real copy of the
gradebook (or of the reference code). Anything in the submission that is not a regular file or a
folder has its copy removed from the working folder here, and is reported.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path


def remove_copies_of_links(submitted_dir: Path, working_dir: Path) -> list[str]:
    """Delete from ``working_dir`` the copy of every link or special file of ``submitted_dir``.

    Returns the submission-relative paths that were removed (empty when there were none).
    """
    submitted_dir, working_dir = Path(submitted_dir), Path(working_dir)
    if not submitted_dir.is_dir():
        return []
    removed = []
    for dirpath, dirnames, filenames in os.walk(submitted_dir):
        for name in dirnames + filenames:
            entry = Path(dirpath, name)
            if not entry.is_symlink() and (entry.is_file() or entry.is_dir()):
                continue
            relative = entry.relative_to(submitted_dir)
            copy = working_dir / relative
            if copy.is_dir() and not copy.is_symlink():
                shutil.rmtree(copy)
            elif copy.exists() or copy.is_symlink():
                copy.unlink()
            removed.append(str(relative))
    return removed
