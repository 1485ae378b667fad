"""Real Unix student accounts for the grading-service tests (root only).

Each account gets a private home (mode 0700, as JupyterHub's spawners make them) under a shared
folder every account can traverse, an nbgrader config naming the course and the exchange
(``grader.service.exchange.student_config``), and runs the environment's ``nbgrader`` as itself
through ``runuser``.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from grader.course import Course
from grader.service.exchange import CourseExchange, student_config
from grader_tests.account_prefix import unused_account_prefix

# Students need a Python 3.11 they can execute (this environment's may live in root's home) and
# this environment's packages (nbgrader, ipykernel, numpy) on PYTHONPATH. A PYTHONPATH entry does
# not run the editable install's finder, so `grader` and `solutions` are not importable: students
# get what a JupyterHub user image gives them, nbgrader and the scientific stack, and the course's
# course_numbers (student_course_packages), as a course hub installs it.
SITE_PACKAGES = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))


def _reachable_by_everyone(path: str) -> bool:
    real = Path(os.path.realpath(path))
    if not os.stat(real).st_mode & 0o001:
        return False
    return all(os.stat(parent).st_mode & 0o001 for parent in real.parents)


@functools.cache
def student_site_packages() -> str:
    """This environment's site-packages at a path every account can reach.

    The folder itself where its parents let everyone through; otherwise (a clone or environment in
    root's private home) a read-only bind mount of it under a temporary folder everyone can
    traverse, made as root and removed when the test process exits.
    """
    if _reachable_by_everyone(SITE_PACKAGES) or os.geteuid() != 0 or shutil.which("mount") is None:
        return SITE_PACKAGES
    base = tempfile.mkdtemp(prefix="sal-student-packages-")
    os.chmod(base, 0o755)
    target = os.path.join(base, "site-packages")
    os.mkdir(target)
    if subprocess.run(["mount", "--bind", SITE_PACKAGES, target], capture_output=True).returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        return SITE_PACKAGES
    subprocess.run(["mount", "-o", "remount,bind,ro", target], capture_output=True)
    atexit.register(_unmount, target, base)
    return target


@functools.cache
def student_course_packages() -> str:
    """A site-packages folder every account can read holding the course's packages that notebooks
    import (``course_numbers``), put there as a course hub puts them into its students' environment."""
    from grader.hub.environment import install_student_packages

    env = Path(tempfile.mkdtemp(prefix="sal-student-env-"))
    site = env / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    install_student_packages(env)
    for folder in (env, *site.relative_to(env).parents, site.relative_to(env)):
        os.chmod(env / folder, 0o755)
    atexit.register(shutil.rmtree, env, True)
    return str(site)


def _unmount(target: str, base: str) -> None:
    subprocess.run(["umount", "--lazy", target], capture_output=True)
    shutil.rmtree(base, ignore_errors=True)


def student_python() -> str | None:
    """A python3.11 every account can execute, or None."""
    for candidate in (sys.executable, shutil.which("python3.11", path="/usr/local/bin:/usr/bin:/bin")):
        if candidate and _reachable_by_everyone(candidate):
            return candidate
    return None


def root_skip_reason() -> str | None:
    """Why real accounts cannot be used here, or None."""
    if os.geteuid() != 0:
        return "needs root to create real student accounts with useradd"
    missing = [tool for tool in ("useradd", "userdel", "runuser") if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (util-linux / passwd)"
    if student_python() is None:
        return "needs a python3.11 that unprivileged accounts can execute (e.g. /usr/bin/python3.11)"
    if not _reachable_by_everyone(student_site_packages()):
        return f"students cannot read this environment's packages ({SITE_PACKAGES})"
    return None


@dataclass(frozen=True)
class Student:
    name: str
    home: Path

    def run(self, *args: str, input: str | None = None, timeout: float = 300,
            check: bool = True) -> subprocess.CompletedProcess:
        """Run ``args`` as this student in their home, with a minimal login-like environment."""
        env = {"HOME": str(self.home), "USER": self.name, "LOGNAME": self.name, "LANG": "C.UTF-8",
               "PATH": "/usr/bin:/bin",
               "PYTHONPATH": os.pathsep.join([student_course_packages(), student_site_packages()])}
        result = subprocess.run(["runuser", "-u", self.name, "--", "env", "-i",
                                 *[f"{k}={v}" for k, v in env.items()], *args],
                                cwd=self.home, input=input, capture_output=True, text=True,
                                timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{self.name}: {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    def nbgrader(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
        return self.run(student_python(), "-m", "nbgrader", *args, check=check, timeout=timeout)

    def write(self, relative: str, text: str) -> None:
        """Write a file as the student (their own editor would)."""
        self.run("sh", "-c", 'mkdir -p "$(dirname "$1")" && cat > "$1"', "sh", relative, input=text)

    def can(self, *args: str) -> bool:
        """Whether ``args`` succeeds as this student."""
        return self.run(*args, check=False, timeout=60).returncode == 0


def create_students(count: int, base: Path, course_id: str, exchange_root: Path) -> list[Student]:
    """``count`` fresh accounts with homes under ``base`` (created 0755) and an nbgrader config."""
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o755)
    students = []
    prefix = unused_account_prefix("sal", digits=6)
    for index in range(count):
        name = f"{prefix}{index}"
        home = base / name
        subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/sh",
                        "--user-group", name], check=True, capture_output=True)
        home.chmod(0o700)
        student = Student(name, home)
        students.append(student)
        student.write(".jupyter/nbgrader_config.py", student_config(course_id, exchange_root))
    return students


def remove_students(students: list[Student]) -> None:
    for student in students:
        subprocess.run(["userdel", "--remove", "--force", student.name], capture_output=True)
        shutil.rmtree(student.home, ignore_errors=True)


@dataclass(frozen=True)
class ExchangeClass:
    """A course folder of the instructor's, an exchange, and real student accounts around them."""

    course: Course
    exchange: Path
    students: list[Student]

    def instructor(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """Run ``args`` in the course folder as the instructor (root), with the exchange set."""
        env = {**os.environ, "GRADER_EXCHANGE_ROOT": str(self.exchange)}
        result = subprocess.run(list(args), cwd=self.course.root, env=env, capture_output=True, text=True,
                                timeout=900)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def release(self, assignment: str) -> subprocess.CompletedProcess:
        """``nbgrader release_assignment`` into the exchange."""
        return self.instructor(str(Path(sys.executable).parent / "nbgrader"), "release_assignment", assignment)

    def watch_once(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess:
        """``grader watch --once --fix-permissions``: collect, grade and release what is there."""
        return self.instructor(sys.executable, "-m", "grader.cli", "watch", "--once", "--fix-permissions", *extra,
                               check=check)


@contextmanager
def exchange_class(template: Course, course_folder: Path, prefix: str, students: int = 2) -> Iterator[ExchangeClass]:
    """A copy of ``template`` in ``course_folder``, an exchange and ``students`` fresh accounts
    (homes and exchange in a temporary folder named ``prefix…`` that every account can traverse);
    the accounts and that folder are removed afterwards."""
    top = Path(tempfile.mkdtemp(prefix=prefix))
    top.chmod(0o755)
    exchange = top / "exchange"
    course = Course(course_folder)
    shutil.copytree(template.root, course.root)
    accounts = create_students(students, top / "home", CourseExchange(course).course_id, exchange)
    try:
        yield ExchangeClass(course, exchange, accounts)
    finally:
        remove_students(accounts)
        shutil.rmtree(top, ignore_errors=True)
