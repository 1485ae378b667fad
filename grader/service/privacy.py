"""Who may read the course: find paths other accounts can reach, and close them.

A course folder cloned with the usual umask (022) is readable by every account on the machine:
model answers in ``source/``, the gradebook, every student's graded work. The grading service
must not run like that, because its students have accounts on the same machine. A path is a
problem when its mode grants anything to group or others (``mode & 0o077``) and every folder
above it lets them through (search permission), up to the root of the file system; so a course
root of mode 0700 hides everything inside it, whatever the inner modes. A course that names an
instructor group (``c.GradingService.instructor_group``, as the course hub does: the course is
root's, its instructor reads it) lets that group keep read and search, never write.

nbgrader's default exchange makes its root world-writable (0777) without the sticky bit, and the
course's ``inbound/`` (0733) too: any student could rename another course's folder, or delete a
submission whose name they know. Both get the sticky bit (``chmod +t``), which nbgrader keeps.
A course folder of the exchange (``<root>/<course>/`` and its ``outbound/``, ``inbound/``,
``feedback/``) that someone else made first, e.g. a student before the first release, is theirs:
``nbgrader release_assignment`` refuses it, and its owner could swap what is released. It is named
with the command that removes it (only the instructor can run that; :func:`fix` does not).
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from grader.course import Course
from grader.course_folders import AUTOGRADED, FEEDBACK, SOURCE, SUBMITTED
from grader.state_folders import STATE_DIR_NAME

INSTRUCTOR_BITS = 0o050  # group read and search: what the instructor's group keeps
COURSE_PATHS = (SOURCE, "gradebook.db", "gradebook.db-wal", "gradebook.db-shm", AUTOGRADED,
                SUBMITTED, FEEDBACK, STATE_DIR_NAME, "nbgrader_config.py")


@dataclass(frozen=True)
class Problem:
    """One path other accounts can reach, and the command that closes it."""

    path: Path
    mode: int
    what: str
    command: str
    instructor_gid: int | None = None  # the group that keeps read and search (INSTRUCTOR_BITS)

    def __str__(self) -> str:
        return f"{self.path} ({self.what}) has mode {self.mode:04o}: run `{self.command}`"

    def done(self) -> str:
        """What :func:`fix` did about it, in the past tense."""
        action = "added the sticky bit" if self.command.startswith("chmod +t") else \
            "closed to other accounts"
        return f"{action}: {self.path} ({self.what}), mode {self.mode:04o} -> {_mode(self.path):04o}"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def private_paths(course: Course) -> list[tuple[Path, str]]:
    """(path, what it holds) that only the instructor may read, for ``course``."""
    from grader.sandbox.limits import package_dirs

    paths = [(course.root, "course folder")]
    paths += [(course.root / name, name) for name in COURSE_PATHS]
    packages = [Path(p) for p in package_dirs()]
    paths += [(p, "package only the grading process reads (model answers, checks)") for p in packages]
    # The course the reference package comes from keeps its model answers beside it (the grading
    # process may import it from a folder other than ``course``: a copy graded elsewhere).
    paths += [(p.parent / SOURCE, "the model answers beside a package the grading process reads")
              for p in packages if p.parent.resolve() != course.root.resolve()]
    return [(p, what) for p, what in dict.fromkeys(paths) if os.path.lexists(p)]


def _reachable(path: Path) -> bool:
    """Whether group or other accounts can search every folder above ``path``."""
    return all(_mode(parent) & 0o011 for parent in Path(os.path.abspath(path)).parents)


def _instructor_gid(course: Course) -> int | None:
    """The gid of ``c.GradingService.instructor_group``, or None when the course names none."""
    import grp

    from grader.service_policy import load_service_policy

    name = load_service_policy(course).instructor_group
    return grp.getgrnam(name).gr_gid if name else None


def _open_bits(path: Path, instructor_gid: int | None) -> int:
    """The permission bits of ``path`` that let accounts other than its owner in: group and others,
    except read and search for the instructor's group."""
    info = os.lstat(path)
    allowed = INSTRUCTOR_BITS if instructor_gid is not None and info.st_gid == instructor_gid else 0
    return stat.S_IMODE(info.st_mode) & 0o077 & ~allowed


def course_problems(course: Course) -> list[Problem]:
    """Every private path of ``course`` that group or other accounts can reach and open (the
    instructor's group, ``c.GradingService.instructor_group``, may read)."""
    problems = []
    instructor_gid = _instructor_gid(course)
    for path, what in private_paths(course):
        mode = _mode(path)
        if _open_bits(path, instructor_gid) and not path.is_symlink() and _reachable(path):
            keeps_group = instructor_gid is not None and os.lstat(path).st_gid == instructor_gid
            command = f"chmod g-w,o-rwx {path}" if keeps_group else f"chmod go-rwx {path}"
            problems.append(Problem(path, mode, what, command, instructor_gid))
    return problems


def exchange_problems(root: Path, course_id: str, trusted_uids: tuple[int, ...] = ()) -> list[Problem]:
    """World-writable exchange folders without the sticky bit (root and the course's inbound), and
    course folders of the exchange owned by an account other than root, this process's user and
    ``trusted_uids`` (the instructor's)."""
    problems = []
    for path, what in ((Path(root), "exchange root"), (Path(root) / course_id / "inbound", "inbound")):
        if path.is_dir():
            mode = _mode(path)
            if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
                problems.append(Problem(path, mode, f"{what}, world-writable without the sticky bit",
                                        f"chmod +t {path}"))
    return problems + exchange_owner_problems(root, course_id, trusted_uids)


def exchange_owner_problems(root: Path, course_id: str, trusted_uids: tuple[int, ...] = ()) -> list[Problem]:
    """The course's exchange folder, or one of its ``outbound``/``inbound``/``feedback`` folders,
    when another account owns it (the first found: everything under it goes with it)."""
    trusted = {0, os.geteuid(), *trusted_uids}
    course = Path(root) / course_id
    for path, what in ((course, "exchange course folder"), (course / "outbound", "outbound"),
                       (course / "inbound", "inbound"), (course / "feedback", "exchange feedback")):
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if info.st_uid not in trusted:
            return [Problem(path, stat.S_IMODE(info.st_mode),
                            f"{what}, owned by uid {info.st_uid}, not by the instructor; nbgrader "
                            "release_assignment refuses it: remove it before releasing",
                            f"rm -rf {path}")]
    return []


def fix(problems: list[Problem]) -> None:
    """Apply each problem's command (go-rwx, or +t for the exchange); a folder someone else owns
    is left for the instructor to remove."""
    for problem in problems:
        if problem.command.startswith("rm "):
            continue
        mode = _mode(problem.path)
        if problem.command.startswith("chmod +t"):
            os.chmod(problem.path, mode | stat.S_ISVTX)
        else:
            os.chmod(problem.path, mode & ~_open_bits(problem.path, problem.instructor_gid))
