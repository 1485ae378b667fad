"""The hub's ``jupyterhub_config.py`` and the Jupyter config folders of its two roles.

Students' servers get ``JUPYTER_CONFIG_PATH=root/jupyter/student``: the course id and the exchange
(``grader.service.exchange.student_config``), nbgrader's student extensions only (assignment list,
validate; formgrader, course list and create-assignment are disabled for the server and for
JupyterLab), and nbgrader's fetch replaced by the course's translating fetch
(``notebook_language.fetch``), which reads the notebooks' compiled catalogues from
``root/jupyter/locales`` (:func:`write_notebook_catalogues`) and the student's language from
``STUDENT_LANGUAGE``, which :func:`hub_config`'s spawn hook sets for each student from the course's
roster (``grader roster``'s Language column, else the course's ``c.FeedbackPage.feedback_language``),
read when the student's server starts. Students land on their course page
(:mod:`grader.hub.course_page`) after login.

The instructor's server gets ``root/jupyter/instructor`` (the formgrader too, which JupyterLab
frames: :data:`INSTRUCTOR_FRAMING`), opens on JupyterLab, runs in the course folder (root's, which
the instructor's group reads), imports ``grader`` from it (``PYTHONPATH``) and writes the gradebook
``GRADER_DB_URL`` names.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from grader.hub import language_page
from grader.hub.accounts import Accounts
from grader.hub.course_page import MODULE_NAME as COURSE_PAGE_MODULE
from grader.hub.course_page import PAGE_PATH as COURSE_PAGE_PATH
from grader.hub.layout import HubLayout
from grader.language import language_records
from grader.language.catalogue import LANGUAGES
from grader.language.notebook_catalogue import compile_catalogues
from grader.language.student_language import languages_file
from grader.service.exchange import student_config
from grader.settings import DB_URL, EXCHANGE_ROOT
from grader.state_folders import LTI_FOLDER, LTI_HUB_FILE, LTI_JOURNAL, LTI_PLATFORM, LTI_TOOL_KEY, STATE_DIR_NAME
from notebook_language.fetch import LANGUAGE_VARIABLE, nbgrader_config_lines

#: nbgrader's server extensions and JupyterLab plugins only the instructor sees.
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
INSTRUCTOR_LAB_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list",
                          "@jupyter/nbgrader:create-assignment")
#: JupyterHub's servers refuse to be framed (frame-ancestors 'none'); JupyterLab shows the formgrader
#: in a frame of the instructor's own page, so the instructor's server allows its own origin. On a
#: hub without per-user subdomains every server shares that origin (docs/operations/hub.md, "On a production
#: course server").
INSTRUCTOR_FRAMING = "frame-ancestors 'self'"
#: The hub's authenticator (PAM passwords, LTI 1.3 launches, the students' language page) and the
#: standard-library modules it imports; they run inside JupyterHub, which imports them from the hub's
#: state folder (:func:`write_login_module`).
LOGIN_MODULE = Path(__file__).with_name("lti_login.py")
HUB_MODULES = (LOGIN_MODULE, Path(language_page.__file__), Path(language_records.__file__))
#: Seconds a single-user server may take to start on a busy 2-core machine.
SPAWN_TIMEOUT = 180


@dataclass(frozen=True)
class Ports:
    """Loopback ports: the public proxy, its REST API, the hub's own API."""

    public: int
    proxy_api: int
    hub: int


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))


def write_role_configs(layout: HubLayout, course_id: str, course_root: Path) -> None:
    """The student and the instructor Jupyter config folders (readable by everyone: no secrets)."""
    for folder, enabled in ((layout.student_config, False), (layout.instructor_config, True)):
        folder.mkdir(parents=True, exist_ok=True)
        text = student_config(course_id, layout.exchange) + nbgrader_config_lines(layout.notebook_locales)
        if enabled:
            text += f"c.CourseDirectory.root = {str(course_root)!r}\n"
        (folder / "nbgrader_config.py").write_text(text)
        # Extension switches are read from the .d folder; other server settings from the main file.
        switches = {**{name: enabled for name in INSTRUCTOR_SERVER_EXTENSIONS}, COURSE_PAGE_MODULE: not enabled}
        _write_json(folder / "jupyter_server_config.d" / "zz-course-hub.json",
                    {"ServerApp": {"jpserver_extensions": switches}})
        if enabled:
            _write_json(folder / "jupyter_server_config.json",
                        {"ServerApp": {"tornado_settings": {"headers": {"Content-Security-Policy": INSTRUCTOR_FRAMING}}}})
        _write_json(folder / "labconfig" / "page_config.json",
                    {"disabledExtensions": {name: not enabled for name in INSTRUCTOR_LAB_PLUGINS}})
        for path in (folder, *folder.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
    layout.student_config.parent.chmod(0o755)


def write_notebook_catalogues(layout: HubLayout, course_root: Path) -> list[Path]:
    """The course's catalogues of the notebooks' prose, compiled where every student's fetch reads
    them (readable by everyone: they translate what every student is given anyway); the files."""
    written = compile_catalogues(course_root, layout.notebook_locales)
    for path in (layout.notebook_locales, *layout.notebook_locales.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return written


def write_login_module(layout: HubLayout) -> None:
    """Put the hub's authenticator module and the modules it imports beside its config (root-only,
    like the config)."""
    for module in HUB_MODULES:
        target = layout.state / module.name
        target.write_bytes(module.read_bytes())
        target.chmod(0o600)


def hub_config(layout: HubLayout, accounts: Accounts, ports: Ports, env_bin: Path, course_root: Path,
               default_language: str = "en") -> str:
    """The text of ``jupyterhub_config.py`` (kept in the root-only state folder). A student's server
    gets ``STUDENT_LANGUAGE``: the roster's language of that student, else ``default_language``."""
    students = [s.name for s in accounts.students]
    lti_state = course_root / STATE_DIR_NAME / LTI_FOLDER
    base_env = {"PATH": f"{env_bin}:/usr/bin:/bin", "JUPYTER_CONFIG_PATH": str(layout.student_config),
                "LANG": "C.UTF-8"}
    instructor_env = {**base_env, "JUPYTER_CONFIG_PATH": str(layout.instructor_config),
                      "PYTHONPATH": str(course_root), EXCHANGE_ROOT.name: str(layout.exchange),
                      DB_URL.name: layout.gradebook_url}
    return f'''# Generated by `grader hub up`: a local course hub on loopback (see grader/hub/).
c = get_config()  # noqa: F821

c.JupyterHub.bind_url = "http://127.0.0.1:{ports.public}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {ports.hub}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports.proxy_api}"
c.ConfigurableHTTPProxy.command = [{str(layout.proxy_command)!r}]
c.ConfigurableHTTPProxy.debug = False
c.JupyterHub.db_url = "sqlite:///{layout.state / "jupyterhub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(layout.state / "jupyterhub_cookie_secret")!r}
c.JupyterHub.pid_file = {str(layout.state / "jupyterhub.pid")!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# Accounts' own passwords through PAM, launches from the course's LMS (LTI 1.3) for the accounts
# linked to an LMS user (grader lti), and each student's choice of language (/hub/language):
# lti_login.py, copied beside this file with the modules it imports.
import sys  # noqa: E402
sys.path.insert(0, {str(layout.state)!r})
c.JupyterHub.authenticator_class = "lti_login.CourseAuthenticator"
c.PAMAuthenticator.open_sessions = False
c.CourseAuthenticator.platform_file = {str(lti_state / LTI_PLATFORM)!r}
c.CourseAuthenticator.accounts_db = {str(lti_state / LTI_JOURNAL)!r}
c.CourseAuthenticator.hub_file = {str(lti_state / LTI_HUB_FILE)!r}
c.CourseAuthenticator.tool_key_file = {str(lti_state / LTI_TOOL_KEY)!r}
c.CourseAuthenticator.languages_file = {str(languages_file(course_root / STATE_DIR_NAME))!r}
c.CourseAuthenticator.languages = {dict(LANGUAGES)!r}
c.CourseAuthenticator.default_language = {default_language!r}
c.Authenticator.allowed_users = {set(students) | {accounts.instructor.name}!r}
c.Authenticator.admin_users = {{{accounts.instructor.name!r}}}

# Each user's server runs as that user (LocalProcessSpawner), from the shared environment.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [{str(env_bin / "jupyterhub-singleuser")!r}]
c.Spawner.default_url = {"/" + COURSE_PAGE_PATH!r}  # students land on their course page
c.Spawner.notebook_dir = "~"
c.Spawner.disable_user_config = True
c.Spawner.start_timeout = {SPAWN_TIMEOUT}
c.Spawner.http_timeout = {SPAWN_TIMEOUT}
c.Spawner.environment = {base_env!r}

INSTRUCTOR = {accounts.instructor.name!r}
INSTRUCTOR_ENVIRONMENT = {instructor_env!r}


def student_language(name):
    """The language of student ``name``: the roster's or the student's own choice, else the course's default."""
    from language_records import read_languages
    language = read_languages(c.CourseAuthenticator.languages_file).get(name)
    return language if language in c.CourseAuthenticator.languages else c.CourseAuthenticator.default_language


def role_settings(spawner):
    """The instructor's server: JupyterLab first, formgrader config, the course folder, grader
    importable from it. A student's server: the language the student's notebooks are fetched in."""
    if spawner.user.name == INSTRUCTOR:
        spawner.default_url = "/lab"
        spawner.environment = dict(INSTRUCTOR_ENVIRONMENT)
        spawner.notebook_dir = {str(course_root)!r}
    else:
        spawner.environment = {{**spawner.environment, {LANGUAGE_VARIABLE!r}: student_language(spawner.user.name)}}


c.Spawner.pre_spawn_hook = role_settings
'''
