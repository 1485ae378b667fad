"""What ``grader hub up`` needs from the machine, checked before anything is changed."""
from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
from pathlib import Path

#: A Python 3.11 every account can execute (the students' environment is made from it).
SHARED_PYTHONS = ("/usr/bin/python3.11", "/usr/local/bin/python3.11")
ACCOUNT_TOOLS = ("useradd", "userdel", "chpasswd")


def shared_python() -> str | None:
    """The first of :data:`SHARED_PYTHONS` that exists and that every account can run, or None."""
    for candidate in SHARED_PYTHONS:
        path = Path(candidate)
        if path.exists() and _everyone_can_run(path):
            return candidate
    return None


def _everyone_can_run(path: Path) -> bool:
    real = Path(os.path.realpath(path))
    return bool(os.stat(real).st_mode & 0o001) and all(os.stat(p).st_mode & 0o001 for p in real.parents)


def missing() -> list[str]:
    """One sentence per missing requirement, naming it and how to get it; empty when all is there."""
    problems = []
    if os.geteuid() != 0:
        problems.append(f"root: the hub creates Unix accounts and runs as root (running as uid {os.geteuid()}; use sudo)")
    tools = [tool for tool in ACCOUNT_TOOLS if shutil.which(tool) is None]
    if tools:
        problems.append(f"{', '.join(tools)}: account tools (apt-get install passwd)")
    if shutil.which("npm") is None or shutil.which("node") is None:
        problems.append("node and npm: configurable-http-proxy is an npm package (apt-get install nodejs npm)")
    if ctypes.util.find_library("pam") is None:
        problems.append("libpam: students log in with their account's password through PAM (apt-get install libpam0g)")
    python = shared_python()
    if python is None:
        problems.append(f"a Python 3.11 every account can run at one of {', '.join(SHARED_PYTHONS)} "
                        "(apt-get install python3.11 python3.11-venv)")
    elif subprocess.run([python, "-c", "import ensurepip, venv"], capture_output=True).returncode != 0:
        problems.append(f"the venv module of {python} (apt-get install python3.11-venv)")
    return problems
