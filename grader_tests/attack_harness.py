"""Attack submissions as data, and the plain ``nbgrader autograde`` runs that grade them.

Every file ``grader_tests/attacks/<name>.toml`` is one submission of ``02_softmax`` that tries to
earn marks it has not earned, or to harm the grader or other students. A submission starts from
the release notebook with every solution cell holding the model answer, except ``softmax``, which
holds the wrong answer every attacker shares (the identity). Keys:

``about``       what the attack tries (required).
``solution``    the code of the ``softmax`` solution cell instead of the wrong answer; the value
                ``"model answer"`` keeps the model answer (for correct submissions).
``toolkit``     true: insert ``attacks/forge.py`` (an attacker's tools for forging probe reports)
                as a code cell right after the ``softmax`` solution cell.
``cells``       code cells inserted after that (and after the toolkit): strings, or tables with
                ``source`` and ``metadata``.
``edits``       changes to the notebook, in order: ``{op = "delete", cell = <grade_id>}``,
                ``{op = "duplicate", cell = <grade_id>}`` (the copy goes right after it),
                ``{op = "update_cell_metadata", cell = <grade_id>, value = {...}}``,
                ``{op = "update_notebook_metadata", value = {...}}`` (both merged recursively).
``files``       extra files of the submission folder: relative path -> text.
``symlinks``    symbolic links in the submission folder: relative path -> target.
``fifos``       FIFOs (named pipes) in the submission folder: relative paths.
``sized_files`` files of the submission folder given by size: relative path -> bytes (digits).
``raw``         the exact text of the submitted notebook file (then nothing above applies).
``expect``      what the attacker must score, cell by cell:
                ``"baseline"`` (default) exactly what the same wrong answer scores without the
                attack, except the cells listed in ``sabotaged``, which score 0;
                ``"zero"`` 0 for every test cell (the kernel died, or every probe was sabotaged);
                ``"ungraded"`` nbgrader records no score at all (the notebook cannot be graded);
                ``"no gain"`` at most the baseline in every cell (the outcome is not deterministic);
                ``"full marks"`` every point (a correct submission that must not be penalised).
``sabotaged``   test cells (grade ids) that score 0 under ``expect = "baseline"``.
``batch``       the course the submission is graded in (default ``"main"``): ``"processes"`` for
                attacks on the machine (loops, bombs, daemons: a short cell timeout, and an honest
                student graded right after each), ``"isolated"`` for submissions nbgrader cannot
                grade, which might stop its whole batch.

Strings (except ``about``) may use ``$course_root``, ``$repo_root``, ``$answer_url`` (a server
on 127.0.0.1 that hands out the model answer to whoever reaches it), ``$canary`` (a file outside
the course that must stay untouched) and ``$marker`` (the name attack processes give themselves,
so that survivors can be found). An attack prints ``LEAKED`` whenever it gets hold of something
it must not see.

Each batch is its own course, graded by its own ``nbgrader autograde`` run, with a baseline student
graded first and an honest student (the model answer) graded last.
"""
from __future__ import annotations

import copy
import hashlib
import http.server
import os
import secrets
import shutil
import sqlite3
import string
import subprocess
import sys
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry

from grader.course import Course
from grader.demo.corpus import write_submission
from grader.notebook_cells import grade_id, is_solution_cell, model_answers
from grader.release import generate_release
from grader_tests.checkout import REPO_ROOT, create_course, notebook_name
from grader_tests.processes import children

ATTACKS_DIR = Path(__file__).with_name("attacks")
TOOLKIT = ATTACKS_DIR / "forge.py"
ASSIGNMENT = "02_softmax"
NOTEBOOK_NAME = notebook_name(ASSIGNMENT)
TARGET = "softmax"
WRONG_ANSWER = '''def softmax(x, axis=-1):
    """The same wrong answer for every attacker: the logits themselves."""
    return np.asarray(x, dtype=float)
'''
MODEL_ANSWER = "model answer"
EXPECTATIONS = ("baseline", "zero", "ungraded", "no gain", "full marks")
MAIN, PROCESSES, ISOLATED = "main", "processes", "isolated"
# The main batch is spread over this many courses; all courses are graded at the same time.
MAIN_COURSES = 3
LEAK_MARKER = "LEAKED"
CANARY_TEXT = "canary: nothing may change this file\n"
CANARY_MODE = 0o600
_KEYS = {"about", "solution", "toolkit", "cells", "edits", "files", "symlinks", "raw", "expect",
         "sabotaged", "batch", "fifos", "sized_files"}


@dataclass(frozen=True)
class Attack:
    """One submission of the corpus (see the module docstring for the meaning of each field)."""

    name: str
    about: str
    solution: str = WRONG_ANSWER
    toolkit: bool = False
    cells: tuple = ()
    edits: tuple = ()
    files: dict = field(default_factory=dict)
    symlinks: dict = field(default_factory=dict)
    fifos: tuple = ()
    sized_files: dict = field(default_factory=dict)
    raw: str | None = None
    expect: str = "baseline"
    sabotaged: tuple = ()
    batch: str = MAIN

    @property
    def deterministic(self) -> bool:
        return self.expect in ("baseline", "zero", "ungraded", "full marks")

    @property
    def correct(self) -> bool:
        return self.expect == "full marks"

    def mentions(self, text: str) -> bool:
        """Whether the submission's code, files or links contain ``text`` (e.g. ``"$canary"``)."""
        cells = [c if isinstance(c, str) else c["source"] for c in self.cells]
        pieces = [self.solution, *cells, *self.files.values(), *self.symlinks.values()]
        return any(text in piece for piece in pieces)


def load_attack(path: Path, batches: tuple[str, ...] = (MAIN, PROCESSES, ISOLATED)) -> Attack:
    """Read one corpus file; ValueError naming the file for an unknown key, expectation or batch
    (``batches``: the batch names its corpus uses)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(data) - _KEYS
    if unknown or "about" not in data:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)} or no 'about'")
    if data.get("expect", "baseline") not in EXPECTATIONS:
        raise ValueError(f"{path.name}: expect must be one of {EXPECTATIONS}")
    if data.get("batch", MAIN) not in batches:
        raise ValueError(f"{path.name}: unknown batch {data['batch']!r}")
    for key in ("cells", "edits", "sabotaged", "fifos"):
        if key in data:
            data[key] = tuple(data[key])
    return Attack(name=path.stem, **data)


def load_attacks(folder: Path = ATTACKS_DIR,
                 batches: tuple[str, ...] = (MAIN, PROCESSES, ISOLATED)) -> list[Attack]:
    return [load_attack(path, batches) for path in sorted(folder.glob("*.toml"))]


# ---- building submissions -------------------------------------------------------------------

def _substitute(value, values: dict[str, str]):
    if isinstance(value, str):
        return string.Template(value).substitute(values)
    if isinstance(value, dict):
        return {k: _substitute(v, values) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_substitute(v, values) for v in value]
    return value


def merge_into(target: dict, changes: dict) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            merge_into(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def _index_of(nb: NotebookNode, cell_id: str) -> int:
    indices = [i for i, cell in enumerate(nb.cells) if grade_id(cell) == cell_id]
    if len(indices) != 1:
        raise ValueError(f"the release notebook has no single cell {cell_id!r}")
    return indices[0]


def _new_code_cell(spec) -> NotebookNode:
    if isinstance(spec, str):
        return nbformat.v4.new_code_cell(spec)
    cell = nbformat.v4.new_code_cell(spec["source"])
    merge_into(cell.metadata, spec.get("metadata", {}))
    return cell


def _apply_edit(nb: NotebookNode, edit: dict) -> None:
    op = edit["op"]
    if op == "update_notebook_metadata":
        merge_into(nb.metadata, edit["value"])
        return
    index = _index_of(nb, edit["cell"])
    if op == "delete":
        del nb.cells[index]
    elif op == "duplicate":
        duplicate = copy.deepcopy(nb.cells[index])
        if "id" in duplicate:
            duplicate["id"] = secrets.token_hex(4)
        nb.cells.insert(index + 1, duplicate)
    elif op == "update_cell_metadata":
        merge_into(nb.cells[index].metadata, edit["value"])
    else:
        raise ValueError(f"unknown edit {op!r}")


def submission_notebook(attack: Attack, release: NotebookNode, source: NotebookNode,
                        values: dict[str, str]) -> NotebookNode:
    """The release notebook filled with the model answer, the attack's ``softmax`` and its changes
    (``values``: the placeholders' values)."""
    answers = model_answers(source)
    if attack.solution != MODEL_ANSWER:
        answers[TARGET] = _substitute(attack.solution, values)
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        if is_solution_cell(cell):
            cell.source = answers[grade_id(cell)]
    added = ([TOOLKIT.read_text(encoding="utf-8")] if attack.toolkit else []) + \
        _substitute(list(attack.cells), values)
    position = _index_of(nb, TARGET) + 1
    nb.cells[position:position] = [_new_code_cell(spec) for spec in added]
    for edit in attack.edits:
        _apply_edit(nb, edit)
    return nb


def hand_in(course: Course, student: str, attack: Attack, values: dict[str, str],
            release: NotebookNode, source: NotebookNode) -> None:
    """Write ``attack`` as ``student``'s submission folder in ``course`` (release and source: the
    assignment's student and instructor notebooks; values: the placeholders' values)."""
    if attack.raw is not None:
        write_submission(course, student, ASSIGNMENT, attack.raw.encode("utf-8"))
        return
    path = write_submission(course, student, ASSIGNMENT, submission_notebook(attack, release, source, values))
    for relative, text in _substitute(attack.files, values).items():
        (path.parent / relative).parent.mkdir(parents=True, exist_ok=True)
        (path.parent / relative).write_text(text, encoding="utf-8")
    for relative, target in _substitute(attack.symlinks, values).items():
        (path.parent / relative).parent.mkdir(parents=True, exist_ok=True)
        (path.parent / relative).symlink_to(target)
    for relative in attack.fifos:
        (path.parent / relative).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path.parent / relative)
    for relative, size in attack.sized_files.items():
        (path.parent / relative).parent.mkdir(parents=True, exist_ok=True)
        with open(path.parent / relative, "wb") as handle:
            handle.write(b"9" * size)


BASELINE = Attack("baseline", "the attackers' wrong answer, without any attack", expect="baseline")
HONEST = Attack("honest", "the model answer", solution=MODEL_ANSWER, expect="full marks")


# ---- batches ----------------------------------------------------------------------------------

@dataclass
class Batch:
    """One course graded by one ``nbgrader autograde`` run; ``roster`` lists (student, attack) in
    grading order (nbgrader grades students sorted by id)."""

    name: str
    course: Course
    roster: list[tuple[str, Attack]]
    returncode: int | None = None

    @property
    def log(self) -> Path:
        return self.course.root.parent / f"{self.name}-autograde.log"

    def student(self, attack: Attack) -> str:
        return next(s for s, a in self.roster if a is attack)

    def followers(self, attack: Attack) -> list[str]:
        """Students graded after ``attack`` in this batch."""
        students = [s for s, _ in self.roster]
        return students[students.index(self.student(attack)) + 1:]


def plan_batches(corpus: list[Attack]) -> dict[str, list[Attack]]:
    """Batch name -> its attacks: ``main-1`` ... ``main-<MAIN_COURSES>`` share the main batch."""
    plan: dict[str, list[Attack]] = {f"{MAIN}-{n}": [] for n in range(1, MAIN_COURSES + 1)}
    mains = [a for a in corpus if a.batch == MAIN]
    for number, attack in enumerate(mains):
        plan[f"{MAIN}-{number % MAIN_COURSES + 1}"].append(attack)
    for attack in corpus:
        if attack.batch != MAIN:
            plan.setdefault(attack.batch, []).append(attack)
    return {name: attacks for name, attacks in plan.items() if attacks}


def lay_out_batch(template: Course, folder: Path, name: str, attacks: list[Attack], shared: dict[str, str],
                  run_token: str, honest_after_each: bool | None = None) -> Batch:
    """Copy the released course to ``folder / name`` and hand in the batch's submissions.

    honest_after_each: an honest student right after every attacker (default: in the processes
    batch only).
    shared: the placeholders of :func:`placeholders`; each attack also gets its own ``$canary``
    (created here, next to the course) and ``$marker``, so that harm is traced to its attack.
    """
    root = folder / name / "course"
    shutil.copytree(template.root, root)
    course = Course(root)
    roster = [("000-baseline", BASELINE)]
    for number, attack in enumerate(attacks, start=1):
        roster.append((f"{number:03d}a-{attack.name}", attack))
        if name == PROCESSES if honest_after_each is None else honest_after_each:
            roster.append((f"{number:03d}b-honest", HONEST))
    roster.append(("999-honest", HONEST))
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    for student, attack in roster:
        values = {**shared, "course_root": str(root), "canary": str(make_canary(canary_path(folder, attack))),
                  "marker": process_marker(run_token, attack)}
        hand_in(course, student, attack, values, release, source)
    return Batch(name, course, roster)


def autograde_command(batch: Batch, loop_timeout: int) -> list[str]:
    """``nbgrader autograde`` as an instructor types it; the processes batch, whose loops would
    otherwise hold the course's cell timeout each, gets ``loop_timeout`` seconds per cell."""
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    command = [nbgrader, "autograde", ASSIGNMENT, "--create", "--force"]
    return command + [f"--SandboxedExecute.timeout={loop_timeout}"] if batch.name == PROCESSES else command


def run_batches(batches: list[Batch], loop_timeout: int, deadline_seconds: int) -> None:
    """Grade every batch with plain ``nbgrader autograde``, all batches at the same time."""
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    running = []
    for batch in batches:
        log = open(batch.log, "wb")
        running.append((batch, log, subprocess.Popen(autograde_command(batch, loop_timeout), env=env,
                                                      cwd=batch.course.root, stdout=log, stderr=subprocess.STDOUT)))
    for batch, log, process in running:
        try:
            batch.returncode = process.wait(timeout=deadline_seconds)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()


def _peak_rss(pid: int) -> int:
    """VmHWM (the most resident memory the process ever had) of ``pid`` in bytes, 0 if gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def run_grader_autograde(batch: Batch, workers: int, deadline_seconds: int) -> dict:
    """Grade ``batch`` with ``grader autograde --workers N`` as an instructor types it.

    Returns the return code, the wall-clock seconds, the printed report and the peak resident
    memory (VmHWM, bytes) of the grading processes: the command itself and its worker processes
    (sampled while they live; the sandboxed kernels below them are not grading processes).
    """
    grader = str(Path(sys.executable).parent / "grader")
    env = {**os.environ, "COLUMNS": "400",
           "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    peaks: dict[int, int] = {}
    started = time.monotonic()
    with open(batch.log, "wb") as log:
        process = subprocess.Popen([grader, "autograde", ASSIGNMENT, "--workers", str(workers),
                                    "--course", str(batch.course.root)],
                                   env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            while process.poll() is None:
                if time.monotonic() - started > deadline_seconds:
                    break
                for pid in [process.pid, *children(process.pid)]:
                    peaks[pid] = max(peaks.get(pid, 0), _peak_rss(pid))
                time.sleep(0.25)
        finally:
            if process.poll() is None:
                process.kill()
            batch.returncode = process.wait()
    return {"returncode": batch.returncode, "seconds": time.monotonic() - started,
            "report": batch.log.read_text(encoding="utf-8", errors="replace"),
            "peak_rss": max(peaks.values(), default=0)}


# ---- what grading left behind -------------------------------------------------------------------

def scores(course: Course, student: str) -> dict[str, float | None]:
    """grade_id -> the student's score for every test cell: the manual score if a grader (or
    anyone else) set one, else the automatic one; None where nbgrader recorded neither."""
    with Gradebook(course.db_url) as gb:
        try:
            notebook = gb.find_submission_notebook(NOTEBOOK_NAME, ASSIGNMENT, student)
        except MissingEntry:
            return dict.fromkeys(max_scores(course))
        return {grade.name: _score(grade) for grade in notebook.grades}


def _score(grade) -> float | None:
    score = grade.manual_score if grade.manual_score is not None else grade.auto_score
    return None if score is None else round(float(score), 6)


def max_scores(course: Course) -> dict[str, float]:
    with Gradebook(course.db_url) as gb:
        notebook = gb.find_notebook(NOTEBOOK_NAME, ASSIGNMENT)
        return {cell.name: float(cell.max_score) for cell in notebook.grade_cells}


GRADEBOOK_DEFINITIONS = ("course", "assignment", "notebook", "base_cell", "grade_cells",
                         "solution_cells", "source_cell", "task_cells")


def gradebook_definitions(course: Course) -> dict[str, list[list]]:
    """The rows that define the assignment (cells, sources, points, checksums), by table."""
    with sqlite3.connect(f"file:{course.gradebook}?mode=ro", uri=True) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {table: sorted((list(row) for row in db.execute(f"SELECT * FROM {table}")), key=repr)
                for table in GRADEBOOK_DEFINITIONS if table in tables}


def tree_digest(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder`` (symbolic links by their target)."""
    digests = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            digests[str(path.relative_to(folder))] = "-> " + os.readlink(path)
        elif path.is_file():
            digests[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def irregular_entries(folder: Path) -> list[str]:
    """Entries under ``folder`` that are neither regular files nor directories (links, pipes, ...)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_symlink() or not (p.is_file() or p.is_dir()))


def processes_named(name: str) -> list[int]:
    """Live processes whose command name (``/proc/<pid>/comm``) is ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def outputs_text(notebook_path: Path) -> str:
    """All text the autograded notebook's code cells show (streams, errors, text displays)."""
    if not notebook_path.exists():
        return ""
    nb = nbformat.read(notebook_path, as_version=4)
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.append(output.get("evalue", ""))
            parts.append(str(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def canary_path(folder: Path, attack: Attack) -> Path:
    """The file outside every course that ``attack`` must leave untouched."""
    return folder / "canaries" / f"{attack.name}.txt"


def make_canary(path: Path) -> Path:
    path.parent.mkdir(exist_ok=True)
    path.write_text(CANARY_TEXT, encoding="utf-8")
    path.chmod(CANARY_MODE)
    return path


def process_marker(run_token: str, attack: Attack) -> str:
    """The name ``attack``'s processes give themselves in this run: no other program uses it
    (15 characters, the longest name Linux keeps)."""
    return "a" + hashlib.sha256(f"{run_token}/{attack.name}".encode()).hexdigest()[:14]


class AnswerServer:
    """An HTTP server on 127.0.0.1 handing out ``answer`` and counting who asked."""

    def __init__(self, answer: str):
        self.hits = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the http.server naming)
                server.hits += 1
                body = answer.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/softmax.py"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "AnswerServer":
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def placeholders(answer_url: str) -> dict[str, str]:
    """The placeholders every submission shares (the others are set per batch and attack)."""
    return {"repo_root": str(REPO_ROOT), "answer_url": answer_url}


# ---- the whole corpus, graded once --------------------------------------------------------------

def grade_corpus(folder: Path, corpus: list[Attack], loop_timeout: int, deadline_seconds: int) -> dict:
    """Release ``02_softmax`` in a course under ``folder``, grade every batch of ``corpus`` and
    return what the tests need to know, as JSON-safe data (see :class:`GradedCorpus`)."""
    template = create_course(folder / "template")
    generate_release(template, ASSIGNMENT)
    run_token = secrets.token_hex(8)
    source = nbformat.read(template.source_notebook(ASSIGNMENT), as_version=4)
    with AnswerServer(model_answers(source)[TARGET]) as server:
        shared = placeholders(server.url)
        batches = [lay_out_batch(template, folder, name, attacks, shared, run_token)
                   for name, attacks in plan_batches(corpus).items()]
        definitions = {b.name: gradebook_definitions(b.course) for b in batches}
        digests = {b.name: tree_digest(b.course.root / "source") for b in batches}
        run_batches(batches, loop_timeout, deadline_seconds)
    return {"folder": str(folder), "run_token": run_token, "server_hits": server.hits,
            "definitions_before": definitions, "digests_before": digests,
            "batches": [{"name": b.name, "root": str(b.course.root), "returncode": b.returncode,
                         "roster": [[student, attack.name] for student, attack in b.roster]} for b in batches]}


class GradedCorpus:
    """The corpus after grading (rebuilt from :func:`grade_corpus`'s summary): every batch's
    course, and what the runs left behind."""

    def __init__(self, summary: dict, corpus: list[Attack]):
        by_name = {a.name: a for a in [*corpus, BASELINE, HONEST]}
        self.folder = Path(summary["folder"])
        self.run_token = summary["run_token"]
        self.server_hits = summary["server_hits"]
        self.definitions_before = summary["definitions_before"]
        self.digests_before = summary["digests_before"]
        self.batches = [Batch(b["name"], Course(Path(b["root"])), [(s, by_name[a]) for s, a in b["roster"]],
                              b["returncode"]) for b in summary["batches"]]
        self.batch_of = {attack.name: batch for batch in self.batches for _, attack in batch.roster
                         if attack not in (BASELINE, HONEST)}

    def scores(self, attack: Attack) -> dict:
        batch = self.batch_of[attack.name]
        return scores(batch.course, batch.student(attack))

    def baseline(self, attack: Attack) -> dict:
        batch = self.batch_of[attack.name]
        return scores(batch.course, batch.student(BASELINE))

    def full_marks(self, attack: Attack) -> dict:
        return max_scores(self.batch_of[attack.name].course)

    def graded_folder(self, attack: Attack) -> Path:
        batch = self.batch_of[attack.name]
        return batch.course.root / "autograded" / batch.student(attack) / ASSIGNMENT

    def outputs(self, attack: Attack) -> str:
        return outputs_text(self.graded_folder(attack) / f"{NOTEBOOK_NAME}.ipynb")
