"""The system call filter of every sandboxed kernel (``grader.sandbox.seccomp_profile``).

The quick tests load the compiled profile into a forked child of the test process. The slow ones
run a hostile notebook in real sandboxed kernels as root, forked from the zygote and started by
exec: one cell tries each refused call through ``doctor_checks.filter_verdict`` (which never
carries a call out, so EPERM there can only come from the sandbox's filter), one attacks directly
with calls that would succeed, or fail otherwise than with EPERM, without the filter; a second
kernel then looks for the key the first one tried to add. The route without root is tested in
``test_sandbox_without_root.py``.
"""
from __future__ import annotations

import errno
import json
import os
import sys
import tempfile
import threading
import uuid

import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from grader.sandbox import SandboxedExecute, doctor_checks, seccomp_profile
from grader.sandbox.launcher import install_syscall_filter, join_own_session_keyring
from grader.sandbox.layers import detect_layers
from grader_tests.checkout import REPO_ROOT
from grader_tests import syscall_filter_cells as filter_cells

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
NUMBERS = filter_cells.syscall_numbers()
KERNEL_METADATA = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


def in_child(function, syscall_filter: bytes | None = None):
    """``function()`` (a JSON-able result) run in a forked child, under ``syscall_filter`` if given."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            if syscall_filter is not None:
                install_syscall_filter(syscall_filter)
            os.write(write_end, json.dumps(function()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        output = reader.read()
    os.waitpid(pid, 0)
    return json.loads(output)


def in_filtered_child(function):
    """``function()`` run in a forked child under the kernels' filter."""
    return in_child(function, seccomp_profile.filter_program())


def keyctl(*args) -> int:
    """keyctl(2) made for real: its result, or minus the errno."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(NUMBERS["keyctl"], *[ctypes.c_long(a) for a in args])
    return result if result >= 0 else -ctypes.get_errno()


def raw_syscall(name: str, *args) -> str:
    """'ok' or the errno name of system call ``name`` made for real with ``args``."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(NUMBERS[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]


# ----------------------------------------------------------------------- the profile, quickly

def test_every_family_and_call_of_the_profile_is_named_on_the_security_page():
    page = (REPO_ROOT / "docs" / "security.md").read_text()
    unnamed = [family.name for family in seccomp_profile.DENIED_FAMILIES if family.name not in page]
    unnamed += [call for call in seccomp_profile.denied_syscalls() if f"`{call}`" not in page]
    assert seccomp_profile.PROFILE_NAME in page and unnamed == []


@linux_only
def test_the_probe_reports_a_call_that_no_filter_refuses_as_let_through():
    assert doctor_checks.filter_verdict(NUMBERS["add_key"]) == errno.ENOSYS


@linux_only
@pytest.mark.parametrize("family", seccomp_profile.DENIED_FAMILIES, ids=lambda family: family.name)
def test_the_compiled_filter_refuses_every_call_of_a_denied_family_with_eperm(family):
    names = [name for name in family.syscalls if name in NUMBERS]
    assert names, f"no call of {family.name} exists here"
    verdicts = in_filtered_child(lambda: {name: doctor_checks.filter_verdict(NUMBERS[name]) for name in names})
    assert verdicts == {name: errno.EPERM for name in names}


@linux_only
def test_the_compiled_filter_lets_the_calls_of_threads_and_child_processes_through():
    def run():
        started = []
        thread = threading.Thread(target=lambda: started.append(os.getpid()))
        thread.start()
        thread.join()
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        return {"thread": started == [os.getpid()], "child": os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]),
                "plain clone": doctor_checks.filter_verdict(NUMBERS["clone"], (17,))}
    assert in_filtered_child(run) == {"thread": True, "child": 7, "plain clone": errno.ENOSYS}


@linux_only
def test_the_compiled_filter_refuses_clone_with_a_namespace_flag():
    flags = filter_cells.CLONE_NEWUSER | 17  # SIGCHLD
    verdict = in_filtered_child(lambda: doctor_checks.filter_verdict(NUMBERS["clone"], (flags,)))
    assert verdict == errno.EPERM


@linux_only
def test_clone3_fails_with_enosys_so_the_c_library_falls_back_to_clone():
    assert raw_syscall("clone3", 0, 0) != "ENOSYS"  # without the filter: EFAULT or EINVAL
    assert in_filtered_child(lambda: raw_syscall("clone3", 0, 0)) == "ENOSYS"


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the x32 system call table is x86-64's")
def test_a_call_through_the_x32_table_is_refused_with_eperm():
    def x32_getpid():
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return "ok" if libc.syscall(0x40000000 | 39) >= 0 else errno.errorcode[ctypes.get_errno()]

    assert in_filtered_child(x32_getpid) == "EPERM"


KEYCTL_GET_KEYRING_ID, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING = 0, 11, -3


@linux_only
def test_a_process_joins_an_empty_session_keyring_of_its_own():
    def session_keyring():  # its serial, and the bytes of the serials of the keys it holds
        return (keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0),
                keyctl(KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, 0, 0))

    def joined():
        join_own_session_keyring()
        return session_keyring()

    inherited, _ = session_keyring()
    own, held = in_child(joined)
    assert inherited > 0 and own > 0 and own != inherited and held == 0


def test_without_libseccomp_the_filter_is_reported_missing_with_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyseccomp", None)  # import fails as if it were not installed
    seccomp_profile.filter_program.cache_clear()
    try:
        reason = seccomp_profile.unavailable_reason()
    finally:
        seccomp_profile.filter_program.cache_clear()
    assert reason is not None and "pip install pyseccomp" in reason


# ----------------------------------------------------------- real kernels, as root

MISSING_LAYERS = detect_layers().missing
needs_sandbox = pytest.mark.skipif(bool(MISSING_LAYERS), reason=f"sandbox layers unavailable here: {MISSING_LAYERS}")

KEY_DESCRIPTION = f"sal-filter-test-{uuid.uuid4().hex}"


def run_cells(cells: list[str], start: str) -> list[dict]:
    """Run ``cells`` in one real sandboxed kernel (``start``: "zygote" or "exec"); each cell's JSON."""
    notebook = new_notebook(cells=[new_code_cell(source) for source in cells], metadata=KERNEL_METADATA)
    config = Config({"SandboxedExecute": {"require_sandbox": True, "timeout": 120},
                     "SandboxedKernelManager": {"fork_from_zygote": start == "zygote"}})
    with tempfile.TemporaryDirectory(prefix="sal-filter-test-") as work:
        SandboxedExecute(config=config).preprocess(notebook, {"metadata": {"path": work}})
    reports = []
    for cell in notebook.cells:
        texts = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        errors = [f"{o.get('ename')}: {o.get('evalue')}" for o in cell.outputs if o.get("output_type") == "error"]
        reports.append(json.loads(texts) if texts.strip() and not errors else {"errors": errors, "text": texts})
    return reports


@pytest.fixture(scope="module", params=["zygote", "exec"])
def kernels(request):
    """The reports of the hostile kernel's cells, those of the next kernel, and the host's
    /proc/keys read after both, for a kernel forked from the zygote and one started by exec."""
    first = run_cells([filter_cells.PRELUDE, filter_cells.PROBE_CELL, filter_cells.attack_cell(KEY_DESCRIPTION), filter_cells.WORKS_CELL],
                      request.param)
    second = run_cells([filter_cells.PRELUDE, filter_cells.next_kernel_cell(KEY_DESCRIPTION)], request.param)
    with open("/proc/keys") as keys:
        host_keys = keys.read()
    return {"probes": first[1], "attack": first[2], "works": first[3], "next": second[1], "host": host_keys}




@pytest.mark.slow
@needs_sandbox
def test_a_sandboxed_kernel_runs_under_a_seccomp_filter(kernels):
    assert "Seccomp:\t2" in kernels["attack"]["status"], kernels["attack"]


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("family", [family.name for family in seccomp_profile.DENIED_FAMILIES])
def test_a_sandboxed_kernel_is_refused_every_call_of_a_denied_family_with_eperm(kernels, family):
    verdicts = kernels["probes"][family]
    assert verdicts and set(verdicts.values()) == {errno.EPERM}, verdicts


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("call", filter_cells.DIRECT_ATTACKS)
def test_a_direct_attempt_of_a_refused_call_in_a_sandboxed_kernel_fails_with_eperm(kernels, call):
    assert kernels["attack"][call] == "EPERM", kernels["attack"]


@pytest.mark.slow
@needs_sandbox
def test_clone3_in_a_sandboxed_kernel_fails_with_enosys(kernels):
    assert kernels["attack"]["clone3"] == "ENOSYS"


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("path", ["/proc/keys", "/proc/key-users"])
def test_a_sandboxed_kernel_cannot_read_the_machines_key_lists(kernels, path):
    assert kernels["attack"][path] == "PermissionError"


@pytest.mark.slow
@needs_sandbox
def test_a_key_one_kernel_tried_to_add_is_invisible_to_the_next_kernel(kernels):
    assert kernels["next"] == {"request_key": "EPERM", "/proc/keys": "PermissionError"}


@pytest.mark.slow
@needs_sandbox
def test_a_key_a_kernel_tried_to_add_is_invisible_to_the_host(kernels):
    assert kernels["attack"]["add_key"] == "EPERM"
    assert KEY_DESCRIPTION not in kernels["host"]


@pytest.mark.slow
@needs_sandbox
def test_numpy_matplotlib_threads_and_child_processes_work_under_the_filter(kernels):
    assert kernels["works"] == {"numpy": 64.0 * 64, "child": "42"}
