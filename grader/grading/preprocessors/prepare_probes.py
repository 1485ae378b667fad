"""``PrepareProbes``: replace each probe cell by code that calls the student's function on hidden inputs.

Reads, from the gradebook (not from the submission), which test cells hold a hidden
``probe("<name>")``; draws the inputs from the submission's secret seed (``grader.grading.seeds``: the
course secret, the student, the assignment, the submitted code by its parse tree and the files
handed in beside it, so a regrade of an unchanged submission draws the same inputs); and replaces
each such cell's source by self-contained code (``grader.kernel_side``) that only calls the
student's function and reports the raw results. The plan of inputs is kept in the cell's metadata,
which the kernel cannot touch. Runs just before ``SandboxedExecute``.
"""
from __future__ import annotations

import json
import secrets
from pathlib import Path

from grader import kernel_side
from grader.checks import get_check
from grader.grading.gradebook_cells import GradebookCell, notebook_cells
from grader.grading.preprocessors.course_preprocessor import CoursePreprocessor
from grader.grading.probe_cells import METADATA_KEY, probe_cells, probe_names
from grader.grading.seeds import course_secret, submission_seed
from grader.grading.student_numbers import NUMBERS_CELL, with_graded_student
from grader.grading.submission_fingerprint import (
    handin_files,
    handin_files_fingerprint,
    notebook_fingerprint,
    submission_fingerprint,
)
from grader.settings import traits_of

_KERNEL_PROBE_SOURCE = Path(kernel_side.__file__).read_text(encoding="utf-8")


class ProbeConfigError(ValueError):
    """A test cell of the course is not a valid probe cell (an instructor's mistake, not a student's)."""


def injected_source(plan: dict) -> str:
    """The cell source the kernel runs: the probe module, then one report of ``plan``.

    It binds no name in the student's namespace (the probe module runs in a namespace of its own),
    and it reaches ``exec``, ``compile`` and ``globals`` through ``builtins``, so a student's own
    top-level names cannot stand in for them.
    """
    program = _KERNEL_PROBE_SOURCE + f"\nreport(json.loads({json.dumps(plan)!r}), student_namespace)\n"
    return (
        f"# Graded by the course's grader: this cell reports what `{plan['check']}` returns.\n"
        f"__import__('builtins').exec(__import__('builtins').compile({program!r}, 'grader_probe', 'exec'),\n"
        "                             {'student_namespace': __import__('builtins').globals()})\n"
    )


class PrepareProbes(CoursePreprocessor):
    """Replace each probe cell's source by this run's probe code; keep the plan in cell metadata."""

    reads = {"resources.nbgrader", "gradebook: source notebook", "cell.metadata.nbgrader: from the gradebook"}
    writes = {"cell.metadata: probe plans", "cell.source: probe code"}
    timed_as = "verdicts"

    locals().update(traits_of("PrepareProbes"))  # seed (grader.settings)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        cells = notebook_cells(info["db_url"], info["notebook"], info["assignment"])  # the instructor's
        trusted = probe_cells(cells)
        seed = self.seed if self.seed is not None else self.submission_seed(nb, info)
        # The student's numbers come from the id nbgrader recorded, never from the kernel (grader.grading.student_numbers).
        set_numbers_cell_student(nb, info, cells)
        for cell in nb.cells:
            # Only the plans written here may be judged: a submitted notebook can carry this key too.
            cell.metadata.pop(METADATA_KEY, None)
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type != "code" or grade_id not in trusted:
                continue
            source, points = trusted[grade_id]
            names = probe_names(source)
            if len(names) != 1:
                raise ProbeConfigError(f"test cell {grade_id!r} must hold exactly one probe(\"<name>\") line, found {len(names)}")
            # The gradebook, not the submission, says what this cell is worth.
            cell.metadata["nbgrader"].update(grade=True, solution=False, locked=True, points=points)
            check = get_check(names[0], self._course_root())
            cases = check.draw_cases(seed)
            token = secrets.token_hex(8)
            cell.metadata[METADATA_KEY] = {
                "check": check.name,
                "token": token,
                "cases": [case.to_wire() for case in cases],
                "source": source,
            }
            if check.kind == "value":
                cell.metadata[METADATA_KEY]["numbers"] = check.student_numbers(info["student"])
            cell.source = injected_source(check.plan(cases, token))
        return nb, resources

    def submission_seed(self, nb, info) -> int:
        """The seed of this submission's inputs (``grader.grading.seeds``); the notebook is as sanitized."""
        secret = course_secret(self.state_dir())
        fingerprint = submission_fingerprint(notebook_fingerprint(nb), self.files_fingerprint(info))
        return submission_seed(secret, info["student"], info["assignment"], info["notebook"], fingerprint)

    def files_fingerprint(self, info) -> str:
        """The fingerprint of the files the hand-in carries beside its notebooks (as nbgrader copies them)."""
        coursedir = self._coursedir()
        folder = Path(coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"]))
        source = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"]))
        instructor_files = handin_files(source, coursedir.ignore)
        return handin_files_fingerprint(folder, handin_files(folder, coursedir.ignore, instructor_files))


def set_numbers_cell_student(nb, info, cells: dict[str, GradebookCell]) -> None:
    """Give the ``my_numbers`` cell the submission's student id, in the instructor's source from the
    gradebook (``cells``: the notebook's source cells, ``grader.grading.gradebook_cells``).

    The sandboxed kernel runs under another account, so without this the student's code would compute
    from someone else's numbers. A notebook without that cell is left as it is.
    """
    sources = {NUMBERS_CELL: cells[NUMBERS_CELL].source} if NUMBERS_CELL in cells else {}
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id") == NUMBERS_CELL \
                and NUMBERS_CELL in sources:
            try:
                cell.source = with_graded_student(sources[NUMBERS_CELL], info["student"])
            except ValueError as exc:
                raise ProbeConfigError(str(exc)) from None
