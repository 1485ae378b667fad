"""nbgrader settings of the course. Plain `nbgrader ...` commands run from this folder use them."""
from pathlib import Path

from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearOutput, DeduplicateIds,
    GetGrades, IgnorePattern, LimitOutput, OverwriteCells, OverwriteKernelspec, SaveAutoGrades,
)
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor

from grader.sandbox import SandboxedExecute
from grader.sandbox.submitted_links import make_pre_convert_hook
from grader.sanitize import RestoreCellMetadata
from grader.verdicts import DecideVerdicts, PrepareProbes

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "scaled-attention-lab"
# The course root is the folder of this file; a busy timeout lets parallel graders share the gradebook.
COURSE_ROOT = Path(__file__).resolve().parent
c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.db_url = f"sqlite:///{COURSE_ROOT / 'gradebook.db'}?timeout=60"

# Student versions: a function body becomes this stub; deleted test cells come back when grading.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.OverwriteCells.add_missing_cells = True

# Grading: hidden checks are decided outside the student's kernel (grader.verdicts), the kernel
# runs sandboxed (grader.sandbox). Because DecideVerdicts rewrites every test cell's outputs, a
# RuntimeWarning printed to stderr by a correct answer no longer zeroes the cell.
# Cell metadata comes from the gradebook, not from the submission (grader.sanitize).
c.Autograde.sanitize_preprocessors = [
    RestoreCellMetadata,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    PrepareProbes,
    SandboxedExecute,
    DecideVerdicts,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
c.SandboxedExecute.timeout = 30
c.SandboxedExecute.notebook_timeout = 300  # seconds for the whole notebook, besides 30 s per cell
c.SandboxedExecute.require_sandbox = True
# Links, FIFOs, devices and oversized files leave the submission folder before nbgrader copies it.
c.Autograde.pre_convert_hook = make_pre_convert_hook(COURSE_ROOT)
# Only what grading needs survives in the graded notebook's metadata (nbconvert keeps this
# preprocessor disabled unless told otherwise); whatever a kernel sent never does.
c.ClearMetadataPreprocessor.enabled = True
c.ClearMetadataPreprocessor.preserve_cell_metadata_mask = {"nbgrader", "deletable", "editable"}
c.ClearMetadataPreprocessor.preserve_nb_metadata_mask = {"kernelspec", "language_info"}

# Feedback never carries hidden test source (nor, by construction, expected values).
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
