"""A throw-away PostgreSQL server for the gradebook tests, and how the tests find one.

The tests use, in this order:

1. the server named by ``GRADER_TEST_POSTGRES_URL`` (a superuser URL such as
   ``postgresql://postgres@127.0.0.1:54329/postgres``; ``.ci/run`` starts one and sets it);
2. else a server of their own, started from the installed PostgreSQL binaries (Debian package
   ``postgresql``) in a temporary folder, listening on loopback only, stopped at the end;
3. else they are skipped with the reason, except under CI (``CI=true``), where a missing
   server fails them.

As a script (used by ``.ci/run``)::

    python grader_tests/postgres_server.py start DIR   # prints the superuser URL
    python grader_tests/postgres_server.py stop DIR

The server trusts every loopback connection (no password): that is what makes the test that a
grading kernel cannot reach it meaningful. Root cannot run PostgreSQL, so as root the server runs
as the ``postgres`` account the Debian package creates.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

URL_VARIABLE = "GRADER_TEST_POSTGRES_URL"
SERVER_ACCOUNT = "postgres"


class NoServer(RuntimeError):
    """No PostgreSQL server can be used here; the message says why and what to install."""


def postgres_bin() -> Path:
    """The newest installed PostgreSQL server binaries folder; NoServer when none is installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    raise NoServer(f"no PostgreSQL server is installed (apt-get install postgresql) and {URL_VARIABLE} is not set")


def _as_server_account(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    try:
        pwd.getpwnam(SERVER_ACCOUNT)
    except KeyError:
        raise NoServer(f"running as root and there is no {SERVER_ACCOUNT!r} account to run PostgreSQL as") from None
    return ["runuser", "-u", SERVER_ACCOUNT, "--", *argv]


def _free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(folder: Path) -> str:
    """initdb + pg_ctl start in ``folder`` (loopback TCP, socket in ``folder``); the superuser URL."""
    folder = Path(folder)
    binaries = postgres_bin()
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    if os.geteuid() == 0:
        account = pwd.getpwnam(SERVER_ACCOUNT)
        os.chown(folder, account.pw_uid, account.pw_gid)
        # The server account must be able to reach its folder through the temporary parents.
        for parent in folder.parents:
            if parent == Path("/"):
                break
            os.chmod(parent, os.stat(parent).st_mode | 0o001)
    port = _free_loopback_port()
    run = dict(check=True, capture_output=True, text=True, timeout=300)
    subprocess.run(_as_server_account([str(binaries / "initdb"), "-D", str(data), "-U", "postgres",
                                       "--auth=trust", "--no-sync", "-E", "UTF8"]), **run)
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off -c max_connections=200"
    subprocess.run(_as_server_account([str(binaries / "pg_ctl"), "-D", str(data), "-o", options,
                                       "-l", str(folder / "server.log"), "-w", "-t", "120", "start"]), **run)
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"


def stop_server(folder: Path) -> None:
    binaries = postgres_bin()
    subprocess.run(_as_server_account([str(binaries / "pg_ctl"), "-D", str(Path(folder) / "data"),
                                       "-m", "immediate", "-w", "stop"]),
                   capture_output=True, text=True, timeout=120)


def can_connect(url: str) -> str | None:
    """None when ``url`` accepts a connection, else the reason."""
    import sqlalchemy

    try:
        engine = sqlalchemy.create_engine(url)
        with engine.connect() as connection:
            connection.execute(sqlalchemy.text("select 1"))
        engine.dispose()
    except Exception as exc:  # any driver or connection error means: not usable
        return f"{type(exc).__name__}: {str(exc).strip()[:300]}"
    return None


def create_database(admin_url: str, prefix: str = "gradebook") -> str:
    """A new empty database on the server of ``admin_url``; its URL (psycopg 3 driver)."""
    import sqlalchemy

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    engine = sqlalchemy.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return sqlalchemy.engine.make_url(admin_url).set(drivername="postgresql+psycopg", database=name) \
        .render_as_string(hide_password=False)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print(__doc__.split("As a script")[1], file=sys.stderr)
        return 2
    if argv[0] == "start":
        print(start_server(Path(argv[1]).resolve()))
    else:
        stop_server(Path(argv[1]).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
