"""Every number a module of the engine names is either a course setting or a fixed number with a
reason it is not one, and each is named in one place.

A limit a course may want to change belongs in ``grader/settings.py`` (one declaration, documented
on the settings page). A module-level ``NAME = <number>`` in ``grader/`` must be listed below with
the reason it is fixed; a new one fails here until it is made a setting or listed.
"""
from __future__ import annotations

import ast
from collections import defaultdict

from grader_tests.checkout import REPO_ROOT

LINUX = "a number of the Linux kernel's interface (mount flags, prctl options, capabilities)"
SCRIPT_COPY = "the stand-alone script's own copy (it runs with the standard library only)"
FORMAT = "part of a file or wire format: changing it breaks files already written"
UNIT = "a unit or a block size, not a choice"
MACHINERY = "how often or how long the machinery waits for itself; no course has a reason to change it"
SAFETY = "a bound on what is read from untrusted input before it is judged; large enough for any honest hand-in"
ALGORITHM = "a parameter of an algorithm, chosen and tested with it (its tests pin its behaviour)"
DISPLAY = "how much of a text a page or a line shows"
OPERATIONS = "a time limit of setting up the hub or its environment (the operator's tools have their own)"

#: "<module>:<NAME>" -> why the number is fixed rather than a setting.
FIXED: dict[str, str] = {
    "grader/checks/api.py:EXACT_RTOL": ALGORITHM,
    "grader/checks/api.py:EXACT_ATOL": ALGORITHM,
    "grader/checks/common.py:STANDARD_ERRORS": ALGORITHM,
    "grader/console.py:PIPED_WIDTH": DISPLAY,
    "grader/course.py:MAX_TIMESTAMP_CHARS": SAFETY,
    "grader/demo/handin_rush.py:FOLDER_MODE": FORMAT,
    "grader/demo/handin_rush.py:HANDIN_FOLDER_MODE": FORMAT,
    "grader/demo/handin_rush.py:ERROR_LIMIT": DISPLAY,
    "grader/doctor.py:PROBE_TIMEOUT": MACHINERY,
    "grader/doctor.py:OUTPUT_PROBE_PRINT": ALGORITHM,
    "grader/formats/__init__.py:MAX_PROBLEM_CHARS": DISPLAY,
    "grader/grading/admission/limits.py:MB": UNIT,
    "grader/grading/admission/service_path.py:MAX_SECRET_BYTES": SAFETY,
    "grader/grading/grade_one.py:REASON_LINE_LIMIT": DISPLAY,
    "grader/grading/submission_fingerprint.py:FORMS_KEPT": MACHINERY,
    "grader/grading/preprocessors/decide_verdicts.py:MAX_REPORT_CHARS": SAFETY,
    "grader/grading/preprocessors/restore_cell_metadata.py:SCHEMA_VERSION": FORMAT,
    "grader/grading/seeds.py:SECRET_BYTES": FORMAT,
    "grader/grading/submission_fingerprint.py:MAX_HASHED_FILE_BYTES": SAFETY,
    "grader/grading/submission_fingerprint.py:_CHUNK": UNIT,
    "grader/grading/ungradable_record.py:MAX_REASON_CHARS": DISPLAY,
    "grader/hub/accounts.py:PASSWORD_BYTES": ALGORITHM,
    "grader/hub/course_access.py:GROUP_FOLDER": FORMAT,
    "grader/hub/course_access.py:GRADEBOOK_FOLDER": FORMAT,
    "grader/hub/course_access.py:GRADEBOOK_FILE": FORMAT,
    "grader/hub/course_page.py:RELOAD_SECONDS": MACHINERY,
    "grader/hub/course_page.py:REASON_CHARACTERS": DISPLAY,
    "grader/hub/drafts.py:MAX_DRAFT_BYTES": SAFETY,
    "grader/hub/drafts.py:READ_SECONDS": MACHINERY,
    "grader/hub/environment.py:NPM_TIMEOUT": OPERATIONS,
    "grader/hub/environment.py:PIP_TIMEOUT": OPERATIONS,
    "grader/hub/jupyter_config.py:SPAWN_TIMEOUT": OPERATIONS,
    "grader/hub/lifecycle.py:START_TIMEOUT": OPERATIONS,
    "grader/hub/lifecycle.py:STOP_TIMEOUT": OPERATIONS,
    "grader/hub/lti_login.py:STOP_WAIT_SECONDS": MACHINERY,
    "grader/hub/lti_login.py:RESPONSE_SECONDS": MACHINERY,
    "grader/kernel_side.py:MAX_REPR_CHARS": SAFETY,
    "grader/kernel_side.py:MAX_MESSAGE_CHARS": SAFETY,
    "grader/language/text_patterns.py:MAX_NESTING": ALGORITHM,
    "grader/lti/access_token.py:ASSERTION_SECONDS": FORMAT,
    "grader/lti/access_token.py:EXPIRY_MARGIN": MACHINERY,
    "grader/lti/health.py:NAMED": DISPLAY,
    "grader/lti/journal.py:CLAIM_SECONDS": MACHINERY,
    "grader/lti/platform_http.py:REASON_CHARS": DISPLAY,
    "grader/lti/tool_keys.py:KEY_BITS": ALGORITHM,
    "grader/pages/exporter.py:HIGHLIGHT_CACHE_CHARACTERS": MACHINERY,
    "grader/pages/notebook_images.py:MAX_PIXELS": SAFETY,
    "grader/sandbox/cgroups.py:V1_DEFAULT_SHARES": LINUX,
    "grader/sandbox/cgroups.py:CPU_PERIOD_US": LINUX,
    "grader/sandbox/kernel_client.py:IOPUB_CONNECT_WAIT": MACHINERY,
    "grader/sandbox/kernel_client.py:SHELL_REPLY_WAIT": MACHINERY,
    "grader/sandbox/kernel_manager.py:STARTUP_REPORT_TIMEOUT": MACHINERY,
    "grader/sandbox/kernel_manager.py:RECONNECT_INTERVAL_MS": MACHINERY,
    "grader/sandbox/kernel_manager.py:EXIT_POLL_INTERVAL": MACHINERY,
    **{f"grader/sandbox/launcher.py:{name}": LINUX for name in (
        "MS_RDONLY", "MS_NOSUID", "MS_NODEV", "MS_NOEXEC", "MS_REMOUNT", "MS_NOATIME", "MS_NODIRATIME", "MS_BIND",
        "MS_REC", "MS_RELATIME", "MNT_DETACH", "PR_SET_PDEATHSIG", "PR_SET_CHILD_SUBREAPER", "PR_SET_NO_NEW_PRIVS",
        "CLONE_NEWUSER", "CAPABILITY_VERSION_3", "KEYCTL_JOIN_SESSION_KEYRING", "PR_SET_SECCOMP",
        "SECCOMP_MODE_FILTER")},
    "grader/sandbox/launcher.py:EXIT_SETUP_FAILED": FORMAT,
    "grader/sandbox/launcher.py:MEMORY_WATCH_SECONDS": MACHINERY,
    "grader/sandbox/leftovers.py:MAX_RECORD_BYTES": SAFETY,
    "grader/sandbox/submitted_links.py:MAX_TIMESTAMP_BYTES": SAFETY,
    "grader/sandbox/workdir_quota.py:COPY_CHUNK": UNIT,
    "grader/sandbox/workdir_quota.py:SAFE_FILE_MODE": FORMAT,
    "grader/sandbox/workdir_quota.py:SAFE_EXEC_MODE": FORMAT,
    "grader/sandbox/zygote.py:READY_TIMEOUT": MACHINERY,
    "grader/sandbox/zygote.py:MS_REC": SCRIPT_COPY,
    "grader/sandbox/zygote.py:MS_PRIVATE": LINUX,
    "grader/sandbox/zygote.py:PR_SET_PDEATHSIG": SCRIPT_COPY,
    "grader/scheduling/cluster_security.py:DEFAULT_DAYS": ALGORITHM,
    "grader/scheduling/cluster_security.py:PROBE_SECONDS": MACHINERY,
    "grader/scheduling/dask_cluster.py:WORKER_WAIT_SECONDS": MACHINERY,
    "grader/scheduling/worker_lifetime.py:WATCH_INTERVAL_SECONDS": MACHINERY,
    "grader/service/budgets.py:HOUR": UNIT,
    "grader/service/budgets.py:BLOCK_BYTES": LINUX,
    "grader/service/notice.py:SETTLING_SECONDS": MACHINERY,
    "grader/service/privacy.py:INSTRUCTOR_BITS": LINUX,
    "grader/service/watch.py:SETTLING_WINDOW": MACHINERY,
    "grader/service/watch.py:GRADING_TIME_RECHECK": MACHINERY,
    "grader/service/watch.py:PASSBACK_RETRY_SECONDS": MACHINERY,
    "grader/settings.py:SQLITE_BUSY_SECONDS": MACHINERY,
    "grader/similarity/compare.py:CELL_SCORE": ALGORITHM,
    "grader/similarity/compare.py:MIN_EVIDENCE": ALGORITHM,
    "grader/similarity/compare.py:LONG_EVIDENCE": ALGORITHM,
    "grader/similarity/compare.py:CELLS_FOR_A_PAIR": ALGORITHM,
    "grader/similarity/compare.py:SMALL_CLASS": ALGORITHM,
    "grader/similarity/compare.py:HOLDS_SHARE": ALGORITHM,
    "grader/similarity/winnowing.py:K": ALGORITHM,
    "grader/similarity/winnowing.py:WINDOW": ALGORITHM,
}


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left) and _is_number(node.right)
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand)
    return False


def named_numbers() -> set[str]:
    """"<module>:<NAME>" of every module-level ``NAME = <number>`` of ``grader/``."""
    found = set()
    for path in sorted((REPO_ROOT / "grader").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            found |= {f"{path.relative_to(REPO_ROOT).as_posix()}:{target.id}" for target in targets
                      if isinstance(target, ast.Name) and target.id.isupper() and node.value is not None
                      and _is_number(node.value)}
    return found


def test_every_named_number_is_a_setting_or_fixed_with_a_reason():
    unlisted = sorted(named_numbers() - set(FIXED))
    assert unlisted == [], ("make each a setting in grader/settings.py, or list it in FIXED with why it is fixed: "
                            + ", ".join(unlisted))


def test_the_list_of_fixed_numbers_names_only_numbers_that_exist():
    assert sorted(set(FIXED) - named_numbers()) == []


def test_a_fixed_number_is_named_in_one_module_unless_a_script_keeps_its_own_copy():
    places = defaultdict(list)
    for key in named_numbers():
        places[key.split(":")[1]].append(key)
    copies = {name: keys for name, keys in places.items() if len(keys) > 1
              and sum(FIXED.get(key) != SCRIPT_COPY for key in keys) > 1}
    assert copies == {}
