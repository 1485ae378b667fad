"""matplotlib's list of the system fonts, kept between kernel zygotes of this account.

A zygote (``grader.sandbox.zygote``) imports matplotlib with ``MPLCONFIGDIR`` set to a private
empty folder, so matplotlib reads no settings of anyone's, and builds its list of the system fonts
there: about 0.15 s of the zygote's start of about 0.9 s (117 fonts; a worker's first kernel started
in 0.90-0.96 s without a kept list, 0.74-0.81 s with one). The list depends only
on the machine's fonts and matplotlib's version (in the file's name), so the first zygote's list is
kept in this account's cache folder (:func:`font_list_folder`) and copied into the private folder
of every later zygote before it starts. matplotlib itself keeps this list in every user's cache
and never rebuilds it for fonts installed later; delete the folder to rebuild it.

The copy is taken only from a folder and files that no other account can change
(``grader.root_trust.untrusted``): the list is data (font paths and properties), but the folder
it is read from is the zygote's configuration folder.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from grader.root_trust import untrusted

FONT_LIST_FILES = "fontlist-*.json"  # matplotlib's name for it: fontlist-v<its format version>.json


def font_list_folder() -> Path:
    """Where this account keeps the font list: ``$XDG_CACHE_HOME`` (default ``~/.cache``)
    ``/scaled-attention-lab/matplotlib``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "scaled-attention-lab" / "matplotlib"


def seed_font_list(config_dir: Path) -> bool:
    """Copy the kept font list into a zygote's empty ``config_dir``; True when one was copied."""
    try:
        kept = sorted(font_list_folder().glob(FONT_LIST_FILES))
        kept = [path for path in kept if path.is_file() and not path.is_symlink()]
        if not kept or untrusted(kept):
            return False
        for path in kept:
            shutil.copyfile(path, Path(config_dir) / path.name)
        return True
    except OSError:  # no home, no cache folder: the zygote builds its own list
        return False


def keep_font_list(config_dir: Path) -> None:
    """Keep the font list a zygote built in ``config_dir`` for the next zygotes of this account
    (written whole or not at all; nothing is kept when the folder cannot be made private)."""
    folder = font_list_folder()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if untrusted([folder]):
            return
        for built in Path(config_dir).glob(FONT_LIST_FILES):
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=".fontlist-", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle, open(built, "rb") as source:
                    shutil.copyfileobj(source, handle)
                os.replace(temporary, folder / built.name)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
    except OSError:
        return
