"""The sandbox's settings: validation, configuration through nbgrader, small helpers."""
from __future__ import annotations

import os
import random

import pytest
from traitlets.config import Config

from grader.sandbox import SandboxedExecute, SandboxError, SandboxLimits
from grader.sandbox.execute import gradebook_files
from grader.sandbox.kernel_manager import describe_exit
from grader.sandbox.limits import load_sandbox_limits, package_dirs, python_prefixes
from grader.sandbox.run import SandboxRun
from grader.sandbox.uid_slots import reserve_uid


@pytest.mark.parametrize("setting", ["memory_limit", "max_processes", "cpu_time_limit",
                                     "file_size_limit", "open_files_limit"])
def test_non_positive_limit_is_rejected_naming_the_setting(setting):
    with pytest.raises(ValueError, match=f"{setting} must be a positive integer"):
        SandboxLimits(**{setting: 0})


def test_open_files_limit_too_small_for_a_kernel_is_rejected():
    with pytest.raises(ValueError, match="at least 64"):
        SandboxLimits(open_files_limit=10)


def test_relative_hidden_path_is_rejected():
    with pytest.raises(ValueError, match="absolute paths"):
        SandboxLimits(hidden_paths=("gradebook.db",))


def test_uid_range_beyond_the_largest_uid_is_rejected():
    with pytest.raises(ValueError, match="uid range"):
        SandboxLimits(uid_base=2 ** 32 - 10, uid_count=100)


def test_limit_set_to_none_is_left_unlimited():
    assert SandboxLimits(memory_limit=None).memory_limit is None


def test_nbgrader_config_reaches_the_sandbox_limits():
    config = Config()
    config.SandboxedExecute.memory_limit = 3 * 2 ** 30
    config.SandboxedExecute.sandbox_env = {"COURSE": "sal"}
    limits = SandboxedExecute(config=config).sandbox_limits()
    assert limits.memory_limit == 3 * 2 ** 30
    assert dict(limits.sandbox_env) == {"COURSE": "sal"}


def test_settings_mapping_ignores_executor_options():
    limits = load_sandbox_limits({"timeout": 30, "max_processes": 12})
    assert limits.max_processes == 12


def test_grading_packages_are_found_without_importing_them():
    found = package_dirs(("solutions",))
    assert found and all(os.path.isdir(path) for path in found)


def test_python_prefixes_never_include_the_filesystem_root():
    assert "/" not in python_prefixes("/usr/bin/python3")


@pytest.mark.parametrize("url,expected", [
    ("sqlite:////course/gradebook.db?timeout=60", "/course/gradebook.db"),
    ("sqlite:////course/gradebook.db", "/course/gradebook.db"),
])
def test_gradebook_file_is_read_from_the_database_url(url, expected):
    assert gradebook_files(url)[0] == expected


@pytest.mark.parametrize("url", ["sqlite:///:memory:", "postgresql://host/db", None])
def test_non_file_databases_have_no_gradebook_file(url):
    assert gradebook_files(url) == ()


@pytest.mark.parametrize("code,words", [
    (139, "SIGSEGV (segmentation fault)"),
    (-9, "SIGKILL"),
    (1, "exited with status 1"),
    (None, "stopped responding"),
])
def test_exit_status_is_described_in_plain_words(code, words):
    assert words in describe_exit(code)


def test_reserved_uid_is_not_handed_out_again_while_held():
    base = random.randrange(3_000_000_000, 3_100_000_000)
    with reserve_uid(base, 2) as first, reserve_uid(base, 2) as second:
        assert {first.uid, second.uid} == {base, base + 1}
        with pytest.raises(RuntimeError, match="in use"):
            reserve_uid(base, 2)


def test_released_uid_can_be_reserved_again():
    base = random.randrange(3_100_000_000, 3_200_000_000)
    reserve_uid(base, 1).release()
    with reserve_uid(base, 1) as again:
        assert again.uid == base


def test_working_folder_holding_the_gradebook_is_refused(tmp_path):
    (tmp_path / "gradebook.db").write_text("")
    run = SandboxRun(SandboxLimits(), str(tmp_path), course_root=str(tmp_path))
    with pytest.raises(SandboxError, match="gradebook.db"):
        run.prepare()


def test_missing_working_folder_is_refused(tmp_path):
    with pytest.raises(SandboxError, match="does not exist"):
        SandboxRun(SandboxLimits(), str(tmp_path / "absent"))
