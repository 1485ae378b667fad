"""Which grading code is installed: the distribution's version and a hash of ``grader`` and ``solutions``.

A grading's record and the reference values kept per course name it, so that changed grading code
grades again and computes again. ``solutions`` is the course's reference package, found where the
grading process imports it from (the course folder, :mod:`grader.course_imports`).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "scaled-attention-lab"


def hash_tree(digest, folder: Path, label: str, suffixes: tuple[str, ...] | None = None) -> None:
    digest.update(f"[{label}]".encode())
    if not folder.is_dir():
        digest.update(b"<missing>")
        return
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        if suffixes and path.suffix not in suffixes or "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        with open(path, "rb") as handle:  # streamed: a submitted file may be large
            digest.update(hashlib.file_digest(handle, "sha256").digest())


@functools.lru_cache(maxsize=1)
def grader_version() -> str:
    """The installed version plus a hash of the grading code (``grader`` and ``solutions``)."""
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        version = "unknown"
    digest = hashlib.sha256()
    for package in ("grader", "solutions"):
        spec = importlib.util.find_spec(package)
        folder = Path(spec.origin).parent if spec and spec.origin else None
        if folder is None:  # not importable here: hashed as missing, so it grades again once it is
            digest.update(f"[{package}]<missing>".encode())
            continue
        hash_tree(digest, folder, package, suffixes=(".py",))
    return f"{version}+{digest.hexdigest()[:16]}"
