"""What a student's notebook can and cannot do inside the grading sandbox.

One hostile notebook runs once in a real sandboxed kernel, in a temporary folder laid out
like a course (gradebook, source, another student's submission and grades, a stand-in for
an installed ``solutions`` package); each test reads the outcome of one of its cells.
"""
from __future__ import annotations

import errno
import json
import os
import socket
import sys
import uuid

import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.sandbox import SandboxedExecute
from grader.sandbox.launcher import processes_with_marker
from grader.sandbox.layers import detect_layers

MISSING_LAYERS = detect_layers().missing
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING_LAYERS), reason=f"sandbox layers unavailable here: "
                       f"{MISSING_LAYERS}"),
]

KERNEL_METADATA = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                  "language": "python"}}
UNREADABLE = {"FileNotFoundError", "PermissionError"}
SECRETS = {
    "gradebook.db": "GRADEBOOK-SECRET",
    "source/ps1/ps1.ipynb": "MODEL-ANSWER-SECRET",
    "submitted/other/ps1/ps1.ipynb": "OTHER-SUBMISSION-SECRET",
    "autograded/other/ps1/ps1.ipynb": "OTHER-GRADES-SECRET",
    "autograded/student/ps1/ps1.ipynb": "HIDDEN-TESTS-SECRET",  # the notebook being graded
}
OUTPUT_LIMIT = 2**20
PLANTED_ENV = {"NBGRADER_EXECUTION": "autograde", "SAL_GRADER_SECRET": "do-not-leak"}


class Outcome:
    """The executed hostile notebook, its cells by name, and what the host saw."""

    def __init__(self, notebook, names, paths, leftover_daemons, connections):
        self.notebook, self.names, self.paths = notebook, names, paths
        self.leftover_daemons, self.connections = leftover_daemons, connections

    def cell(self, name):
        return self.notebook.cells[self.names.index(name)]

    def errors(self, name):
        return [o.ename for o in self.cell(name).outputs if o.output_type == "error"]

    def text(self, name):
        parts = []
        for output in self.cell(name).outputs:
            parts.append(output.get("text", ""))
            parts.append(output.get("data", {}).get("text/plain", ""))
            parts.append(output.get("evalue", ""))
        return "".join(parts)



def _plant_course(root):
    for relative, secret in SECRETS.items():
        path = root / "course" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secret)
    site = root / "site-packages"  # stand-in for a non-editable install of the project
    (site / "solutions").mkdir(parents=True)
    (site / "solutions" / "__init__.py").write_text("SOLUTIONS-SECRET")
    (site / "public.txt").write_text("PUBLIC-PACKAGE-FILE")
    return {
        "course": root / "course",
        "workdir": root / "course" / "autograded" / "student" / "ps1",
        "other_autograded": root / "course" / "autograded" / "other" / "ps1",
        "site": site,
    }


def _hostile_cells(paths, port, marker):
    course, site = paths["course"], paths["site"]
    daemon = ("import os, sys, time\n"
              "if os.fork(): os._exit(0)\n"
              "os.setsid()\n"
              "if os.fork(): os._exit(0)\n"
              "open('daemon-started', 'w').close()\n"
              "time.sleep(300)\n")
    return {
        "imports": "import os, sys, json, socket, subprocess\nimport numpy as np",
        "read_gradebook": f"print(open({str(course / 'gradebook.db')!r}).read())",
        "read_source": f"print(open({str(course / 'source/ps1/ps1.ipynb')!r}).read())",
        "list_source": f"print(os.listdir({str(course / 'source')!r}))",
        "read_other_submission":
            f"print(open({str(course / 'submitted/other/ps1/ps1.ipynb')!r}).read())",
        "read_other_grades": f"print(open({str(paths['other_autograded'] / 'ps1.ipynb')!r})"
                             ".read())",
        "read_graded_notebook": "print(open('ps1.ipynb').read())",
        "read_solutions_standin":
            f"print(open({str(site / 'solutions' / '__init__.py')!r}).read())",
        "read_public_beside_solutions": f"print(open({str(site / 'public.txt')!r}).read())",
        "import_solutions": "import solutions",
        "import_grader": "import grader",
        "import_course_numbers": "import course_numbers\nprint(course_numbers.numbers_for('ada', '04_attention'))",
        "write_course_root": f"open({str(course / 'planted.txt')!r}, 'w').write('x')",
        "write_other_student": f"open({str(paths['other_autograded'] / 'planted.txt')!r}, "
                               "'w').write('x')",
        "write_python_install": "open(os.path.join(sys.prefix, 'planted.txt'), 'w').write('x')",
        "write_own_folder": "open('own.txt', 'w').write('mine')\nprint(open('own.txt').read())",
        "write_private_tmp": "import tempfile\n"
                             "scratch = os.path.join(tempfile.gettempdir(), 't.txt')\n"
                             "open(scratch, 'w').write('tmp')\n"
                             "print(open(scratch).read())",
        "write_home": "home_file = os.path.join(os.path.expanduser('~'), 'h.txt')\n"
                      "open(home_file, 'w').write('home')\n"
                      "print(open(home_file).read())",
        "plant_links": "os.symlink('/etc/passwd', 'passwd-link')\n"
                       "os.mkdir('sub')\n"
                       "os.symlink('/etc', 'sub/etc-link')\n"
                       "os.mkfifo('pipe')\n"
                       "print(sorted(os.listdir('.')))",
        "connect_localhost": f"socket.create_connection(('127.0.0.1', {port}), timeout=3)",
        "environment": "print(json.dumps(dict(os.environ)))",
        "numpy": "rng = np.random.default_rng(7)\n"
                 "q, k = rng.standard_normal((2, 64, 64))\n"
                 "s = q @ k.T / np.sqrt(64)\n"
                 "w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
                 "w /= w.sum(axis=-1, keepdims=True)\n"
                 "print(json.dumps(w[:3].tolist()))",
        "output_flood": "for _ in range(64):\n    print('x' * 65536)",
        "after_output_flood": "print('alive after the output flood')",
        "daemon": f"subprocess.run([sys.executable, '-c', {daemon!r}, {marker!r}])",
        "file_size_bomb": "open('big.bin', 'wb').write(b'x' * (17 * 2**20))",
        "memory_bomb": "block = bytearray(3 * 2**30)",
        "after_memory_bomb": "print('alive after the memory bomb')",
        "fork_bomb": "import time\n"
                     "n = 0\n"
                     "try:\n"
                     "    for _ in range(1000):\n"
                     "        if os.fork() == 0:\n"
                     "            time.sleep(300)\n"
                     "            os._exit(0)\n"
                     "        n += 1\n"
                     "except OSError as exc:\n"
                     "    print(json.dumps({'forks': n, 'errno': exc.errno}))",
        "after_fork_bomb": "print('alive after the fork bomb')",
    }


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    paths = _plant_course(tmp_path_factory.mktemp("sandbox-isolation"))
    listener = socket.create_server(("127.0.0.1", 0))
    marker = f"sandbox-test-daemon-{uuid.uuid4().hex}"
    cells = _hostile_cells(paths, listener.getsockname()[1], marker)
    notebook = new_notebook(cells=[new_code_cell(src) for src in cells.values()],
                            metadata=KERNEL_METADATA)
    executor = SandboxedExecute(
        timeout=60, course_root=str(paths["course"]), readonly_paths=[str(paths["site"])],
        hidden_paths=[str(paths["site"] / "solutions")], require_sandbox=True,
        max_output_bytes=OUTPUT_LIMIT)
    saved = {name: os.environ.get(name) for name in PLANTED_ENV}
    os.environ.update(PLANTED_ENV)
    try:
        executor.preprocess(notebook, {"metadata": {"path": str(paths["workdir"])},
                                       "unique_key": "ps1"})
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    leftovers = processes_with_marker(marker)
    listener.setblocking(False)
    connections = []
    try:
        connections.append(listener.accept())
    except BlockingIOError:
        pass
    listener.close()
    yield Outcome(notebook, list(cells), paths, leftovers, connections)
    for pid in leftovers:
        os.kill(pid, 9)


@pytest.mark.parametrize("cell,secret", [
    ("read_gradebook", "GRADEBOOK-SECRET"),
    ("read_source", "MODEL-ANSWER-SECRET"),
    ("read_other_submission", "OTHER-SUBMISSION-SECRET"),
    ("read_other_grades", "OTHER-GRADES-SECRET"),
])
def test_course_files_outside_its_folder_are_invisible(hostile, cell, secret):
    assert set(hostile.errors(cell)) & UNREADABLE
    assert secret not in hostile.text(cell)


def test_course_source_folder_cannot_be_listed(hostile):
    assert set(hostile.errors("list_source")) & UNREADABLE


def test_notebook_being_graded_cannot_be_read_from_its_folder(hostile):
    assert set(hostile.errors("read_graded_notebook")) & UNREADABLE
    assert "HIDDEN-TESTS-SECRET" not in hostile.text("read_graded_notebook")


def test_hidden_package_inside_a_readable_folder_is_invisible(hostile):
    assert set(hostile.errors("read_solutions_standin")) & UNREADABLE
    assert "SOLUTIONS-SECRET" not in hostile.text("read_solutions_standin")


def test_files_beside_a_hidden_package_stay_readable(hostile):
    assert "PUBLIC-PACKAGE-FILE" in hostile.text("read_public_beside_solutions")


@pytest.mark.parametrize("cell", ["import_solutions", "import_grader"])
def test_project_packages_cannot_be_imported(hostile, cell):
    assert hostile.errors(cell) == ["ModuleNotFoundError"]


def test_the_per_student_numbers_package_can_be_imported(hostile):
    from course_numbers import numbers_for

    assert hostile.errors("import_course_numbers") == []
    assert str(numbers_for("ada", "04_attention")) in hostile.text("import_course_numbers")


@pytest.mark.parametrize("cell,path", [
    ("write_course_root", "course/planted.txt"),
    ("write_other_student", "course/autograded/other/ps1/planted.txt"),
])
def test_writes_outside_its_folder_fail_and_leave_nothing(hostile, cell, path):
    assert hostile.errors(cell)
    assert not (hostile.paths["course"].parent / path).exists()


def test_python_installation_is_read_only(hostile):
    assert hostile.errors("write_python_install")
    assert not os.path.exists(os.path.join(sys.prefix, "planted.txt"))


def test_own_folder_is_writable_and_handed_back_to_the_grader(hostile):
    assert hostile.text("write_own_folder").strip() == "mine"
    own = hostile.paths["workdir"] / "own.txt"
    assert own.read_text() == "mine"
    assert own.stat().st_uid == os.getuid()


def test_links_and_fifos_left_in_its_folder_are_removed(hostile):
    assert "passwd-link" in hostile.text("plant_links")
    left = [path for path in hostile.paths["workdir"].rglob("*")
            if path.is_symlink() or not (path.is_file() or path.is_dir())]
    assert left == []


def test_private_tmp_is_writable(hostile):
    assert hostile.text("write_private_tmp").strip() == "tmp"


def test_private_home_is_writable(hostile):
    assert hostile.text("write_home").strip() == "home"


def test_no_network_even_to_localhost(hostile):
    assert hostile.errors("connect_localhost")
    assert hostile.connections == []


def test_environment_has_no_nbgrader_execution_flag(hostile):
    environment = json.loads(hostile.text("environment"))
    assert "NBGRADER_EXECUTION" not in environment


def test_environment_has_no_variable_planted_in_the_grader(hostile):
    environment = json.loads(hostile.text("environment"))
    assert "SAL_GRADER_SECRET" not in environment
    assert "do-not-leak" not in json.dumps(environment)


def test_correct_numpy_computation_gives_the_right_numbers(hostile):
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((2, 64, 64))
    s = q @ k.T / np.sqrt(64)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    assert hostile.errors("numpy") == []
    np.testing.assert_allclose(json.loads(hostile.text("numpy")), w[:3], rtol=1e-12)


def test_output_flood_is_cut_at_the_limit(hostile):
    assert hostile.errors("output_flood") == ["OutputLimitExceeded"]
    assert 0 < len(hostile.text("output_flood")) <= OUTPUT_LIMIT


def test_output_limit_applies_to_each_cell_separately(hostile):
    assert hostile.text("after_output_flood") == "alive after the output flood\n"


def test_double_forked_daemon_is_gone_after_the_notebook(hostile):
    assert (hostile.paths["workdir"] / "daemon-started").exists()
    assert hostile.leftover_daemons == []


def test_file_size_bomb_is_stopped_at_the_limit(hostile):
    assert hostile.errors("file_size_bomb") == ["OSError"]
    assert "File too large" in hostile.text("file_size_bomb")
    assert (hostile.paths["workdir"] / "big.bin").stat().st_size <= 16 * 2**20


def test_memory_bomb_raises_memory_error(hostile):
    assert hostile.errors("memory_bomb") == ["MemoryError"]


def test_kernel_keeps_running_after_the_memory_bomb(hostile):
    assert "alive after the memory bomb" in hostile.text("after_memory_bomb")


def test_fork_bomb_is_stopped_by_the_process_limit(hostile):
    result = json.loads(hostile.text("fork_bomb"))
    assert result["errno"] == errno.EAGAIN
    assert result["forks"] < 64


def test_kernel_keeps_running_after_the_fork_bomb(hostile):
    assert "alive after the fork bomb" in hostile.text("after_fork_bomb")
