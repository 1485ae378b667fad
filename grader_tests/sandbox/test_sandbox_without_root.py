"""An ordinary account grades in the sandbox without root: what its kernels can reach and use.

Root makes a temporary account with an environment of its own (``ordinary_user``); as that account
a course is laid out in its home and a notebook of probe cells is graded with the course's setting
``require_sandbox = True``, in a kernel forked from the zygote and in one started by exec. Each cell reports from inside the
kernel; each test below checks one of the reports. Then the account runs ``make demo`` in a copy of
the checkout.
"""
from __future__ import annotations

import errno
import json
import re
import shutil
import stat

import pytest

from grader.sandbox.limits import STUDENT_PACKAGES, package_dirs
from grader_tests.ordinary_user import ordinary_user, skip_reason
from grader_tests.syscall_filter_cells import DIRECT_ATTACKS

# One worker runs the module: its account and environment are made once, by one fixture.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ordinary_user"),
              pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]

# Run as the account: lay out a course in its home, grade the probe notebook, print the reports.
GRADE_PROBES = r'''
import json, os, shutil, socket, sys
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config
from grader.sandbox import SandboxedExecute

home, solutions, original_solutions, start = sys.argv[1:5]
course = os.path.join(home, "course")
shutil.rmtree(course, ignore_errors=True)  # the other kernel start's
work = os.path.join(course, "autograded", "student", "ps1")
os.makedirs(work)
os.makedirs(os.path.join(course, ".grader"))
for relative, text in {"gradebook.db": "grades", ".grader/course_secret": "s3cret",
                       "nbgrader_config.py": "c = get_config()\n",
                       "autograded/student/ps1/data.csv": "1,2\n"}.items():
    with open(os.path.join(course, relative), "w") as handle:
        handle.write(text)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
targets = {"course folder": course, "gradebook": os.path.join(course, "gradebook.db"),
           "course secret": os.path.join(course, ".grader", "course_secret"),
           "solutions": solutions, "original solutions": original_solutions, "home": home,
           "checkout": os.path.dirname(solutions)}
cells = [
    "import json, os, sys, time\n"
    "print(json.dumps({'forked': 'numpy' in sys.modules, 'pid': os.getpid(), 'uid': os.getuid(),"
    " 'capabilities': open('/proc/self/status').read().split('CapEff:')[1].split()[0],"
    " 'folder': sorted(os.listdir('.'))}))",
    "reach = {}\n"
    f"for name, path in {targets!r}.items():\n"
    "    try:\n"
    "        reach[name] = sorted(os.listdir(path)) if os.path.isdir(path) else open(path).read()\n"
    "    except OSError as exc:\n"
    "        reach[name] = type(exc).__name__\n"
    "print(json.dumps(reach))",
    "import socket\n"
    "def connect(address):\n"
    "    try:\n"
    "        socket.create_connection(address, timeout=3).close()\n"
    "        return 'connected'\n"
    "    except OSError as exc:\n"
    "        return exc.strerror or type(exc).__name__\n"
    f"print(json.dumps({{'loopback': connect(('127.0.0.1', {listener.getsockname()[1]})),"
    " 'internet': connect(('1.1.1.1', 53))}))",
    "children, refused = [], None\n"
    "try:\n"
    "    for _ in range(10000):\n"
    "        pid = os.fork()\n"
    "        if pid == 0:\n"
    "            time.sleep(30)\n"
    "            os._exit(0)\n"
    "        children.append(pid)\n"
    "except OSError as exc:\n"
    "    refused = exc.strerror\n"
    "for pid in children:\n"
    "    os.kill(pid, 9)\n"
    "    os.waitpid(pid, 0)\n"
    "print(json.dumps({'forked': len(children), 'refused': refused}))",
    "try:\n"
    "    hog = bytearray(4 * 2**30)\n"
    "    single = 'allocated 4 GiB'\n"
    "except MemoryError:\n"
    "    single = 'MemoryError'\n"
    "pids = []\n"
    "for _ in range(4):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        block = bytearray(200 * 2**20)\n"
    "        for i in range(0, len(block), 4096):\n"
    "            block[i] = 1\n"
    "        time.sleep(5)\n"
    "        os._exit(0)\n"
    "    pids.append(pid)\n"
    "statuses = [os.waitpid(pid, 0)[1] for pid in pids]\n"
    "print(json.dumps({'single': single, 'killed': sum(os.WIFSIGNALED(s) and os.WTERMSIG(s) == 9"
    " for s in statuses)}))",
    "print(json.dumps({'alive': True}))",
]
from grader_tests import syscall_filter_cells as filter_cells
cells += [filter_cells.PRELUDE, filter_cells.PROBE_CELL,
          filter_cells.attack_cell("sal-filter-test-" + os.urandom(8).hex())]
nb = new_notebook(cells=[new_code_cell(c) for c in cells],
                  metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
settings = {"require_sandbox": True, "course_root": course, "tree_memory_limit": 512 * 2**20,
            "timeout": 120}
config = Config({"SandboxedExecute": settings,
                 "SandboxedKernelManager": {"fork_from_zygote": start == "zygote"}})
SandboxedExecute(config=config).preprocess(nb, {"metadata": {"path": work}})
reports = []
for cell in nb.cells:
    texts = [o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream"]
    errors = [o.get("evalue", "") for o in cell.outputs if o.get("output_type") == "error"]
    # One JSON line per cell; a loaded kernel may flush it in two stream messages (the text, then "\n").
    reports.append(json.loads("".join(texts)) if texts else {"error": errors})
print("REPORTS " + json.dumps(reports))
'''


@pytest.fixture(scope="module")
def user():
    with ordinary_user("rootless") as account:
        yield account


@pytest.fixture(scope="module", params=["zygote", "exec"])
def reports(user, request):
    """The probe cells' reports, graded as the account (a list, one dict per cell), in a kernel
    forked from the zygote and in one started by exec (``fork_from_zygote = False``)."""
    script = user.home / "grade_probes.py"
    script.write_text(GRADE_PROBES)
    shutil.chown(script, user.name, user.name)
    result = user.run(["python", str(script), str(user.home), str(user.checkout / "solutions"),
                       package_dirs(["solutions"])[0], request.param], timeout=600)
    lines = [line for line in result.stdout.splitlines() if line.startswith("REPORTS ")]
    assert lines, f"grading as {user.name} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return json.loads(lines[-1][len("REPORTS "):])


def test_the_kernel_is_pid_2_of_its_own_namespace(reports):
    assert reports[0]["pid"] == 2


def test_the_kernel_is_forked_from_the_zygote_unless_that_is_switched_off(reports, request):
    assert reports[0]["forked"] is (request.node.callspec.params["reports"] == "zygote")


def test_the_kernel_runs_without_capabilities_as_the_accounts_own_uid(reports, user):
    import pwd

    assert reports[0]["uid"] == pwd.getpwnam(user.name).pw_uid
    assert int(reports[0]["capabilities"], 16) == 0


def test_the_kernel_sees_its_folder_without_the_notebook_being_graded(reports):
    assert reports[0]["folder"] == ["data.csv"]


def test_the_kernel_sees_nothing_of_the_course_folder_but_the_way_to_its_own(reports):
    # the folders on the way to its working folder exist in its private filesystem only
    assert reports[1]["course folder"] in (["autograded"], "FileNotFoundError", "PermissionError")


@pytest.mark.parametrize("target", ["gradebook", "course secret"])
def test_the_kernel_cannot_read_the_courses(reports, target):
    assert reports[1][target] in ("FileNotFoundError", "PermissionError")


@pytest.mark.parametrize("copy", ["solutions", "original solutions"])
def test_the_kernel_cannot_read_the_solutions_package(reports, copy):
    assert reports[1][copy] in ("FileNotFoundError", "PermissionError")


def test_the_kernel_sees_of_the_accounts_home_only_the_folders_leading_to_what_it_reads(reports):
    assert set(reports[1]["home"]) <= {"course", "checkout"}


def test_the_kernel_sees_of_the_checkout_only_the_packages_notebooks_import(reports):
    assert reports[1]["checkout"] in (sorted(STUDENT_PACKAGES), "FileNotFoundError")


def test_the_kernel_cannot_reach_a_listener_on_the_loopback_outside(reports):
    assert reports[2]["loopback"] != "connected"


def test_the_kernel_cannot_reach_the_internet(reports):
    assert reports[2]["internet"] != "connected"


def test_a_fork_bomb_is_refused_at_the_process_limit(reports):
    assert reports[3]["refused"] and reports[3]["forked"] < 128


def test_one_process_cannot_allocate_past_its_memory_limit(reports):
    assert reports[4]["single"] == "MemoryError"


def test_processes_holding_more_than_the_tree_memory_limit_together_are_killed(reports):
    assert reports[4]["killed"] >= 1


def test_the_kernel_survives_what_was_killed_of_its_children(reports):
    assert reports[5] == {"alive": True}


def test_the_kernel_runs_under_the_system_call_filter(reports):
    assert "Seccomp:\t2" in reports[8]["status"], reports[8]


def test_the_kernel_is_refused_every_call_of_each_denied_family_with_eperm(reports):
    let_through = {family: verdicts for family, verdicts in reports[7].items()
                   if not verdicts or set(verdicts.values()) != {errno.EPERM}}
    assert reports[7] and let_through == {}


@pytest.mark.parametrize("call", DIRECT_ATTACKS)
def test_a_direct_attempt_of_a_refused_call_in_the_kernel_fails_with_eperm(reports, call):
    assert reports[8][call] == "EPERM", reports[8]


@pytest.mark.parametrize("path", ["/proc/keys", "/proc/key-users"])
def test_the_kernel_cannot_read_the_machines_key_lists(reports, path):
    assert reports[8][path] == "PermissionError"


@pytest.fixture(scope="module")
def demo(user):
    """``make demo`` run by the account in its copy of the checkout: (exit code, output, copy)."""
    result = user.run(["make", "demo", "PYTHON=/usr/bin/python3.11"], cwd=user.checkout, timeout=1800,
                      env={"COLUMNS": "100"})
    return result.returncode, result.stdout + result.stderr, user.checkout


def test_make_demo_as_an_ordinary_account_ends_with_the_class_report_page(demo):
    code, output, copy = demo
    assert code == 0, output[-4000:]
    assert "class report (open in a browser)" in output
    assert any((copy / "demo-course" / "feedback").rglob("*.html"))


def test_make_demo_as_an_ordinary_account_says_first_which_layers_are_weaker(demo):
    _, output, _ = demo
    first = output[:output.index("1. The lessons' claims")]
    assert "Grading without root" in first
    assert all(layer in first for layer in ("unprivileged user", "control group", "working folder quota"))


def test_make_demo_as_an_ordinary_account_says_why_the_hand_in_step_is_skipped(demo):
    _, output, _ = demo
    assert "skipped without root" in output and "useradd" in output


def test_make_demo_as_an_ordinary_account_leaves_its_course_closed_to_other_accounts(demo):
    _, _, copy = demo

    def open_to_others(path) -> bool:
        searchable = all(stat.S_IMODE(parent.stat().st_mode) & 0o011 for parent in path.parents)
        return searchable and bool(stat.S_IMODE(path.stat().st_mode) & 0o077)
    paths = [copy / name for name in ("demo-course", "demo-course/gradebook.db", "grader", "solutions", "source")]
    assert [path for path in paths if open_to_others(path)] == []


def test_make_demo_as_an_ordinary_account_shows_a_full_progress_bar_per_assignment(demo):
    _, output, _ = demo
    for assignment in ("01_variance", "02_softmax", "03_readout", "04_attention"):
        assert re.search(rf"{assignment} ━+ (\d+)/\1 ", output), assignment


def test_make_demo_prints_the_lessons_claims_in_one_line(demo):
    _, output, _ = demo
    step = output[output.index("1. The lessons' claims"):output.index("2. A course folder")]
    assert re.search(r"\n(\d+) of \1 claims reproduced", step) and "measured" not in step


@pytest.fixture(scope="module")
def doctor(user):
    """``grader doctor`` run by the account: protection -> status, from its table."""
    result = user.run(["grader", "doctor"], env={"COLUMNS": "240"}, timeout=600)
    rows = {}
    for line in result.stdout.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) == 3 and cells[0]:
            rows[cells[0]] = cells[1]
    assert rows, result.stdout + result.stderr
    return rows


def test_grader_doctor_as_an_ordinary_account_says_the_sandbox_is_built_without_root(doctor):
    assert doctor["sandbox mode"] == "active, weaker"


@pytest.mark.parametrize("layer", ["unprivileged user", "working folder quota", "memory of the process tree"])
def test_grader_doctor_as_an_ordinary_account_marks_a_weaker_layer(doctor, layer):
    assert doctor[layer] == "active, weaker"


@pytest.mark.parametrize("layer", ["filesystem isolation", "network isolation", "process isolation",
                                   "process limit", "scrubbed environment", "system call filter"])
def test_grader_doctor_as_an_ordinary_account_finds_a_kept_layer_active(doctor, layer):
    assert doctor[layer] == "active"


def test_grader_doctor_as_an_ordinary_account_names_the_cpu_quota_it_has_none_of(doctor):
    assert doctor["CPU share and quota"] == "none without root"
