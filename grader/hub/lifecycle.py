"""Bringing a course hub up and down.

``up`` checks the machine first (:func:`grader.hub.preflight.missing`) and changes nothing when
something is missing. It then builds (or reuses) the students' environment and the proxy, makes the
hub's folders and accounts, copies the course into ``course/``, generates and releases the
assignments into the exchange, gives the course to root with read access for the instructor's group
and a gradebook the instructor writes (:mod:`grader.hub.course_access`), puts the sources in the
instructor's drafts (:mod:`grader.hub.drafts`; ``release_drafts`` takes them back), writes the Jupyter
configs, starts JupyterHub (which starts configurable-http-proxy) and ``grader watch`` (from the
root-only state folder; of the course folder, root's, only its packages are imported, once it is
checked: ``grader.course_imports``), waits until the hub answers, and records the processes in
``state/hub.json``.

``down`` stops those processes (and every process of the hub's accounts: their servers and kernels),
removes the accounts with their homes and the hub's folder. The cache (environment, proxy) stays.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from grader.course import CONFIG_FILE, Course, copy_course
from grader.hub import preflight
from grader.hub.accounts import Accounts, account_uids, create_accounts, remove_accounts
from grader.hub.course_access import give_course_to_root
from grader.hub.drafts import seed_drafts, take_draft
from grader.hub.environment import ensure_environment, ensure_proxy, kernel_metadata
from grader.hub.jupyter_config import (
    Ports,
    hub_config,
    write_login_module,
    write_notebook_catalogues,
    write_role_configs,
)
from grader.hub.layout import HubLayout
from grader.language.student_language import reading_language
from grader.settings import DB_URL, EXCHANGE_ROOT

EXCHANGE_VARIABLE = EXCHANGE_ROOT.name
START_TIMEOUT = 180  # seconds for the hub to answer on a busy machine
STOP_TIMEOUT = 30


class HubError(RuntimeError):
    """The hub cannot be brought up; the message names what is missing or wrong."""


@dataclass(frozen=True)
class RunningHub:
    url: str
    hub_pid: int
    watch_pid: int
    proxy_pid: int | None
    ports: dict

    @classmethod
    def load(cls, path: Path) -> "RunningHub":
        return cls(**json.loads(path.read_text()))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _check_machine() -> None:
    problems = preflight.missing()
    if problems:
        raise HubError("cannot start the course hub on this machine; missing:\n  - " + "\n  - ".join(problems))


def lay_out_hub_course(course: Course, dest: Path) -> Course:
    """``course`` as the instructor's clone holds it, at ``dest``: config, source, release, the
    course's packages, and the grader's own package (the instructor's server runs in the students'
    environment, which has no grader, and imports it from the course folder)."""
    from grader.sandbox.limits import package_dirs

    copied = copy_course(course, dest, with_release=True, with_packages=True)
    for folder in package_dirs(("grader",)):  # the installed engine
        shutil.copytree(folder, dest / "grader", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return copied


def release_assignments(course: Course, assignments: list[str], exchange: Path, kernel: dict) -> None:
    """``grader release`` + ``nbgrader release_assignment`` for each assignment, into ``exchange``;
    each release notebook carries ``kernel`` (:func:`grader.hub.environment.kernel_metadata`)."""
    from grader.release import generate_release, with_kernel_metadata
    from grader.service.exchange import CourseExchange

    os.environ[EXCHANGE_VARIABLE] = str(exchange)  # the course config reads it
    bin_dir = str(Path(sys.executable).parent)  # nbgrader runs `alembic` when it creates the gradebook
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
    for assignment in assignments:
        with_kernel_metadata(generate_release(course, assignment), kernel)
    releaser = CourseExchange(course)
    for assignment in assignments:
        releaser.release_assignment(assignment)


def name_instructor_group(course: Course, instructor: str) -> None:
    """Let the instructor's group read the course (``c.GradingService.instructor_group``)."""
    with open(course.root / CONFIG_FILE, "a", encoding="utf-8") as config:
        config.write(f"\n# The course hub: the instructor's group reads the course root owns.\n"
                     f"c.GradingService.instructor_group = {instructor!r}\n")


def watch_command(course_root: Path) -> list[str]:
    """``grader watch`` as the hub runs it: ``-P`` keeps the current folder off the import path."""
    return [sys.executable, "-P", "-m", "grader.cli", "watch", "--fix-permissions", "--course", str(course_root)]


def _tool_path() -> str:
    """PATH for the hub and the service: this environment's tools (alembic), node, the system."""
    return os.pathsep.join(dict.fromkeys([str(Path(sys.executable).parent), "/usr/local/sbin", "/usr/local/bin",
                                          "/usr/sbin", "/usr/bin", "/sbin", "/bin"]))


def _start(args: list[str], cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def _wait_until_up(url: str, hub: subprocess.Popen, watch: subprocess.Popen, layout: HubLayout) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        for name, process in (("jupyterhub", hub), ("grader watch", watch)):
            if process.poll() is not None:
                log = layout.log("hub" if name == "jupyterhub" else "watch")
                tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
                raise HubError(f"{name} exited with {process.returncode}; its log ({log}) ends:\n{tail}")
        try:
            with urllib.request.urlopen(f"{url}/hub/api", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    raise HubError(f"the hub did not answer at {url} within {START_TIMEOUT} s; see {layout.log('hub')}")


def up(layout: HubLayout, course: Course, students: int = 3, prefix: str = "sal", port: int = 8000,
       assignments: list[str] | None = None, say=print) -> RunningHub:
    """Bring the whole hub up for ``course`` (a course folder, copied into the hub; see the module
    docstring); the running hub. HubError when it cannot."""
    _check_machine()
    if not (course.root / CONFIG_FILE).is_file():
        raise HubError(f"{course.root} is not a course folder (no {CONFIG_FILE}); pass --course DIR")
    if layout.processes_file.exists():
        raise HubError(f"a hub is already recorded in {layout.processes_file}; run `grader hub down --root {layout.root}`")
    if layout.root.exists() and any(layout.root.iterdir()):
        raise HubError(f"{layout.root} is not empty; run `grader hub down --root {layout.root}` or choose another --root")
    assignments = list(assignments or course.assignments())
    _refuse_unknown(course, assignments)
    try:
        return _bring_up(layout, course, students, prefix, port, assignments, say)
    except BaseException:
        down(layout, say)  # whatever was made so far: processes, accounts, folders
        raise


def _bring_up(layout: HubLayout, source: Course, students: int, prefix: str, port: int,
              assignments: list[str], say) -> RunningHub:
    env_bin = ensure_environment(layout, say)
    ensure_proxy(layout, say)

    for folder, mode in ((layout.root, 0o755), (layout.homes, 0o755), (layout.state, 0o700),
                         (layout.exchange, 0o1777)):
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(mode)
    say(f"creating the accounts ({prefix}-instructor and {students} students)")
    accounts = create_accounts(layout, prefix, students)
    accounts.save(layout.accounts_file)

    course_root = layout.course
    say(f"copying the course to {course_root} and releasing {', '.join(assignments)}")
    course = lay_out_hub_course(source, course_root)
    name_instructor_group(course, accounts.instructor.name)
    layout.gradebook_folder.mkdir()
    os.environ[DB_URL.name] = layout.gradebook_url  # the course config reads it
    release_assignments(course, assignments, layout.exchange, kernel_metadata(env_bin))
    give_course_to_root(course_root, layout.gradebook_folder, accounts.instructor.name)
    seed_drafts(course, assignments, Path(accounts.instructor.home), accounts.instructor.name)

    from grader.service.exchange import CourseExchange

    write_role_configs(layout, CourseExchange(course).course_id, course_root)
    write_notebook_catalogues(layout, course_root)
    ports = Ports(public=port or free_port(), proxy_api=free_port(), hub=free_port())
    write_login_module(layout)
    layout.hub_config.write_text(hub_config(layout, accounts, ports, env_bin, course_root,
                                            reading_language(course, None)))
    layout.hub_config.chmod(0o600)

    base_env = {"PATH": _tool_path(), "LANG": "C.UTF-8", "HOME": str(layout.state)}
    hub = _start([str(env_bin / "jupyterhub"), "-f", str(layout.hub_config)], layout.state, base_env,
                 layout.log("hub"))
    watch = _start(watch_command(course_root), layout.state,
                   {**base_env, EXCHANGE_VARIABLE: str(layout.exchange), DB_URL.name: layout.gradebook_url},
                   layout.log("watch"))
    url = f"http://127.0.0.1:{ports.public}"
    running = RunningHub(url, hub.pid, watch.pid, None, ports.__dict__)
    _record(layout, running)
    _wait_until_up(url, hub, watch, layout)
    running = RunningHub(url, hub.pid, watch.pid, _proxy_pid(layout), ports.__dict__)
    _record(layout, running, ready=True)
    return running


def release_drafts(layout: HubLayout, assignments: list[str], say=print) -> None:
    """``grader hub release``: take the instructor's drafts of ``assignments`` into the course
    (:mod:`grader.hub.drafts`), generate their student versions and release them. DraftError
    naming the draft, before anything is released, when one cannot be taken."""
    if not layout.accounts_file.exists():
        raise HubError(f"no hub is recorded under {layout.root} ({layout.accounts_file} is missing)")
    instructor = Accounts.load(layout.accounts_file).instructor
    course = Course(layout.course)
    _refuse_unknown(course, assignments)
    for assignment in assignments:
        say(f"taking {take_draft(course, assignment, Path(instructor.home), instructor.name)}")
    os.environ[DB_URL.name] = layout.gradebook_url
    release_assignments(course, assignments, layout.exchange, kernel_metadata(layout.env / "bin"))
    give_course_to_root(layout.course, layout.gradebook_folder, instructor.name)
    say(f"released {', '.join(assignments)}")


def _refuse_unknown(course: Course, assignments: list[str]) -> None:
    """HubError naming the first of ``assignments`` that is no assignment of ``course``."""
    for assignment in assignments:
        try:
            course.notebooks(assignment)
        except ValueError as exc:
            raise HubError(str(exc)) from None


def _record(layout: HubLayout, running: RunningHub, ready: bool = False) -> None:
    data = {**running.__dict__}
    (layout.state / "processes.json").write_text(json.dumps(data))
    if ready:
        layout.processes_file.write_text(json.dumps(data))


def _proxy_pid(layout: HubLayout) -> int | None:
    try:
        return int((layout.state / "jupyterhub-proxy.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop_group(pid: int) -> None:
    """SIGTERM the process group ``pid`` leads; SIGKILL what is left after STOP_TIMEOUT."""
    for sig, wait in ((signal.SIGTERM, STOP_TIMEOUT), (signal.SIGKILL, 5)):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _alive(pid):
            _reap(pid)
            time.sleep(0.2)
        if not _alive(pid):
            return


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _processes_of(uids: set[int]) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def down(layout: HubLayout, say=print) -> None:
    """Stop everything ``up`` started under ``layout.root`` and remove it; safe to run twice."""
    record = layout.state / "processes.json"
    if record.exists():
        running = RunningHub.load(record)
        for name, pid in (("jupyterhub", running.hub_pid), ("grader watch", running.watch_pid)):
            started = time.monotonic()
            _stop_group(pid)
            say(f"{name} stopped ({time.monotonic() - started:.1f} s)")
        proxy = running.proxy_pid or _proxy_pid(layout)
        if proxy and _alive(proxy):
            _stop_group(proxy)
    names: list[str] = []
    if layout.accounts_file.exists():
        accounts = Accounts.load(layout.accounts_file)
        names = [account.name for account in accounts.all]
    uids = account_uids(names)
    for _ in range(3):
        pids = _processes_of(uids)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
    remove_accounts(names)
    if layout.state.is_dir():  # only a folder `up` made (it holds state/) is removed
        shutil.rmtree(layout.root, ignore_errors=True)
    say(f"course hub under {layout.root} removed (accounts: {', '.join(names) or 'none'})")
