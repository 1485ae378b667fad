"""The gradebook on a real PostgreSQL server: same scores as SQLite, export works, no lost writes.

A course points at PostgreSQL through the environment variable its ``nbgrader_config.py`` reads,
``GRADER_DB_URL``. The server comes from ``grader_tests/postgres_server.py`` (``.ci/run``'s, or one
started here from the installed binaries); without one these tests are skipped, except under CI
(``CI=true``), where they fail. Each course gets a database of its own. Hidden inputs come from a
fixed seed so that SQLite and PostgreSQL runs of the same notebook must agree cell by cell.
"""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import nbformat
import postgres_server
import pytest
from corpus_expected import expected_outcome, load_expected
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader.api import Gradebook

from grader.course import DB_URL_VARIABLE, Course, printable_db_url
from grader.demo.corpus import get_submission, hand_in
from grader.demo.simulated_class import ROSTER
from grader.notebook_cells import points_of_test_cells
from grader.release import generate_release
from grader.sandbox.execute import gradebook_files
from grader_tests.checkout import ASSIGNMENTS, create_course

CLASS = ("ada", "cai", "eli", "fay")  # model answer, a misconception, half-done, blank
ASSIGNMENT = "02_softmax"
FIXED_SEED = 20261201
WAIT = 900  # seconds: a hung command fails the test instead of the CI job


@contextmanager
def gradebook_at(url: str | None):
    """``GRADER_DB_URL`` set to ``url`` (unset for None) inside the block."""
    saved = os.environ.get(DB_URL_VARIABLE)
    if url is None:
        os.environ.pop(DB_URL_VARIABLE, None)
    else:
        os.environ[DB_URL_VARIABLE] = url
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(DB_URL_VARIABLE, None)
        else:
            os.environ[DB_URL_VARIABLE] = saved


# ---- the course's gradebook setting (no server needed) -----------------------------------------

def test_a_course_uses_the_sqlite_file_in_its_folder_by_default(tmp_path):
    course = create_course(tmp_path)
    with gradebook_at(None):
        assert course.db_url == f"sqlite:///{tmp_path / 'gradebook.db'}?timeout=60"
        assert course.sqlite_file == tmp_path / "gradebook.db"


def test_a_course_uses_the_database_grader_db_url_names(tmp_path):
    course = create_course(tmp_path)
    with gradebook_at("postgresql+psycopg://grader@db.example.edu/attention_lab"):
        assert course.db_url == "postgresql+psycopg://grader@db.example.edu/attention_lab"
        assert course.sqlite_file is None


def test_a_db_url_line_in_the_course_config_is_what_the_grader_uses(tmp_path):
    course = create_course(tmp_path)
    with open(course.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.CourseDirectory.db_url = "postgresql://grader@db.example.edu/edited"\n')
    with gradebook_at(None):
        assert course.db_url == "postgresql://grader@db.example.edu/edited"


def test_printed_gradebook_urls_hide_the_password():
    assert "s3cret" not in printable_db_url("postgresql://grader:s3cret@db.example.edu/lab")


@pytest.mark.parametrize("url,hidden", [
    ("postgresql://grader@/lab?host=/run/postgresql", ("/run/postgresql",)),
    ("postgresql://grader@%2Fvar%2Frun%2Fpostgresql/lab", ("/var/run/postgresql",)),
    ("postgresql://grader@db.example.edu:5432/lab", ()),
])
def test_the_unix_socket_folder_of_a_server_gradebook_is_hidden_from_kernels(url, hidden):
    assert gradebook_files(url) == hidden


# ---- grading with the gradebook on PostgreSQL -------------------------------------------------

def nbgrader(course: Course, url: str | None, *args: str) -> subprocess.CompletedProcess:
    """``nbgrader <args>`` in the course folder, with the course's gradebook at ``url``."""
    return _run(course, url, [sys.executable, "-m", "nbgrader", *args])


def grader(course: Course, url: str | None, *args: str) -> subprocess.CompletedProcess:
    """``grader <args>`` for the course, with the course's gradebook at ``url``."""
    return _run(course, url, [sys.executable, "-m", "grader.cli", *args, "--course", str(course.root)])


def _run(course, url, argv):
    env = {k: v for k, v in os.environ.items() if k != DB_URL_VARIABLE}
    if url is not None:
        env[DB_URL_VARIABLE] = url
    return subprocess.run(argv, cwd=course.root, env=env, capture_output=True, text=True, timeout=WAIT)


def new_course(template: Course, root: Path, url: str | None, assignments=(ASSIGNMENT,)) -> Course:
    """A copy of the released course with a fixed seed and its gradebook at ``url`` (SQLite: None)."""
    shutil.copytree(template.root, root)
    course = Course(root)
    with open(course.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"\nc.PrepareProbes.seed = {FIXED_SEED}\n")
    if url is not None:
        course.gradebook.unlink()  # the template's SQLite gradebook: nothing may use it now
        with gradebook_at(url):
            for assignment in assignments:
                generate_release(course, assignment)  # registers the assignment in PostgreSQL
    for assignment in assignments:
        for student in CLASS:
            hand_in(course, student, get_submission(assignment, ROSTER[student][assignment]))
    return course


def per_cell_scores(course: Course, url: str | None, assignment: str = ASSIGNMENT) -> dict:
    with gradebook_at(url):
        db_url = course.db_url
    with Gradebook(db_url) as gb:
        return {student: {g.name: (None if g.score is None else float(g.score)) for g in
                          gb.find_submission_notebook(ASSIGNMENTS[assignment], assignment, student).grades}
                for student in CLASS}


def exported(course: Course) -> dict:
    """(student, score, max_score) of every row of ``ASSIGNMENT`` in the course's grades.csv."""
    with open(course.root / "grades.csv", newline="", encoding="utf-8") as handle:
        return {r["student_id"]: (float(r["score"]), float(r["max_score"]))
                for r in csv.DictReader(handle) if r["assignment"] == ASSIGNMENT}


@pytest.fixture(scope="module")
def graded(released_course_template, postgres_admin_url, tmp_path_factory):
    """The class graded three ways: SQLite (plain nbgrader), PostgreSQL by plain nbgrader, by grader."""
    folder = tmp_path_factory.mktemp("postgres-gradebook")
    courses, urls, runs = {}, {}, {}
    for name in ("sqlite", "pg_nbgrader", "pg_grader"):
        urls[name] = None if name == "sqlite" else postgres_server.create_database(postgres_admin_url)
        courses[name] = new_course(released_course_template, folder / name, urls[name])
    for name in ("sqlite", "pg_nbgrader"):
        runs[f"{name} autograde"] = nbgrader(courses[name], urls[name], "autograde", ASSIGNMENT, "--create", "--force")
    runs["pg_grader autograde"] = grader(courses["pg_grader"], urls["pg_grader"], "autograde", ASSIGNMENT,
                                         "--workers", "2")
    for name in courses:
        runs[f"{name} export"] = nbgrader(courses[name], urls[name], "export")
    runs["pg_nbgrader generate_feedback"] = nbgrader(courses["pg_nbgrader"], urls["pg_nbgrader"],
                                                     "generate_feedback", ASSIGNMENT, "--force")
    return courses, urls, runs


@pytest.mark.slow
def test_every_grading_command_on_postgresql_succeeds(graded):
    _, _, runs = graded
    failed = {step: (run.stdout + run.stderr)[-3000:] for step, run in runs.items() if run.returncode != 0}
    assert failed == {}


@pytest.mark.slow
def test_plain_nbgrader_autograde_on_postgresql_gives_the_sqlite_scores(graded):
    courses, urls, _ = graded
    sqlite = per_cell_scores(courses["sqlite"], None)
    assert sum(sum(cells.values()) for cells in sqlite.values()) > 0
    assert per_cell_scores(courses["pg_nbgrader"], urls["pg_nbgrader"]) == sqlite


@pytest.mark.slow
def test_grader_autograde_on_postgresql_gives_the_sqlite_scores(graded):
    courses, urls, _ = graded
    assert per_cell_scores(courses["pg_grader"], urls["pg_grader"]) == per_cell_scores(courses["sqlite"], None)


@pytest.mark.slow
def test_no_sqlite_gradebook_is_written_when_the_course_uses_postgresql(graded):
    courses, _, _ = graded
    assert not courses["pg_nbgrader"].gradebook.exists() and not courses["pg_grader"].gradebook.exists()


@pytest.mark.slow
def test_nbgrader_export_from_postgresql_gives_the_sqlite_grades_csv(graded):
    courses, _, _ = graded
    sqlite = exported(courses["sqlite"])
    assert set(sqlite) == set(CLASS) and any(score for score, _ in sqlite.values())
    assert exported(courses["pg_nbgrader"]) == sqlite
    assert exported(courses["pg_grader"]) == sqlite


@pytest.mark.slow
def test_feedback_from_a_postgresql_gradebook_is_written_for_every_student(graded):
    courses, _, _ = graded
    assert all(courses["pg_nbgrader"].feedback_page(s, ASSIGNMENT).exists() for s in CLASS)


@pytest.mark.slow
def test_concurrent_graders_on_postgresql_lose_no_writes(released_course_template, postgres_admin_url, tmp_path):
    """Two ``grader autograde`` runs at once, two worker processes each: four writers."""
    assignments = ("02_softmax", "03_readout")
    url = postgres_server.create_database(postgres_admin_url)
    course = new_course(released_course_template, tmp_path / "course", url, assignments)
    env = {**os.environ, DB_URL_VARIABLE: url}
    runs = [subprocess.Popen([sys.executable, "-m", "grader.cli", "autograde", a, "--workers", "2",
                              "--course", str(course.root)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for a in assignments]
    outputs = [run.communicate(timeout=WAIT)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs

    rows, wrong = load_expected(), {}
    for assignment in assignments:
        points = points_of_test_cells(nbformat.read(course.source_notebook(assignment), as_version=4))
        scores = per_cell_scores(course, url, assignment)
        for student in CLASS:
            want = {cell: e.score for cell, e in
                    expected_outcome(rows, assignment, ROSTER[student][assignment], points).items()}
            if scores[student] != want:
                wrong[f"{assignment}/{student}"] = (scores[student], want)
    assert wrong == {}


# ---- the grading kernel cannot reach the server -----------------------------------------------

@pytest.mark.slow
def test_a_grading_kernel_cannot_reach_a_loopback_postgresql_server(postgres_admin_url, tmp_path):
    from sqlalchemy import create_engine, make_url, text

    from grader.sandbox import SandboxedExecute
    from grader.sandbox.layers import detect_layers

    missing = detect_layers().missing
    if missing:
        pytest.skip(f"sandbox layers unavailable here: {missing}")
    server = make_url(postgres_admin_url)
    engine = create_engine(postgres_admin_url)
    with engine.connect() as connection:  # reachable from the grading process itself
        socket_dir = connection.execute(text("show unix_socket_directories")).scalar().split(",")[0].strip()
    engine.dispose()
    port = server.port or 5432
    gradebook_url = postgres_server.create_database(postgres_admin_url)
    libpq_url = make_url(gradebook_url).set(drivername="postgresql").render_as_string(hide_password=False)
    kernel_url = make_url(gradebook_url).set(query={"host": socket_dir}).render_as_string(hide_password=False)
    cells = {
        "tcp": f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3)",
        "libpq": f"import psycopg\npsycopg.connect({libpq_url!r}, connect_timeout=3)",
        "unix_socket": f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({socket_dir + f'/.s.PGSQL.{port}'!r})",
        "environment": f"import os\nprint(repr(os.environ.get({DB_URL_VARIABLE!r})))",
    }
    course = tmp_path / "course"
    workdir = course / "autograded" / "student" / "ps1"
    workdir.mkdir(parents=True)
    notebook = new_notebook(cells=[new_code_cell(code) for code in cells.values()],
                            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                     "language": "python"}})
    # The socket folder is made readable on purpose: the gradebook URL naming it must hide it.
    executor = SandboxedExecute(timeout=60, course_root=str(course), readonly_paths=[socket_dir],
                                require_sandbox=True, allow_errors=True)
    with gradebook_at(kernel_url):
        executor.preprocess(notebook, {"metadata": {"path": str(workdir)}, "unique_key": "ps1",
                                       "nbgrader": {"db_url": kernel_url}})

    outcome = dict(zip(cells, notebook.cells))
    errors = {name: [o.get("ename") for o in cell.outputs if o.output_type == "error"]
              for name, cell in outcome.items()}
    assert errors["tcp"] and errors["tcp"][0] in ("ConnectionRefusedError", "OSError", "TimeoutError")
    assert errors["libpq"] == ["OperationalError"]
    assert errors["unix_socket"] and errors["unix_socket"][0] in ("FileNotFoundError", "PermissionError",
                                                                   "ConnectionRefusedError")
    assert errors["environment"] == [] and "None" in outcome["environment"].outputs[0]["text"]


@pytest.mark.slow
def test_a_dask_cluster_grades_into_the_postgresql_gradebook(graded, released_course_template,
                                                             postgres_admin_url, tmp_path):
    """The department set-up: workers of a Dask cluster share one PostgreSQL gradebook."""
    distributed = pytest.importorskip("distributed")
    from grader.scheduling.dask_cluster import grade_on_dask

    courses, _, _ = graded
    url = postgres_server.create_database(postgres_admin_url)
    course = new_course(released_course_template, tmp_path / "course", url)
    with gradebook_at(url):  # the workers inherit it, as every machine of a cluster must have it
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            # mutual TLS has its own tests (test_distributed.py); this one is about the gradebook
            outcomes = grade_on_dask(course, ASSIGNMENT, None, cluster.scheduler_address, insecure_scheduler=True)

    assert [o.student for o in outcomes] == sorted(CLASS) and all(o.graded for o in outcomes)
    assert per_cell_scores(course, url) == per_cell_scores(courses["sqlite"], None)
    assert not course.gradebook.exists()
