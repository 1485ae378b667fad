"""Where one course hub keeps its parts (all under ``root``, removed on teardown) and its cache.

    root/                 0755 root
      exchange/           1777  nbgrader's exchange (c.Exchange.root)
      course/             2750  root:<instructor>  the course: root's alone to change (the grading
                                service loads its config and code), the instructor's group reads it
        gradebook/        2770  root:<instructor>  gradebook.db (0660, the instructor's): the
                                formgrader writes manual grades and comments
      home/<account>/     0700  the accounts' homes
      jupyter/student/    0755  Jupyter config of the students' servers (JUPYTER_CONFIG_PATH)
      jupyter/instructor/ 0755  ... of the instructor's server
      state/              0700  root only: hub database, cookie secret, hub config, accounts and
                                their passwords, logs, the running processes (hub.json)
    cache/                      kept between hubs: env/ (the students' Python), proxy/ (npm)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.course import sqlite_url

DEFAULT_ROOT = Path("/srv/scaled-attention-lab-hub")
DEFAULT_CACHE = Path("/var/cache/scaled-attention-lab-hub")


@dataclass(frozen=True)
class HubLayout:
    root: Path = DEFAULT_ROOT
    cache: Path = DEFAULT_CACHE

    @property
    def exchange(self) -> Path:
        return self.root / "exchange"

    @property
    def homes(self) -> Path:
        return self.root / "home"

    def home(self, account: str) -> Path:
        return self.homes / account

    @property
    def course(self) -> Path:
        """The course folder (``grader.hub.course_access`` sets its owners and modes)."""
        return self.root / "course"

    @property
    def gradebook_folder(self) -> Path:
        return self.course / "gradebook"

    @property
    def gradebook_url(self) -> str:
        """The gradebook's URL (``GRADER_DB_URL``) for the grading service and the instructor's server."""
        return sqlite_url(self.gradebook_folder / "gradebook.db")

    @property
    def student_config(self) -> Path:
        return self.root / "jupyter" / "student"

    @property
    def instructor_config(self) -> Path:
        return self.root / "jupyter" / "instructor"

    @property
    def notebook_locales(self) -> Path:
        """The compiled catalogues of the notebooks' prose, read by every student's fetch."""
        return self.root / "jupyter" / "locales"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def accounts_file(self) -> Path:
        """JSON: instructor, students, password of each (mode 0600, root)."""
        return self.state / "accounts.json"

    @property
    def processes_file(self) -> Path:
        """JSON: pids of the hub and of grader watch, the hub's URL (written when all is up)."""
        return self.state / "hub.json"

    @property
    def hub_config(self) -> Path:
        return self.state / "jupyterhub_config.py"

    def log(self, name: str) -> Path:
        return self.state / f"{name}.log"

    @property
    def env(self) -> Path:
        """The students' (and the instructor server's) Python environment."""
        return self.cache / "env"

    @property
    def proxy(self) -> Path:
        """configurable-http-proxy, installed with npm."""
        return self.cache / "proxy"

    @property
    def proxy_command(self) -> Path:
        return self.proxy / "node_modules" / ".bin" / "configurable-http-proxy"
