"""The corpus of realistic hand-ins, and submissions built from a release notebook.

A submission is written the way a student produces one: start from the release notebook and
fill its solution cells, found by their nbgrader ``grade_id``. The corpus (``grader_tests/corpus/``
of the repository, found through ``grader.demo.checkout``) describes each hand-in as a small text
file, ``<assignment>/<submission>.py``::

    # Attention scores divided by d_k instead of sqrt(d_k).
    # base: model
    # kind: misconception
    # %% scaled_dot_product_attention
    def scaled_dot_product_attention(Q, K, V, mask=None):
        ...

The comment lines before the first ``# %%`` are the header: free text is the summary, and two
keys say what the submission starts from and what it shows.

- ``base: model`` — every solution cell holds the model answer (the source notebook's cell
  without its solution markers); ``base: blank`` — every solution cell is left as released.
- ``kind`` — ``correct``, ``blank``, ``partial``, ``misconception`` or ``fault`` (code that errs,
  prints, loops or crashes rather than computing something wrong);
- optionally ``sandbox: required`` — the code may only run in the grader's sandboxed kernel (it
  never ends, or kills its own process), never in a test process.

Each ``# %% <grade_id>`` section then replaces that solution cell's code. A file
``<assignment>/<submission>.ipynb`` is handed in byte for byte instead (kind ``unreadable``).

What each submission must earn is the test suite's business (``grader_tests/corpus_expected.py``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from grader.course import Course
from grader.notebook_cells import grade_id, is_solution_cell, model_answers

BASES = ("model", "blank")
KINDS = ("correct", "blank", "partial", "misconception", "fault", "unreadable")

_SECTION = re.compile(r"^# %%[ \t]*(?P<grade_id>\S*)[ \t]*$")
_HEADER_KEY = re.compile(r"^#\s*(?P<key>base|kind|sandbox):\s*(?P<value>\S+)\s*$")


class CorpusError(ValueError):
    """A corpus file or the expected table is malformed (names the file and the problem)."""


@dataclass(frozen=True)
class Submission:
    """One hand-in of the corpus.

    cells: grade_id of a solution cell -> the code the student put there (in file order).
    raw: for an unreadable hand-in, the exact file content; None otherwise.
    sandbox_only: the code must run only in the sandboxed grading kernel.
    """

    assignment: str
    name: str
    base: str
    kind: str
    summary: str
    cells: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    sandbox_only: bool = False

    @property
    def unreadable(self) -> bool:
        return self.raw is not None


def parse_submission(path: Path, assignment: str | None = None) -> Submission:
    """Read one corpus file (``.py`` sections or a raw ``.ipynb``); CorpusError when malformed."""
    path = Path(path)
    assignment = assignment or path.parent.name
    if path.suffix == ".ipynb":
        return Submission(assignment, path.stem, base="file", kind="unreadable",
                          summary="a file handed in as it is", raw=path.read_bytes())
    header: dict[str, str] = {}
    summary: list[str] = []
    cells: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        section = _SECTION.match(line)
        if section:
            grade_id = section.group("grade_id")
            if not grade_id:
                raise CorpusError(f"{path}:{number}: '# %%' needs the grade_id of a solution cell")
            if grade_id in cells:
                raise CorpusError(f"{path}:{number}: solution cell {grade_id!r} is given twice")
            current = cells[grade_id] = []
        elif current is not None:
            current.append(line)
        elif key := _HEADER_KEY.match(line):
            header[key.group("key")] = key.group("value")
        elif line.startswith("#"):
            summary.append(line.lstrip("#").strip())
        elif line.strip():
            raise CorpusError(f"{path}:{number}: code before the first '# %% <grade_id>' section")
    base, kind = header.get("base"), header.get("kind")
    if base not in BASES:
        raise CorpusError(f"{path}: the header needs '# base: model' or '# base: blank' (got {base!r})")
    if kind not in KINDS:
        raise CorpusError(f"{path}: the header needs '# kind: <{'|'.join(KINDS)}>' (got {kind!r})")
    if header.get("sandbox", "required") != "required":
        raise CorpusError(f"{path}: the only sandbox setting is '# sandbox: required'")
    return Submission(assignment, path.stem, base, kind, " ".join(s for s in summary if s),
                      {grade_id: "\n".join(lines).strip("\n") + "\n" for grade_id, lines in cells.items()},
                      sandbox_only="sandbox" in header)


def load_corpus(assignment: str | None = None, corpus: Path | None = None) -> list[Submission]:
    """Every submission of ``assignment`` (default: of all assignments), by assignment then name,
    from the folder ``corpus`` (default: the repository's corpus, ``grader.demo.checkout``)."""
    if corpus is None:
        from grader.demo.checkout import checkout

        corpus = checkout().CORPUS_DIR
    assignments = [assignment] if assignment else sorted(p.name for p in Path(corpus).iterdir() if p.is_dir())
    submissions = []
    for name in assignments:
        folder = Path(corpus) / name
        if not folder.is_dir():
            continue
        submissions += [parse_submission(path, name) for path in sorted(folder.iterdir())
                        if path.suffix in (".py", ".ipynb")]
    return submissions


def get_submission(assignment: str, name: str, corpus: Path | None = None) -> Submission:
    """The corpus submission ``name`` of ``assignment``; KeyError naming the known ones otherwise."""
    found = {s.name: s for s in load_corpus(assignment, corpus)}
    if name not in found:
        raise KeyError(f"no corpus submission {assignment}/{name}; known: {', '.join(sorted(found))}")
    return found[name]


def build_notebook(submission: Submission, release: NotebookNode, source: NotebookNode) -> NotebookNode:
    """The release notebook with its solution cells filled as ``submission`` says.

    release / source: the assignment's student and instructor notebooks. The result has the
    release's cells, metadata and order; only solution cells' code changes, and outputs are
    empty, as in a notebook saved before running. ValueError when the submission names a cell
    that is not a solution cell of the release.
    """
    if submission.unreadable:
        raise ValueError(f"{submission.assignment}/{submission.name} is a raw file, not a notebook to build")
    notebook = nbformat.from_dict(nbformat.reader.reads(nbformat.writes(release)))
    solution_ids = {grade_id(c) for c in notebook.cells if is_solution_cell(c)}
    unknown = sorted(set(submission.cells) - solution_ids)
    if unknown:
        raise ValueError(f"{submission.assignment}/{submission.name} fills {unknown}, which are not solution "
                         f"cells of the release (those are {sorted(solution_ids)})")
    answers = model_answers(source) if submission.base == "model" else {}
    for cell in notebook.cells:
        cell_id = grade_id(cell)
        if not is_solution_cell(cell):
            continue
        if cell_id in submission.cells:
            cell.source = submission.cells[cell_id].rstrip("\n")
        elif cell_id in answers:
            cell.source = answers[cell_id]
    return notebook


def write_submission(course: Course, student: str, assignment: str, notebook: NotebookNode | bytes) -> Path:
    """Put ``notebook`` (or raw file content) where nbgrader collects ``student``'s ``assignment``."""
    path = course.submitted_notebook(student, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(notebook, bytes):
        path.write_bytes(notebook)
    else:
        nbformat.write(notebook, path)
    return path


def hand_in(course: Course, student: str, submission: Submission) -> Path:
    """Write ``submission`` as ``student``'s notebook in ``course``'s ``submitted/`` folder."""
    if submission.unreadable:
        return write_submission(course, student, submission.assignment, submission.raw)
    release = nbformat.read(course.release_notebook(submission.assignment), as_version=4)
    source = nbformat.read(course.source_notebook(submission.assignment), as_version=4)
    return write_submission(course, student, submission.assignment, build_notebook(submission, release, source))
