"""The course's file of students' languages: student id -> language code, as JSON.

``grader roster`` writes it (the roster's ``Language`` column), the course hub writes it when a
student chooses a language (``/hub/language``), the hub's spawn hook and the grading side read it.
Standard library only: the hub copies this module beside its config (its environment holds no
``grader``).
"""
from __future__ import annotations

import json
import os
from pathlib import Path


def read_languages(path: Path | str) -> dict[str, str]:
    """Student id -> language code as the file at ``path`` records them; empty when there is no
    file or it holds no JSON object (nobody's choice recorded yet)."""
    try:
        recorded = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(recorded, dict):
        return {}
    return {str(student): language for student, language in recorded.items() if isinstance(language, str)}


def record_languages(path: Path | str, languages: dict[str, str]) -> None:
    """Record ``languages`` (student id -> language code) in the file at ``path``, replacing what
    it said of the same students and keeping the others; replaced atomically, so a reader never
    sees half a file."""
    path = Path(path)
    merged = {**read_languages(path), **languages}
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(json.dumps(merged, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temporary, path)
