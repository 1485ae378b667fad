"""Where ``grader demo`` works: one fixed folder, ``demo-course/`` in the checkout (git-ignored; named
by ``grader.demo.checkout``), replaced on each run (the exchange of its hand-in step is a temporary
folder, removed at its end).

A folder is replaced only when an earlier demo made it (it holds :data:`MARKER`) or it is empty,
so ``--dir`` can never remove someone's own course.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

MARKER = ".grader-demo"


class DemoFolderError(RuntimeError):
    """The demo folder exists and was not made by the demo."""


def prepare_demo_folder(folder: Path) -> Path:
    """Empty (or create) ``folder`` for a new demo and mark it as the demo's; returns it absolute."""
    folder = Path(folder).absolute()
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise DemoFolderError(f"{folder} is not a folder; pass --dir with a new folder")
    if folder.is_dir() and any(folder.iterdir()):
        if not (folder / MARKER).is_file():
            raise DemoFolderError(f"{folder} exists and was not made by grader demo, so it is left "
                                  "as it is; remove it yourself or pass --dir with a new folder")
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text("made by grader demo; replaced by the next run\n", encoding="utf-8")
    return folder


def shown_path(path: Path) -> str:
    """``path`` relative to the current folder when it lies inside it, else absolute."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative
