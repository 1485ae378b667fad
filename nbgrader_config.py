"""nbgrader settings of the course. Plain `nbgrader ...` commands run from this folder use them."""
from pathlib import Path

from grader.course_imports import import_from_course

# The course's packages (the reference `solutions`, `course_numbers`) import from this folder, also
# for a plain `nbgrader ...` command: the grader's steps below import them.
import_from_course(Path(__file__).resolve().parent)

from grader.course import Course, sqlite_url
from grader.course_folders import CHECKS_FILE
from grader.grading.admission import course_limits
from grader.grading.pipeline import AUTOGRADE_STEPS, FEEDBACK_STEPS, SANITIZE_STEPS
from grader.pages.exporter import CELL_TEMPLATE, SANITIZING_FILTERS, FeedbackExporter
from grader.pages.formgrader import EXTRA_TEMPLATE_BASEDIRS, EXTRA_TEMPLATE_PATHS
from grader.reporting.grades_csv import GradesCsvExport
from grader.sandbox.leftover_budget import NOTEBOOK_NOTE_KEY
from grader.sandbox.submitted_links import make_pre_convert_hook
from grader.settings import DB_URL, EXCHANGE_ROOT

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "scaled-attention-lab"
# The course root is the folder of this file; a busy timeout lets parallel graders share the gradebook.
COURSE_ROOT = Path(__file__).resolve().parent
c.CourseDirectory.root = str(COURSE_ROOT)
# The gradebook: SQLite in the course folder, unless the environment variable GRADER_DB_URL names
# another database, e.g. postgresql+psycopg://grader@db.example.edu/attention_lab (PostgreSQL,
# shared by graders on several machines; every grading machine must see the same value).
c.CourseDirectory.db_url = DB_URL.read() or sqlite_url(COURSE_ROOT / "gradebook.db")

# Student versions: a function body becomes this stub; deleted test cells come back when grading.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.OverwriteCells.add_missing_cells = True
# Hidden checks sit beside each source notebook (source/<id>/checks.py). nbgrader copies every other
# file of source/<id>/ to release and, when grading, into the student's working folder: not these.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", CHECKS_FILE]

# Grading: every step, in order, is declared in grader/grading/pipeline.py. Hidden checks are
# decided outside the student's kernel, the kernel runs sandboxed, cell metadata comes from the
# gradebook, not from the submission. Because DecideVerdicts rewrites every test cell's outputs, a
# RuntimeWarning printed to stderr by a correct answer no longer zeroes the cell.
c.Autograde.sanitize_preprocessors = SANITIZE_STEPS
# The notebook is checked against its schema at the end of each pass and where the pipeline's
# ValidateNotebook steps stand (where an invalid notebook must stop grading), not after every step.
c.Exporter.optimistic_validation = True
c.Autograde.autograde_preprocessors = AUTOGRADE_STEPS
c.SandboxedExecute.timeout = 30
c.SandboxedExecute.notebook_timeout = 300  # seconds for the whole notebook, besides 30 s per cell
c.SandboxedExecute.require_sandbox = True
# Output the kernel may send: max_output_bytes per cell (8 MiB) and max_notebook_output_bytes for
# the whole notebook (16 MiB; hidden checks' reports count only against their cell). Feedback
# pages show at most c.FeedbackExporter.max_output_chars (16 Mi characters) of output.
# Links, FIFOs, devices and notebooks larger than the course grades (c.GradingService.max_notebook_megabytes)
# leave the submission folder before nbgrader copies it.
c.Autograde.pre_convert_hook = make_pre_convert_hook(COURSE_ROOT, lambda: course_limits(Course(COURSE_ROOT)).max_bytes)
# Only what grading needs survives in the graded notebook's metadata (nbconvert keeps this
# preprocessor disabled unless told otherwise); whatever a kernel sent never does.
c.ClearMetadataPreprocessor.enabled = True
c.ClearMetadataPreprocessor.preserve_cell_metadata_mask = {"nbgrader", "deletable", "editable"}
# NOTEBOOK_NOTE_KEY: the grading process's own notes for the page (working-folder files not kept)
c.ClearMetadataPreprocessor.preserve_nb_metadata_mask = {"kernelspec", "language_info", NOTEBOOK_NOTE_KEY}

# Pages made from submissions run no student script in whoever opens them (grader.pages):
# RemoveActiveContent (above) makes the autograded notebook inert; HTMLExporter, which the
# formgrader uses for its submission view, sanitizes markdown, HTML and SVG with nh3 and escapes
# the student's id and names in the formgrader's header; feedback pages come from
# FeedbackExporter: sanitized cells (its template feedback_page) in the course's autoescaped page with
# its CSP, no script, maths as MathML.
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.filters = SANITIZING_FILTERS
c.HTMLExporter.extra_template_basedirs = EXTRA_TEMPLATE_BASEDIRS
c.HTMLExporter.extra_template_paths = EXTRA_TEMPLATE_PATHS
c.GenerateFeedback.exporter_class = FeedbackExporter
# nbgrader's GenerateFeedback puts its whole-page 'feedback' template on HTMLExporter; the pages' cells are ours:
c.FeedbackExporter.template_name = CELL_TEMPLATE

# Feedback never carries hidden test source (nor, by construction, expected values); FeedbackPage
# adds the summary of every check at the top and tidies the graded outputs (grader.grading.preprocessors.feedback_page).
c.GenerateFeedback.preprocessors = FEEDBACK_STEPS

# `nbgrader export` writes grades.csv quoted, with text a spreadsheet would run as a formula
# defused (grader.reporting.grades_csv); same columns and options as nbgrader's own CSV export.
c.ExportApp.plugin_class = GradesCsvExport

# ---- Grading service (`grader watch`, grader.service) -------------------------------------------
# Students hand in with nbgrader's exchange; the service collects, grades and releases feedback.
# Exchange root: nbgrader's default folder unless GRADER_EXCHANGE_ROOT names another one.
c.Exchange.root = EXCHANGE_ROOT.read()
# A submission may be collected once per hand-in; the one that counts is the last before the due
# date (nbgrader's own rule), a late one only when nothing came in on time.
c.ExchangeCollect.before_duedate = True
# Course policy (defaults shown; every setting, its default and unit: grader/settings.py):
c.GradingService.immediate_feedback_default = True   # feedback as soon as graded, before the due date
c.GradingService.immediate_feedback = {}             # per assignment, e.g. {"04_attention": False}
c.GradingService.max_graded_per_hour = 6             # per student and assignment; more wait, never dropped
c.GradingService.max_waiting = 5                     # older waiting hand-ins beyond this are superseded
c.GradingService.max_notebook_megabytes = 5.0        # larger notebooks are ungradable (told why)
c.GradingService.max_cells = 2000
c.GradingService.workers = 2
# Quiz items under immediate feedback: a right answer earns this share of the item's points after
# 0, 1, 2, ... different wrong answers to it (grader/grading/attempt_credit.py; the last entry holds beyond the end).
c.AttemptCredit.schedule = [1.0, 0.5, 0.25, 0.0]

# ---- Deadlines, late work and accommodations (grader.policy) ------------------------------------
# The class's policy (defaults shown); per-student and per-group overrides (extensions, late days,
# accommodations, hourly limits, attempt schedules) are lines of policy.csv, edited with
# `grader policy`. Due dates: the gradebook's (nbgrader db assignment add ... --duedate) unless
# named here. See docs/instructor/deadlines.md.
c.CoursePolicy.due_dates = {}                  # e.g. {"02_softmax": "2026-03-02T23:59:00+00:00"}
c.CoursePolicy.release_dates = {}              # when each assignment opens (accommodations scale from it)
c.CoursePolicy.late_window_hours = None        # hand-ins later than this after the due date earn 0; None: no end
c.CoursePolicy.late_penalty_per_day = 0.0      # share of the score per started day late
c.CoursePolicy.late_days = 0                   # late days each student may spend over the course
c.CoursePolicy.max_late_days_per_assignment = None
c.CoursePolicy.accommodations = {"extra-time-1.5x": 1.5, "extra-time-2x": 2.0}
