"""Reproducible secret inputs: the seed of a submission's hidden checks.

The hidden inputs of one submission are drawn from

    seed = HMAC-SHA256(course secret, student | assignment | notebook | submission fingerprint)

(the first 63 bits). The course secret is 32 random bytes generated once per course in the grading
process's private folder ``Course.state_dir`` (``.grader/course_secret``, mode 0600 in a 0700
folder, hidden from the sandboxed kernel); it never enters a kernel, the release or a feedback page.
So:

- regrading an unchanged submission draws the same inputs and earns the same per-cell scores, with
  plain ``nbgrader autograde`` and with ``grader autograde`` alike (both run ``PrepareProbes``);
- a changed submission draws new inputs, so answers copied from an earlier feedback page cannot be
  replayed against known inputs, and two students never share inputs;
- without the secret nobody can compute the inputs.

The fingerprint (``grader.grading.submission_fingerprint``) covers what can change what the student's
functions return: the code of every code cell as nbgrader's sanitize step leaves it (the
instructor's locked and test cells restored from the gradebook, the student's cells as submitted),
by its parse tree, so comments, blank lines and formatting change nothing while any changed
expression is a new submission; and the name and bytes of every file the hand-in carries beside the
notebook, which the kernel can read. Outputs, metadata and Markdown cells run nothing and are left
out, so re-running or re-saving a notebook in Jupyter, tidying its comments or editing a prose
answer does not change the inputs.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from grader.state_folders import COURSE_SECRET as SECRET_FILE

SECRET_BYTES = 32


def course_secret(state_dir: Path) -> bytes:
    """The course's secret from ``state_dir``, created (once, race-free) on first use.

    Parallel graders may ask at the same moment: the secret is written to a private temporary file
    and hard-linked into place, which fails for every process but the first; the others then read
    the winner's complete file.
    """
    path = Path(state_dir) / SECRET_FILE
    if not path.exists():
        temporary = path.with_name(f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(SECRET_BYTES) + "\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    text = path.read_text(encoding="ascii").strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) < 16:
        raise ValueError(f"{path} does not hold a course secret (expected {2 * SECRET_BYTES} hex digits); "
                         "delete it to generate a new one (every submission then gets new hidden inputs)")
    return secret


def submission_seed(secret: bytes, student: str, assignment: str, notebook: str, fingerprint: str) -> int:
    """The 63-bit seed of one submission's hidden inputs (see the module docstring)."""
    message = json.dumps([student, assignment, notebook, fingerprint], ensure_ascii=False).encode("utf-8")
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1
