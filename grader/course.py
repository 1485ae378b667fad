"""The course on disk: where things live, its nbgrader config, and creating a working course folder.

A course folder is an nbgrader course root::

    nbgrader_config.py   source/<id>/<name>.ipynb   release/   submitted/<student>/<id>/   autograded/
    feedback/   gradebook.db   .grader/

The gradebook is the database ``c.CourseDirectory.db_url`` of ``nbgrader_config.py`` names: by
default the SQLite file ``gradebook.db`` in the course folder; the course's config reads the
environment variable ``GRADER_DB_URL`` (for example
``postgresql+psycopg://grader@db.example.edu/attention_lab``) to use a PostgreSQL server instead,
which graders on several machines can share.

``.grader/`` is the grading process's private state (mode 0700): records and secrets that only the
grading process writes and reads, outside every folder a kernel or a student can write.

Every command takes the course folder it works on (``--course``, default the current folder); the
engine never looks for a course beside its own code. Tests and the demo copy a course's ``source/``
and config into a temporary folder (:func:`copy_course`) so that nothing in the original changes.
"""
from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from traitlets.config.loader import PyFileConfigLoader

from grader.course_folders import AUTOGRADED, FEEDBACK, LOCALES, RELEASE, SOURCE, SUBMITTED
from grader.root_trust import CONFIG_FILE, UntrustedError, config_problems, enforced, refusal
from grader.settings import DB_URL, SQLITE_BUSY_SECONDS
from grader.state_folders import STATE_DIR_NAME

# The environment variable the course's nbgrader_config.py reads for a gradebook other than SQLite.
TIMESTAMP_FILE = "timestamp.txt"  # nbgrader's record of when a hand-in was submitted
MAX_TIMESTAMP_CHARS = 100  # a timestamp is one short line; the rest of a longer file is never read
DB_URL_VARIABLE = DB_URL.name

@dataclass(frozen=True)
class Course:
    """An nbgrader course root."""

    root: Path

    @property
    def gradebook(self) -> Path:
        """Where the default SQLite gradebook lives (see ``sqlite_file`` for the one in use)."""
        return self.root / "gradebook.db"

    @property
    def db_url(self) -> str:
        """The gradebook's SQLAlchemy URL: ``c.CourseDirectory.db_url`` of the course's config.

        A course without a config file, or whose config leaves ``db_url`` unset, uses the SQLite
        file ``gradebook.db`` in the course folder. Read afresh on every call (cheap), so it
        follows the environment the config reads.
        """
        return configured_db_url(self.root) or sqlite_url(self.gradebook)

    @property
    def sqlite_file(self) -> Path | None:
        """The SQLite file of the gradebook, or None when the gradebook is a database server."""
        return sqlite_file_of(self.db_url)

    @property
    def state_dir(self) -> Path:
        """The grading process's private state folder, created on first use with mode 0700."""
        path = self.root / STATE_DIR_NAME
        path.mkdir(mode=0o700, exist_ok=True)
        return path

    def notebooks(self, assignment: str) -> list[str]:
        """The notebook names (without .ipynb) of ``assignment``, in name order: the notebooks in
        ``source/<assignment>/`` (else in ``release/<assignment>/``). ValueError naming the course's
        assignments when there are none."""
        for folder in (SOURCE, RELEASE) if _plain_name(assignment) else ():
            names = sorted(p.stem for p in (self.root / folder / assignment).glob("*.ipynb"))
            if names:
                return names
        raise ValueError(f"unknown assignment {assignment!r}; the course has {', '.join(self.assignments()) or 'none'} "
                         f"(an assignment is a folder source/<id>/ holding its notebooks)")

    def notebook_name(self, assignment: str) -> str:
        """The name (without .ipynb) of the assignment's notebook, the first of :meth:`notebooks`."""
        return self.notebooks(assignment)[0]

    def has_assignment(self, assignment: str) -> bool:
        """Whether ``assignment`` is a folder of this course's ``source/`` (or ``release/``) holding notebooks."""
        try:
            self.notebooks(assignment)
        except ValueError:
            return False
        return True

    def assignments(self) -> list[str]:
        """The ids of the course's assignments in name order (the course's teaching order when its
        ids begin with their number, as ``01_variance``): every folder of ``source/``, else of
        ``release/``, that holds a notebook. Declared once, by the folders."""
        for folder in (SOURCE, RELEASE):
            top = self.root / folder
            found = sorted(p.name for p in top.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))) \
                if top.is_dir() else []
            if found:
                return found
        return []

    def submission_folder(self, student: str, assignment: str) -> Path:
        """The folder nbgrader grades one hand-in from: ``submitted/<student>/<assignment>/``."""
        return self.root / SUBMITTED / student / assignment

    def autograded_folder(self, student: str, assignment: str) -> Path:
        """The folder nbgrader grades a hand-in in: ``autograded/<student>/<assignment>/``."""
        return self.root / AUTOGRADED / student / assignment

    def feedback_folder(self, student: str, assignment: str, root: Path | None = None) -> Path:
        """The folder of a hand-in's feedback pages: ``feedback/<student>/<assignment>/`` of this
        course (or of ``root``, a staging folder laid out like it)."""
        return (root or self.root) / FEEDBACK / student / assignment

    # The paths of "the" notebook of an assignment: the first of ``notebooks`` (the only one of most).
    def source_notebook(self, assignment: str) -> Path:
        return self.root / SOURCE / assignment / f"{self.notebook_name(assignment)}.ipynb"

    def release_notebook(self, assignment: str) -> Path:
        return self.root / RELEASE / assignment / f"{self.notebook_name(assignment)}.ipynb"

    def submitted_notebook(self, student: str, assignment: str) -> Path:
        return self.submission_folder(student, assignment) / f"{self.notebook_name(assignment)}.ipynb"

    def autograded_notebook(self, student: str, assignment: str) -> Path:
        return self.autograded_folder(student, assignment) / f"{self.notebook_name(assignment)}.ipynb"

    def feedback_page(self, student: str, assignment: str) -> Path:
        return self.feedback_pages(student, assignment)[0]

    def feedback_pages(self, student: str, assignment: str) -> list[Path]:
        """Where ``nbgrader generate_feedback`` writes the page of each notebook of the submission."""
        folder = self.feedback_folder(student, assignment)
        return [folder / f"{name}.html" for name in self.notebooks(assignment)]

    def students(self, assignment: str) -> list[str]:
        """Students with a submission folder for ``assignment``, sorted."""
        submitted = self.root / SUBMITTED
        if not submitted.is_dir():
            return []
        return sorted(p.name for p in submitted.iterdir() if (p / assignment).is_dir())


def _plain_name(assignment: str) -> bool:
    """Whether ``assignment`` can name a folder of the course (no separator, not . or ..)."""
    return bool(assignment) and assignment not in (".", "..") and "/" not in assignment and "\\" not in assignment


def copy_course(course: Course, dest: Path, with_release: bool = False, with_packages: bool = False) -> Course:
    """Lay out a fresh course folder at ``dest`` from ``course``'s config, source notebooks and the
    catalogues of their prose (``locales/``).

    Copies ``nbgrader_config.py`` and ``source/<id>/`` of every assignment of ``course``;
    with_release: also its ``release/<id>/`` folders (generation still has to register the
    assignments in the gradebook); with_packages: also the course's Python packages
    (``grader.course_imports.COURSE_PACKAGE_NAMES``: the reference ``solutions`` and
    ``course_numbers``), which a grading process imports from the course folder.
    """
    from grader.course_imports import COURSE_PACKAGE_NAMES

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(course.root / CONFIG_FILE, dest / CONFIG_FILE)
    for assignment in course.assignments():
        for folder in (SOURCE, RELEASE) if with_release else (SOURCE,):
            if (course.root / folder / assignment).is_dir():
                shutil.copytree(course.root / folder / assignment, dest / folder / assignment, dirs_exist_ok=True)
    for package in COURSE_PACKAGE_NAMES if with_packages else ():
        shutil.copytree(course.root / package, dest / package, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if (course.root / LOCALES).is_dir():  # the notebooks' prose in other languages (notebook_language)
        shutil.copytree(course.root / LOCALES, dest / LOCALES, dirs_exist_ok=True)
    return Course(dest)


def configured_db_url(root: Path) -> str | None:
    """``c.CourseDirectory.db_url`` of ``root``'s nbgrader_config.py, or None when it sets none."""
    if not (Path(root) / CONFIG_FILE).exists():
        return None
    config = _load_trusted_config(Path(root))
    url = config.get("CourseDirectory", {}).get("db_url")
    return str(url) if url else None


def sqlite_url(path: Path) -> str:
    """The SQLAlchemy URL of the SQLite gradebook ``path``, with the busy timeout that lets parallel
    graders wait for each other's writes instead of failing."""
    return f"sqlite:///{path}?timeout={SQLITE_BUSY_SECONDS}"


def sqlite_file_of(db_url: str) -> Path | None:
    """The database file an SQLite URL names (None for a server database or an in-memory one)."""
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database).resolve()


def printable_db_url(db_url: str) -> str:
    """``db_url`` with any password masked, for messages and logs."""
    return make_url(db_url).render_as_string(hide_password=True)


def enable_concurrent_writers(course: Course) -> None:
    """Switch an SQLite gradebook to write-ahead logging so parallel graders do not block readers.

    A database server (PostgreSQL) handles concurrent writers itself: nothing to do.
    """
    path = course.sqlite_file
    if path is None:
        return
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")


def read_timestamp(folder: Path) -> str | None:
    """The text of ``folder/timestamp.txt`` (at most ``MAX_TIMESTAMP_CHARS``, stripped), or None when absent."""
    try:
        with open(folder / TIMESTAMP_FILE, encoding="utf-8", errors="replace") as handle:
            return handle.read(MAX_TIMESTAMP_CHARS).strip()
    except OSError:
        return None


def converter_coursedir(preprocessor):
    """The ``CourseDirectory`` of the nbgrader converter running ``preprocessor`` (exporter -> converter),
    or None when the preprocessor runs on its own."""
    return getattr(getattr(preprocessor.parent, "parent", None), "coursedir", None)


def course_root_of(preprocessor) -> str:
    """The course folder a preprocessor grades in: its converter's course directory when run by one
    (``nbgrader autograde``, ``grader``), else nbgrader's own rule (``CourseDirectory.root`` of the
    config, which defaults to the current folder)."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = converter_coursedir(preprocessor)
    if coursedir is not None:
        return coursedir.root
    return CourseDirectory(config=preprocessor.config).root


def course_name(course: Course) -> str:
    """The course's name as its pages show it: nbgrader's ``c.CourseDirectory.course_id`` of its
    config, or the course folder's name when the config sets none."""
    return load_config(course).CourseDirectory.get("course_id") or course.root.name


def load_config(course: Course):
    """The traitlets config of the course's ``nbgrader_config.py``.

    As root, UntrustedError when another account can change that file (it is Python, run on every
    load) or rename it, through the course folder or any folder above: checked on every load.
    """
    return _load_trusted_config(course.root)


def _load_trusted_config(root: Path):
    if enforced():
        problems = config_problems(root)
        if problems:
            raise UntrustedError(refusal(f"the course config {Path(root) / CONFIG_FILE}", problems))
    return PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()
