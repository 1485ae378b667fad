"""nbgrader settings of the course. Plain `nbgrader ...` commands run from this folder use them."""
from pathlib import Path

from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearOutput, DeduplicateIds,
    GetGrades, IgnorePattern, LimitOutput, OverwriteCells, OverwriteKernelspec, SaveAutoGrades,
)
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor

from grader.sandbox import SandboxedExecute
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
c.SandboxedExecute.require_sandbox = True

# Feedback never carries hidden test source (nor, by construction, expected values).
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]

# ---- Grading service (`grader watch`, grader.service) -------------------------------------------
# Students hand in with nbgrader's exchange; the service collects, grades and releases feedback.
# Exchange root: nbgrader's default folder unless GRADER_EXCHANGE_ROOT names another one.
import os  # noqa: E402

c.Exchange.root = os.environ.get("GRADER_EXCHANGE_ROOT", "/usr/local/share/nbgrader/exchange")
# A submission may be collected once per hand-in; the one that counts is the last before the due
# date (nbgrader's own rule), a late one only when nothing came in on time.
c.ExchangeCollect.before_duedate = True
# Course policy (defaults shown; see grader/service/policy.py):
c.GradingService.immediate_feedback_default = True   # feedback as soon as graded, before the due date
c.GradingService.immediate_feedback = {}             # per assignment, e.g. {"04_attention": False}
c.GradingService.max_graded_per_hour = 6             # per student and assignment; more wait, never dropped
c.GradingService.max_waiting = 5                     # older waiting hand-ins beyond this are superseded
c.GradingService.max_notebook_megabytes = 5.0        # larger notebooks are ungradable (told why)
c.GradingService.max_cells = 2000
c.GradingService.workers = 2
