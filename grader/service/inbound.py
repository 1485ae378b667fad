"""Read a folder exchange's ``inbound/`` without trusting anything a student put there.

``inbound/`` is writable by every account, so any account can create any folder there, named for
anyone and holding anything; the service reads it as root. Nothing here follows a link: every
folder is opened relative to its parent's descriptor with ``O_NOFOLLOW``, every entry is
``lstat``-ed before it is opened and ``fstat``-ed after, and only regular files and folders owned
by the account the hand-in names are copied, within a byte, file, notebook and depth budget counted
before anything is copied. A folder that breaks a rule is refused as a whole, with the reason.
The rules themselves are ``grader.grading.admission``'s (its rules of the service path): this
module reads, and asks them.

nbgrader names a hand-in ``<student>+<assignment>+<timestamp>+<random>``; the timestamp in the name
is the student's word, so it is kept for display only. The time a hand-in counts as made is the
latest change time (``st_ctime``, which no unprivileged account can set back) of the folder and of
everything in it: no earlier than the last moment its content changed.
"""
from __future__ import annotations

import hashlib
import os
import pwd
import re
import stat
from collections.abc import Set
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from grader.course import TIMESTAMP_FILE
from grader.grading.admission import (
    MAX_SECRET_BYTES,
    SECRET_FILE,
    HandinBudget,
    Refusal,
    bad_secret_refusal,
    became_a_link_refusal,
    entry_not_a_folder_refusal,
    file_changed_refusal,
    flood_refusal,
    folder_changed_refusal,
    foreign_file_refusal,
    grew_while_read_refusal,
    handin_finished,
    handin_too_large_refusal,
    nested_too_deep_refusal,
    no_secret,
    opened_folder_refusal,
    owner_changed_refusal,
    parse_handin_name,
    secret_file_refusal,
    secret_text,
    special_file_refusal,
    too_many_files_refusal,
    too_many_notebooks_refusal,
)
from grader.sandbox.workdir_quota import COPY_CHUNK

# A secret a refusal page may be keyed on: one line of printable ASCII, long enough not to be guessed.
PAGE_KEY = re.compile(rb"[\x21-\x7e]{32,1024}\r?\n?")


class HandinRefused(Exception):
    """A hand-in that must not be graded: its ``refusal`` (a rule of ``grader.grading.admission``),
    whose sentence for its author is the message.

    ``secret`` is the hand-in's submission secret when it could be read safely (so its author can
    be sent a page), else None.
    """

    def __init__(self, refusal: Refusal, secret: str | None = None):
        super().__init__(refusal.student_text)
        self.refusal = refusal
        self.secret = secret

    @property
    def code(self) -> str:
        return self.refusal.code


@dataclass(frozen=True)
class InboundFolder:
    """One entry of ``inbound/``, read without following it.

    ``name`` is the entry's name as the file system holds it (bytes); ``student``, ``assignment``
    and ``timestamp`` are the parts of a well-formed nbgrader name (else None, and ``problem``
    is the refusal saying what is wrong with the name or the entry). ``owner`` is the account that owns the entry
    itself (not what a link points to), ``uid N`` when no account has that uid.
    """

    name: bytes
    uid: int
    owner: str
    student: str | None = None
    assignment: str | None = None
    timestamp: str | None = None
    problem: Refusal | None = None
    complete: bool = field(default=True, compare=False)
    flooded: bool = field(default=False, compare=False)  # one of too many new entries of its owner
    changed_at: float = field(default=0.0, compare=False)  # the entry's own st_ctime

    @property
    def printable_name(self) -> str:
        return self.name.decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class Collected:
    """What :func:`collect_folder` copied: the counted hand-in time (epoch seconds), the secret,
    and the names of the top-level notebooks."""

    counted_at: float
    secret: str
    notebooks: tuple[str, ...]
    bytes_copied: int

    @property
    def secret_digest(self) -> str:
        return hashlib.sha256(self.secret.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class AnswerKey:
    """What the author of a refused folder needs to find a page about it with ``nbgrader fetch_feedback``.

    ``secret`` is the folder's ``submission_secret.txt`` verbatim (nbgrader names a feedback page
    after the MD5 of the secret as read plus the notebook's name, and the author's own copy of the
    hand-in holds the same text); ``notebooks`` the names, without ``.ipynb``, of the notebooks at
    the folder's top level (the author's copy holds the same names).
    """

    secret: str
    notebooks: tuple[str, ...]

    @property
    def secret_digest(self) -> str:
        return hashlib.sha256(self.secret.encode("ascii")).hexdigest()


def name_of_uid(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def list_folder_exchange(inbound: Path, owner_problem, known: Set[bytes] = frozenset(),
                         max_per_account: int | None = None) -> list[InboundFolder]:
    """Every entry of ``inbound`` (a folder exchange's ``inbound/``) not in ``known``, each read on its own.

    ``owner_problem(student, uid) -> Refusal | None`` says why a folder owned by ``uid`` cannot speak
    for ``student``. An entry that vanishes while it is read is left out (it is seen again, or not,
    at the next look); nothing an entry holds can make the listing raise. An account with more
    than ``max_per_account`` new entries has none of them read: each is listed ``flooded``, with
    only its name and owner.
    """
    fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
    try:
        by_owner: dict[int, list[tuple[bytes, os.stat_result]]] = {}
        for text in os.listdir(fd):
            name = os.fsencode(text)
            if name in known:
                continue
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue  # renamed or removed meanwhile
            by_owner.setdefault(info.st_uid, []).append((name, info))
        found = []
        for uid, entries in by_owner.items():
            flood = flood_refusal(len(entries), max_per_account)
            if flood is not None:
                owner = name_of_uid(uid)
                found += [InboundFolder(name, uid, owner, problem=flood, flooded=True, changed_at=info.st_ctime)
                          for name, info in entries]
                continue
            found += [_describe(fd, name, info, owner_problem) for name, info in entries]
        # Oldest change first: a copy of another hand-in's secret can only be made after that
        # hand-in was written, so the genuine one is collected (and keeps its secret) first.
        return sorted(found, key=lambda folder: (folder.changed_at, folder.name))
    finally:
        os.close(fd)


def _describe(inbound_fd: int, name: bytes, info: os.stat_result, owner_problem) -> InboundFolder:
    owner = name_of_uid(info.st_uid)
    not_a_folder = entry_not_a_folder_refusal(info)
    if not_a_folder is not None:
        return InboundFolder(name, info.st_uid, owner, problem=not_a_folder, changed_at=info.st_ctime)
    parsed = parse_handin_name(name)
    if isinstance(parsed, Refusal):
        return InboundFolder(name, info.st_uid, owner, problem=parsed, changed_at=info.st_ctime)
    student, assignment, timestamp = parsed
    problem = owner_problem(student, info.st_uid)
    return InboundFolder(name, info.st_uid, owner, student, assignment, timestamp, problem,
                         complete=_secret_written(inbound_fd, name), changed_at=info.st_ctime)


def _secret_written(inbound_fd: int, name: bytes) -> bool:
    """Whether ``submit`` has finished writing (it writes the secret last)."""
    try:
        info = os.stat(name + b"/" + SECRET_FILE.encode(), dir_fd=inbound_fd, follow_symlinks=False)
    except OSError:
        info = None
    return handin_finished(info)


# ---- collecting one folder -----------------------------------------------------------------------

@dataclass
class _Entry:
    parts: tuple[bytes, ...]  # path below the hand-in folder
    is_dir: bool
    size: int
    inode: tuple[int, int]


def collect_folder(inbound: Path, folder: InboundFolder, dest: Path, budget: HandinBudget) -> Collected:
    """Copy the hand-in ``folder`` of ``inbound`` to ``dest`` (created; must not exist).

    Only regular files and folders owned by the folder's owner are copied; a link, FIFO, socket,
    device, an entry owned by another account, too many or too deep entries or more bytes than the
    budget refuse the whole hand-in (HandinRefused, before anything is copied). ``timestamp.txt``
    is written anew with the counted hand-in time, in nbgrader's format, so late penalties follow
    it. Copies get the modes nbgrader's own collect gives (0755 folders, 0644 files): ``dest`` is
    inside the course's private state, and the instructor's own account (the formgrader) must be
    able to read what is later placed in ``submitted/``. Raises HandinRefused, or OSError when the
    folder vanished meanwhile.
    """
    inbound_fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
    try:
        root_fd = _open_dir(inbound_fd, folder.name)
        try:
            root_info = os.fstat(root_fd)
            _refuse_if(owner_changed_refusal(folder.uid, root_info))
            secret = _secret_of(root_fd, root_info.st_uid)
            try:
                entries, latest_change = _plan(root_fd, root_info, budget)
                dest.mkdir(parents=True, mode=0o755)
                copied = _copy(root_fd, root_info.st_uid, entries, dest, budget)
            except HandinRefused as not_copied:
                not_copied.secret = secret
                raise
        finally:
            os.close(root_fd)
    finally:
        os.close(inbound_fd)
    counted = latest_change  # never the name's time: a name in 2099 would hold no feedback and cost no attempt
    (dest / TIMESTAMP_FILE).write_text(nbgrader_timestamp(counted))
    notebooks = tuple(sorted(e.parts[0].decode("utf-8", "replace") for e in entries
                             if len(e.parts) == 1 and not e.is_dir and e.parts[0].endswith(b".ipynb")))
    return Collected(counted, secret, notebooks, copied)


def _refuse_if(refusal: Refusal | None) -> None:
    """Raise HandinRefused with ``refusal`` when a rule gave one."""
    if refusal is not None:
        raise HandinRefused(refusal)


def _open_dir(parent_fd: int, name: bytes) -> int:
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
    except OSError as exc:
        refusal = opened_folder_refusal(exc, _show(name))
        if refusal is not None:
            raise HandinRefused(refusal) from None
        raise


def _show(parts: bytes | tuple[bytes, ...]) -> str:
    parts = (parts,) if isinstance(parts, bytes) else parts
    return "/".join(p.decode("utf-8", "backslashreplace") for p in parts)


def _plan(root_fd: int, root_info: os.stat_result, budget: HandinBudget) -> tuple[list[_Entry], float]:
    """Every entry to copy, checked against the rules and the budget; and the latest ctime."""
    uid = root_info.st_uid
    entries: list[_Entry] = []
    latest = root_info.st_ctime
    total = notebooks = 0
    stack: list[tuple[int, tuple[bytes, ...]]] = [(root_fd, ())]
    opened: list[int] = []
    try:
        while stack:
            dir_fd, prefix = stack.pop()
            for text in sorted(os.listdir(dir_fd)):
                name = os.fsencode(text)
                parts = prefix + (name,)
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                latest = max(latest, info.st_ctime)
                shown = _show(parts)
                _refuse_if(special_file_refusal(info, shown) or foreign_file_refusal(info, uid, shown, name_of_uid)
                           or too_many_files_refusal(len(entries) + 1, budget))
                if stat.S_ISDIR(info.st_mode):
                    _refuse_if(nested_too_deep_refusal(len(parts), budget))
                    child = _open_dir(dir_fd, name)
                    opened.append(child)
                    _refuse_if(folder_changed_refusal(info, os.fstat(child), shown))
                    stack.append((child, parts))
                    entries.append(_Entry(parts, True, 0, (info.st_dev, info.st_ino)))
                    continue
                total += info.st_size
                _refuse_if(handin_too_large_refusal(total, budget))
                if len(parts) == 1 and name.endswith(b".ipynb"):
                    notebooks += 1
                    _refuse_if(too_many_notebooks_refusal(notebooks, budget))
                entries.append(_Entry(parts, False, info.st_size, (info.st_dev, info.st_ino)))
    finally:
        for fd in opened:
            os.close(fd)
    return entries, latest


def _copy(root_fd: int, uid: int, entries: list[_Entry], dest: Path, budget: HandinBudget) -> int:
    """Copy the planned entries, re-opening each component with O_NOFOLLOW and checking that each
    file is still the regular file, of the same owner, that was planned."""
    copied = 0
    for entry in entries:
        target = dest.joinpath(*(os.fsdecode(p) for p in entry.parts))
        if entry.is_dir:
            target.mkdir(mode=0o755)
            continue
        parent_fd = root_fd
        opened = []
        shown = _show(entry.parts)
        try:
            for part in entry.parts[:-1]:
                parent_fd = _open_dir(parent_fd, part)
                opened.append(parent_fd)
            try:
                fd = os.open(entry.parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK,
                             dir_fd=parent_fd)
            except OSError as exc:
                refusal = became_a_link_refusal(exc, shown)
                if refusal is not None:
                    raise HandinRefused(refusal) from None
                raise
            try:
                _refuse_if(file_changed_refusal(os.fstat(fd), uid, entry.inode, shown))
                copied += _copy_bounded(fd, target, budget.max_bytes - copied, shown)
            finally:
                os.close(fd)
        finally:
            for fd in opened:
                os.close(fd)
    return copied


def _copy_bounded(fd: int, target: Path, allowance: int, shown: str) -> int:
    written = 0
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        while True:
            chunk = os.read(fd, min(COPY_CHUNK, allowance - written + 1))
            if not chunk:
                return written
            written += len(chunk)
            _refuse_if(grew_while_read_refusal(written, allowance, shown))
            os.write(out, chunk)
    finally:
        os.close(out)


def _secret_of(root_fd: int, uid: int) -> str:
    """The hand-in's submission secret, read without following anything; raises HandinRefused."""
    try:
        fd = os.open(SECRET_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=root_fd)
    except OSError:
        raise HandinRefused(no_secret()) from None
    try:
        _refuse_if(secret_file_refusal(os.fstat(fd), uid))
        return _valid_secret(os.read(fd, MAX_SECRET_BYTES + 1))
    finally:
        os.close(fd)


def _valid_secret(raw: bytes) -> str:
    """The secret ``raw`` holds; raises HandinRefused when nbgrader submit did not write it."""
    _refuse_if(bad_secret_refusal(raw))
    return secret_text(raw)


def answer_key(inbound: Path, folder: InboundFolder, max_notebooks: int) -> AnswerKey | None:
    """How to answer the author of a folder of ``inbound`` that is refused, or None when no page can
    find them safely: the folder is a link or not a folder, its secret is missing, not a regular
    file of the folder's owner, or not one line of 32 to 1024 printable characters (a page keyed
    on a shorter secret could be found by guessing). Nothing is followed and at most
    ``max_notebooks`` notebook names are read.
    """
    try:
        inbound_fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        root_fd = os.open(folder.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=inbound_fd)
    except OSError:
        return None
    finally:
        os.close(inbound_fd)
    try:
        if os.fstat(root_fd).st_uid != folder.uid:
            return None
        fd = os.open(SECRET_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=root_fd)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != folder.uid:
                return None
            raw = os.read(fd, MAX_SECRET_BYTES + 1)
        finally:
            os.close(fd)
        if not PAGE_KEY.fullmatch(raw):
            return None
        notebooks = sorted(os.fsencode(name)[:-len(".ipynb")] for name in os.listdir(root_fd)
                           if name.endswith(".ipynb") and len(name) > len(".ipynb"))
        names = tuple(n.decode() for n in notebooks if _utf8(n))[:max_notebooks]
        return AnswerKey(raw.decode("ascii"), names) if names else None  # a page is found by a notebook's name
    except OSError:
        return None
    finally:
        os.close(root_fd)


def _utf8(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_secret(path: Path) -> str:
    try:
        raw = path.read_bytes()[:MAX_SECRET_BYTES + 1]
    except FileNotFoundError:
        raise HandinRefused(no_secret()) from None
    return _valid_secret(raw)


def nbgrader_timestamp(epoch_seconds: float) -> str:
    """``2026-12-01 10:16:38.123456 UTC``: the form of nbgrader's ``timestamp.txt``."""
    return datetime.fromtimestamp(epoch_seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
