"""What root may load: files and folders that no account other than root can change.

Root runs the course's ``nbgrader_config.py`` and its checks files ``source/<id>/checks.py`` (both
are Python), imports ``grader`` (the page templates are part of it) and ``solutions``, and trusts the cluster's certificates. An
account that can change any of them, or rename an entry of any folder above them, makes root run
its code. A path is trusted here when it and every folder above it, up to ``/``:

- is owned by root (or, for a process that is not root, by the account running it);
- is writable by no other account: no write bit for others, and a group write bit only for the
  group root (gid 0), whose members are root's already.

A folder above that everyone may write (``/tmp``) is allowed only with the sticky bit: then only
the owner of an entry can rename or remove it, and the entry itself is checked. Symbolic links
are followed: the link's own folder chain and its target's are both checked.

``untrusted(paths)`` returns one :class:`Untrusted` per offending path (empty: root may load them
all); ``untrusted_tree(folder)`` does the same for a folder and everything inside it;
``course_load_problems(course_root)`` checks everything root loads for a course (config, import
path, packages, Jupyter's templates and kernel specs), and
``config_problems(course_root)`` the course's config alone (cheap enough for every load of it).
"""
from __future__ import annotations

import grp
import os
import pwd
import stat
import sys
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from grader.course_folders import CHECKS_FILE, SOURCE

CONFIG_FILE = "nbgrader_config.py"
#: The packages a grading process imports that hold course code: the grader (its checks and
#: page templates included), the reference numerics, the per-student numbers and the translating
#: fetch (whose paragraph rules the catalogue's extraction shares).
COURSE_PACKAGES = ("grader", "solutions", "course_numbers", "notebook_language")


class UntrustedError(RuntimeError):
    """Root was asked to load something another account can change; the message names the path
    and what to run."""


@dataclass(frozen=True)
class Untrusted:
    """A path root must not load, and why."""

    path: Path
    why: str  # e.g. "owned by sal-instructor (uid 1001)", "writable by every account"

    def __str__(self) -> str:
        return f"{self.path} is {self.why}"


def _account(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return "no account"


def _group(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return "no group"


def trusted_owners() -> frozenset[int]:
    """The uids whose files this process may load: root, and the account running it."""
    return frozenset({0, os.geteuid()})


def _why(path: Path, info: os.stat_result, owners: frozenset[int], entry_checked: bool) -> str | None:
    """Why ``path`` (with lstat ``info``) lets another account change what root loads, or None.

    entry_checked: the entry below this folder is checked on its own, so a sticky folder that
    everyone may write is fine (nobody else can rename that entry).
    """
    if info.st_uid not in owners:
        return f"owned by {_account(info.st_uid)} (uid {info.st_uid})"
    if stat.S_ISLNK(info.st_mode):
        return None  # a link's own mode means nothing; its folder and its target are checked
    sticky_folder = stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX and entry_checked
    if info.st_mode & stat.S_IWOTH and not sticky_folder:
        return "writable by every account"
    if info.st_mode & stat.S_IWGRP and info.st_gid != 0 and not sticky_folder:
        return f"writable by the group {_group(info.st_gid)} (gid {info.st_gid})"
    return None


def _chain(path: Path) -> list[Path]:
    """``path`` and every folder above it, from ``/`` down, without resolving links."""
    absolute = Path(os.path.abspath(path))
    return [*reversed(absolute.parents), absolute]


def untrusted(paths, owners: frozenset[int] | None = None) -> list[Untrusted]:
    """The paths among ``paths`` (and the folders above them) that another account can change.

    owners: the uids trusted to own them (default: ``trusted_owners()``). A missing path is
    reported as such: root cannot vouch for what is not there yet (someone may create it).
    """
    owners = trusted_owners() if owners is None else owners
    found: dict[Path, Untrusted] = {}
    pending = [Path(p) for p in paths]
    seen: set[tuple[Path, bool]] = set()  # a folder is judged apart as a folder above and as itself
    while pending:
        path = pending.pop()
        chain = _chain(path)
        for index, step in enumerate(chain):
            above = index < len(chain) - 1
            if (step, above) in seen:
                continue
            seen.add((step, above))
            try:
                info = os.lstat(step)
            except FileNotFoundError:
                found.setdefault(step, Untrusted(step, "missing"))
                break
            why = _why(step, info, owners, entry_checked=above)
            if why:
                found.setdefault(step, Untrusted(step, why))
            if stat.S_ISLNK(info.st_mode):
                pending.append(Path(os.path.realpath(step)))
    return sorted(found.values(), key=lambda u: str(u.path))


def untrusted_tree(folder: Path, owners: frozenset[int] | None = None) -> list[Untrusted]:
    """``untrusted`` for ``folder``, the folders above it and everything inside it (``__pycache__``
    included: Python loads those too)."""
    folder = Path(folder)
    inside = []
    for parent, folders, files in os.walk(folder):
        inside += [Path(parent) / name for name in (*folders, *files)]
    return untrusted([folder, *inside], owners)


def fix_command(problems: list[Untrusted], trees=()) -> str:
    """The command that makes every path of ``problems`` root's own and writable by root only: a
    path inside one of the folders ``trees`` is fixed with its whole folder (``-R``)."""
    trees = [Path(os.path.abspath(t)) for t in trees]
    whole, single = set(), set()
    for problem in problems:
        if problem.why == "missing":
            continue
        tree = next((t for t in trees if problem.path == t or t in problem.path.parents), None)
        (whole if tree else single).add(str(tree or problem.path))
    commands = []
    if single:
        paths = " ".join(sorted(single))
        commands.append(f"chown root:root {paths} && chmod go-w {paths}")
    if whole:
        paths = " ".join(sorted(whole))
        commands.append(f"chown -R root:root {paths} && chmod -R go-w {paths}")
    return " && ".join(commands)


def refusal(what: str, problems: list[Untrusted], trees=()) -> str:
    """The message that refuses to load ``what`` as root: each offending path and what to run."""
    named = "; ".join(str(p) for p in problems[:5]) + (f"; and {len(problems) - 5} more"
                                                       if len(problems) > 5 else "")
    fix = fix_command(problems, trees)
    return (f"refusing to load {what} as root: another account can change it, and root would run "
            f"what they write ({named}). Give it to root{': run `' + fix + '`' if fix else ''}, "
            "and let other accounts change the course only through the commands root runs")


def enforced() -> bool:
    """Whether this process must refuse what other accounts can change: it runs as root."""
    return os.geteuid() == 0


def package_folders() -> list[Path]:
    """The folders of ``COURSE_PACKAGES`` this interpreter imports."""
    folders = []
    for name in COURSE_PACKAGES:
        spec = find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            folders.append(Path(location))
    return folders


def import_folders() -> list[Path]:
    """The folders on ``sys.path`` that exist (the current folder for ``''``): a module dropped into
    any of them is imported before the one meant."""
    return [Path(os.path.abspath(entry or ".")) for entry in sys.path if os.path.isdir(entry or ".")]


def nearest_existing(path: Path) -> Path:
    """``path`` if it exists, else the nearest folder above it that does: whoever can write that
    one can make ``path`` (and put what they like in it)."""
    path = Path(os.path.abspath(path))
    return next(p for p in (path, *path.parents) if os.path.lexists(p))


def template_folders() -> list[Path]:
    """Jupyter's data folders (the first existing folder of each) and, inside them, the
    nbconvert templates and kernel specs: the page templates (Jinja, which can run Python) and
    kernel commands a grading process loads from there."""
    from jupyter_core.paths import jupyter_path

    folders = []
    for data in map(Path, jupyter_path()):
        folders.append(nearest_existing(data))
        folders += [data / sub for sub in ("nbconvert/templates", "kernels") if (data / sub).is_dir()]
    return folders


def config_problems(course_root: Path) -> list[Untrusted]:
    """``untrusted`` for the course's ``nbgrader_config.py`` (which is Python) and the folders above it."""
    return untrusted([Path(course_root) / CONFIG_FILE])


def checks_files(source: Path) -> list[Path]:
    """The checks files ``<source>/<assignment>/checks.py`` of a course's source folder, by assignment."""
    return sorted(Path(source).glob(f"*/{CHECKS_FILE}")) if Path(source).is_dir() else []


def course_load_problems(course_root: Path | None) -> tuple[list[Untrusted], list[Path]]:
    """(problems, folders to fix whole) for everything root loads to grade ``course_root``: its
    config and the folder holding it, its checks files, the folders of ``sys.path``, Jupyter's data folders, and
    every file of the ``grader`` and ``solutions`` packages, the nbconvert templates and the kernel
    specs. course_root None: no course, the rest only."""
    templates = template_folders()
    whole = package_folders() + [folder for folder in templates if folder.name in ("templates", "kernels")]
    problems = untrusted(import_folders() + templates)
    for folder in whole:
        problems += untrusted_tree(folder)
    if course_root is not None:
        problems += config_problems(course_root)
        problems += untrusted(checks_files(Path(course_root) / SOURCE))
    unique = {problem.path: problem for problem in problems}
    return sorted(unique.values(), key=lambda u: str(u.path)), whole


def refuse_untrusted_course(course_root: Path | None, what: str) -> None:
    """As root: UntrustedError (naming each path and what to run) when anything root loads for
    ``course_root`` is another account's to change. Not root: nothing to refuse."""
    if not enforced():
        return
    problems, whole = course_load_problems(course_root)
    if problems:
        raise UntrustedError(refusal(what, problems, whole))
