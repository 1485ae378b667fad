"""The course hub gives each student's server the language the roster recorded for that student, or
the student chose on the hub, else the course's default, read when the server starts; its students'
nbgrader config fetches with the translating fetch and reads the course's compiled catalogues."""
from __future__ import annotations

import ast
import subprocess
import sys
from types import SimpleNamespace

from traitlets.config import Config

from grader.hub.accounts import Account, Accounts
from grader.hub.environment import install_student_packages
from grader.hub.jupyter_config import (
    HUB_MODULES,
    LOGIN_MODULE,
    Ports,
    hub_config,
    write_login_module,
    write_notebook_catalogues,
    write_role_configs,
)
from grader.hub.layout import HubLayout
from grader.language.language_records import record_languages
from grader.language.student_language import save_student_languages
from grader.state_folders import STATE_DIR_NAME
from grader_tests.checkout import REPO_ROOT
from notebook_language.fetch import FETCH_CLASS, LANGUAGE_VARIABLE


def _spawn_hook(tmp_path, default_language):
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    accounts = Accounts(Account("sal-instructor", "x", "/home/i"), (Account("ada", "x", "/home/ada"),))
    course_root = tmp_path / "course"
    (course_root / STATE_DIR_NAME).mkdir(parents=True)
    layout.state.mkdir(parents=True)
    write_login_module(layout)
    text = hub_config(layout, accounts, Ports(8000, 8001, 8002), tmp_path / "env" / "bin", course_root,
                      default_language)
    namespace = {"get_config": Config}
    exec(compile(text, "jupyterhub_config.py", "exec"), namespace)
    return namespace["c"].Spawner.pre_spawn_hook, course_root


def _spawn(hook, name):
    spawner = SimpleNamespace(user=SimpleNamespace(name=name), environment={"LANG": "C.UTF-8"}, notebook_dir="~")
    hook(spawner)
    return spawner.environment


def test_a_student_the_roster_says_reads_chinese_gets_chinese(tmp_path):
    hook, course_root = _spawn_hook(tmp_path, "en")
    save_student_languages(course_root / STATE_DIR_NAME, {"ada": "zh"})
    assert _spawn(hook, "ada")[LANGUAGE_VARIABLE] == "zh"


def test_a_student_who_chose_chinese_on_the_hub_gets_chinese(tmp_path):
    hook, course_root = _spawn_hook(tmp_path, "en")
    record_languages(course_root / STATE_DIR_NAME / "student_languages.json", {"ada": "zh"})
    assert _spawn(hook, "ada")[LANGUAGE_VARIABLE] == "zh"


def test_a_student_the_roster_gives_no_language_gets_the_courses_default(tmp_path):
    hook, _ = _spawn_hook(tmp_path, "zh")
    assert _spawn(hook, "ada")[LANGUAGE_VARIABLE] == "zh"


def test_the_roster_is_read_when_the_server_starts_not_when_the_hub_starts(tmp_path):
    hook, course_root = _spawn_hook(tmp_path, "en")
    assert _spawn(hook, "ada")[LANGUAGE_VARIABLE] == "en"
    save_student_languages(course_root / STATE_DIR_NAME, {"ada": "zh"})
    assert _spawn(hook, "ada")[LANGUAGE_VARIABLE] == "zh"


def test_a_language_file_that_cannot_be_read_gives_the_courses_default(tmp_path):
    hook, course_root = _spawn_hook(tmp_path, "en")
    (course_root / STATE_DIR_NAME / "student_languages.json").write_text("not json")
    assert _spawn(hook, "ada")[LANGUAGE_VARIABLE] == "en"


def test_the_students_environment_keeps_what_the_hub_gives_everyone(tmp_path):
    hook, _ = _spawn_hook(tmp_path, "en")
    assert _spawn(hook, "ada")["LANG"] == "C.UTF-8"


def test_the_students_nbgrader_config_fetches_with_the_translating_fetch(tmp_path):
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    write_role_configs(layout, "scaled-attention-lab", tmp_path / "course")
    config = Config()
    exec((layout.student_config / "nbgrader_config.py").read_text(), {"get_config": lambda: config})
    assert config.ExchangeFactory.fetch_assignment == FETCH_CLASS
    assert config.TranslatingFetchAssignment.locale_dir == str(layout.notebook_locales)


def test_the_hub_compiles_the_courses_catalogues_where_every_student_can_read_them(tmp_path):
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    (written,) = write_notebook_catalogues(layout, REPO_ROOT)
    assert written == layout.notebook_locales / "zh" / "LC_MESSAGES" / "notebooks.mo"
    assert written.stat().st_mode & 0o004
    assert written.stat().st_size > 1000


def test_the_students_environment_gets_the_translating_fetch_importable_without_the_project(tmp_path):
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    install_student_packages(tmp_path / "env")
    # -S: no site hooks, so the project's own (editable) install cannot be what answers the import
    shown = subprocess.run([sys.executable, "-S", "-c", f"import sys; sys.path[:0] = [{str(site)!r}]\n"
                            "import notebook_language.cells as cells; print(cells.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert shown == str(site / "notebook_language" / "cells.py")
    assert (site / "notebook_language" / "fetch.py").exists()


def _imported_modules(path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    return {name.split(".")[0] for name in names}


def test_the_hub_gets_every_module_its_authenticator_imports_beside_its_config(tmp_path):
    layout = HubLayout(root=tmp_path / "hub", cache=tmp_path / "cache")
    layout.state.mkdir(parents=True)
    write_login_module(layout)
    copied = {path.name for path in layout.state.iterdir()}
    assert copied == {module.name for module in HUB_MODULES}
    assert all((layout.state / name).stat().st_mode & 0o077 == 0 for name in copied)
    hub_environment = {"jupyterhub", "ltiauthenticator", "tornado", "traitlets", "jwt"}
    ours = _imported_modules(LOGIN_MODULE) - set(sys.stdlib_module_names) - hub_environment
    assert ours == {name.removesuffix(".py") for name in copied} - {LOGIN_MODULE.stem}


def test_the_modules_the_hubs_authenticator_imports_need_only_the_standard_library():
    for module in (m for m in HUB_MODULES if m != LOGIN_MODULE):
        assert _imported_modules(module) <= set(sys.stdlib_module_names), module.name
