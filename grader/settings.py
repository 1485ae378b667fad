"""Every setting of the grader, declared once: the course's ``nbgrader_config.py`` settings, the
environment variables the grader reads, and (from :mod:`grader.state_folders`) the layout of the
course's private ``.grader/`` folder.

A :class:`Setting` is one ``c.<section>.<name>`` of ``nbgrader_config.py``; its section is the name
of the traitlets Configurable that reads it. Each Configurable takes its traits from here::

    class AttemptCredit(Configurable):
        locals().update(traits_of("AttemptCredit"))

so the trait's type, default and help are the declaration's, and traitlets reports an unknown or
mistyped setting as it does for any Configurable. The sandbox's limits object
(:class:`grader.sandbox.limits.SandboxLimits`) has one field per setting declared with
``sandbox_limit=True``; ``grader doctor`` and the documentation's settings reference
(:func:`reference_markdown`) read the same declarations. nbgrader's and nbconvert's own settings
(``c.CourseDirectory.*``, ``c.ExchangeCollect.check_owner``, ``c.SandboxedExecute.timeout``, ...)
are theirs and documented by them.

Units: sizes in bytes unless the unit says otherwise, times in seconds; ``None`` (where allowed)
means "no limit".
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from traitlets import Bool, Dict, Enum, Float, Integer, List, TraitType, Unicode, observe

from grader.language.catalogue import LANGUAGES

MiB = 2 ** 20
GiB = 2 ** 30

# Fixed limits: named once here, not settings (nothing a course has reason to change).
#: Seconds a process waits for another's write to a SQLite database the graders share (the
#: gradebook, the service's journal, the attempt history, the reference cache) before failing.
SQLITE_BUSY_SECONDS = 60


@dataclass(frozen=True)
class Setting:
    """One ``c.<section>.<name>`` setting of the course's ``nbgrader_config.py``.

    ``type`` is a key of :data:`TYPES`; ``default`` is the value used when the course sets none
    (``default_note`` describes it when it is computed at run time); ``unit`` is what the number
    counts ("bytes", "s", "MB", ... or "" for a plain count); ``minimum`` is the smallest value
    accepted; ``sandbox_limit`` makes it a field of the sandbox's limits object; ``formerly`` is an
    earlier name of the setting, still read (a value set there is passed on, with a warning).
    """

    section: str
    name: str
    type: str
    default: Any
    unit: str
    help: str
    allow_none: bool = False
    minimum: float | None = None
    sandbox_limit: bool = False
    default_note: str = ""
    formerly: str = ""

    def trait(self) -> TraitType:
        """The configurable traitlet of this setting."""
        return TYPES[self.type](self).tag(config=True)


def _number(kind):
    def make(s: Setting) -> TraitType:
        return kind(s.default, allow_none=s.allow_none, min=s.minimum, help=s.help)
    return make


#: Setting type -> the traitlet that holds it.
TYPES = {
    "integer": _number(Integer),
    "number": _number(Float),
    "boolean": lambda s: Bool(s.default, help=s.help),
    "text": lambda s: Unicode(s.default, help=s.help),
    "language": lambda s: Enum(list(LANGUAGES), s.default, help=s.help),
    "list of paths": lambda s: List(Unicode(), default_value=list(s.default), help=s.help),
    "name → text": lambda s: Dict(value_trait=Unicode(), default_value=dict(s.default), help=s.help),
    "keyword arguments": lambda s: Dict(default_value=dict(s.default), help=s.help),
    "assignment → boolean": lambda s: Dict(value_trait=Bool(), default_value=dict(s.default), help=s.help),
    "list of shares": lambda s: List(Float(min=0.0, max=1.0), default_value=list(s.default), minlen=1,
                                     help=s.help),
}


_limit = partial(Setting, "SandboxedExecute", sandbox_limit=True)
_executor = partial(Setting, "SandboxedExecute")
_kernel_manager = partial(Setting, "SandboxedKernelManager")
_probes = partial(Setting, "PrepareProbes")
_attempts = partial(Setting, "AttemptCredit")
_feedback = partial(Setting, "FeedbackExporter")
_service = partial(Setting, "GradingService")
_policy = partial(Setting, "CoursePolicy")
_lms = partial(Setting, "LmsPassback")


SETTINGS: tuple[Setting, ...] = (
    # ---- the grading sandbox (grader.sandbox): limits of one kernel and what it may see ----------
    _limit("require_sandbox", "boolean", False, "",
           "Fail grading of a notebook when any sandbox layer is unavailable, instead of "
           "warning and grading with the layers that work."),
    _limit("memory_limit", "integer", 2 * GiB, "bytes",
           "Address-space limit per kernel process in bytes (RLIMIT_AS); allocations beyond it "
           "raise MemoryError. None: no limit.", allow_none=True),
    _limit("max_processes", "integer", 64, "",
           "Processes plus threads the kernel's private user id may have (RLIMIT_NPROC).",
           allow_none=True),
    _limit("cpu_time_limit", "integer", 600, "s",
           "CPU seconds per kernel process over the whole notebook (RLIMIT_CPU).", allow_none=True),
    _limit("file_size_limit", "integer", 16 * MiB, "bytes",
           "Largest file the kernel may write, in bytes (RLIMIT_FSIZE).", allow_none=True),
    _limit("open_files_limit", "integer", 256, "",
           "Open file descriptors per kernel process (RLIMIT_NOFILE).", allow_none=True),
    _limit("tmp_size_limit", "integer", 64 * MiB, "bytes",
           "Size in bytes of each of the kernel's private /tmp, /dev/shm and home folder."),
    _limit("tree_memory_limit", "integer", 2 * GiB, "bytes",
           "Memory in bytes that all processes of one sandbox may hold together (its control "
           "group); past it the kernel's out-of-memory killer stops one of them. None: no limit.",
           allow_none=True),
    _limit("tree_process_limit", "integer", 128, "",
           "Processes and threads one sandbox may have at once (its control group's pids.max).",
           allow_none=True),
    _limit("cpu_weight", "integer", 100, "",
           "CPU share of one sandbox, however many processes it forks, on the cgroup v2 scale "
           "(100: as much as one ordinary process)."),
    _limit("cpu_quota", "number", 1.0, "CPUs",
           "CPUs one sandbox may use at most (its control group's quota). None: no cap.",
           allow_none=True),
    _limit("workdir_size_limit", "integer", 256 * MiB, "bytes",
           "Bytes the kernel's working folder may hold (it is a filesystem of its own, copied "
           "back into autograded/ afterwards)."),
    _limit("workdir_file_limit", "integer", 4096, "",
           "Files and folders the kernel's working folder (and each of /tmp, /dev/shm and home) "
           "may hold."),
    _limit("leftover_size_limit", "integer", 64 * MiB, "bytes",
           "Bytes of files the notebook leaves in its working folder that are copied back into "
           "autograded/, counted by apparent size (a sparse file counts in full, its holes stay "
           "holes); files past it are not copied back and the feedback page says so."),
    _limit("leftover_file_limit", "integer", 500, "",
           "Files and folders the notebook leaves in its working folder that are copied back into "
           "autograded/ (the submission's own files included); the rest is not copied back and the "
           "feedback page says so."),
    _limit("readonly_paths", "list of paths", (), "",
           "Extra absolute paths the kernel may read (the Python installation, /usr and /etc "
           "are always readable)."),
    _limit("hidden_paths", "list of paths", (), "",
           "Extra absolute paths the kernel must not read even when inside a readable path."),
    _limit("sandbox_env", "name → text", {}, "",
           "Extra environment variables for the kernel (its environment is otherwise minimal)."),
    _limit("uid_base", "integer", 1_900_000_000, "",
           "First of the numeric user ids reserved for sandboxed kernels, one per running "
           "kernel; they must belong to nobody else."),
    _limit("uid_count", "integer", 4096, "",
           "How many user ids from uid_base may be used."),
    # ---- the grading sandbox: what the grading process accepts from a kernel ---------------------
    _executor("course_root", "text", "", "",
              "Course directory, hidden from the kernel; defaults to CourseDirectory.root or the "
              "current directory.", default_note="CourseDirectory.root, else the current folder"),
    _executor("max_output_bytes", "integer", 8 * MiB, "bytes",
              "Output one cell may send to the grader (text and data, in bytes); the rest is "
              "dropped and the cell gets an OutputLimitExceeded error. Keep it above the size "
              "of the largest legitimate output, such as a hidden check's probe report."),
    _executor("max_notebook_output_bytes", "integer", 16 * MiB, "bytes",
              "Output all cells of one notebook together may send to the grader (text and data, in "
              "bytes); past it later output is dropped and each cell that loses output gets an "
              "OutputLimitExceeded error. Hidden checks' reports do not count against it (only against "
              "their cell's max_output_bytes), so they are judged however much the notebook printed."),
    _executor("notebook_timeout", "integer", 600, "s",
              "Wall-clock seconds the whole notebook may take, kernel start included, besides the "
              "per-cell timeout; when they run out the kernel is stopped, the running cell gets a "
              "NotebookTimeoutError and every later cell is marked not run. None: no limit.", allow_none=True),
    _executor("max_message_bytes", "integer", 32 * MiB, "bytes",
              "Largest single message the grader accepts from the kernel, in bytes; a larger one is "
              "dropped before it is read (so no message can grow the grading process beyond it).", allow_none=True),
    _executor("interrupt_grace", "number", 3.0, "s",
              "Seconds a kernel gets to answer after a timed-out cell was interrupted; a kernel "
              "that does not answer is killed and the rest of the notebook is marked not run."),
    _kernel_manager("fork_from_zygote", "boolean", True, "",
                    "Fork each kernel from a process that has already imported ipykernel, numpy and "
                    "matplotlib (see grader.sandbox.zygote) instead of starting a new interpreter; the "
                    "sandbox is the same. Used on Linux (as root, or in user namespaces without root) with "
                    "this interpreter's ipykernel."),
    _kernel_manager("quick_handshake", "boolean", True, "",
                    "Talk to the kernel as soon as it has answered (grader.sandbox.kernel_client), and retry "
                    "connecting to it and check for its exit every 5 ms. False: jupyter_client's own waits, "
                    "as plain nbgrader has them (0.2 s after the kernel's first answer, 100 ms between "
                    "connection attempts and between exit checks)."),
    _kernel_manager("figure_kwargs", "keyword arguments", {"bbox_inches": None}, "",
                    "Keyword arguments of matplotlib's print_figure for every figure an IPython kernel shows "
                    "(its inline backend's InlineBackend.print_figure_kwargs, given on the kernel's command "
                    "line). bbox_inches=None draws each figure once, as laid out (the notebooks' figures set their "
                    "margins), where matplotlib-inline's default 'tight' draws it twice to crop "
                    "it (benchmarks/figure_cost.py compares them). {}: matplotlib-inline's defaults."),
    # ---- hidden checks and quiz credit ----------------------------------------------------------
    _probes("seed", "integer", None, "",
            "Fixed seed for the hidden inputs of every notebook (for debugging a check); None derives each "
            "submission's seed from the course secret, the student, the assignment and what was handed in "
            "(the code by its parse tree, the files beside the notebook).", allow_none=True),
    _attempts("schedule", "list of shares", (1.0, 0.5, 0.25, 0.0), "",
              "Share of a quiz item's points a right answer still earns after 0, 1, 2, ... different wrong "
              "answers to it (graded with immediate feedback); beyond the end the last entry holds."),
    # ---- deadlines, late work and accommodations (grader.policy; overrides: the course's policy.csv)
    _policy("release_dates", "name → text", {}, "",
            "assignment id -> when it opens, ISO 8601 with a UTC offset (2026-03-02T09:00:00+00:00). "
            "An accommodation's scale stretches the time from release to due date; without a release "
            "date it stretches the late window only."),
    _policy("due_dates", "name → text", {}, "",
            "assignment id -> due date, ISO 8601 with a UTC offset. An assignment not listed uses the "
            "gradebook's due date (nbgrader's `duedate`), and none when that is empty."),
    _policy("late_window_hours", "number", None, "h",
            "Hours after a student's own due date (and the late days spent) in which a hand-in still earns "
            "points, less the late penalty; later ones earn 0. None: no end.", allow_none=True, minimum=0),
    _policy("late_penalty_per_day", "number", 0.0, "",
            "Share of the score taken off per started day late (0.1: 10 % a day, at most all of it).",
            minimum=0),
    _policy("late_days", "integer", 0, "days",
            "Late days every student has for the whole course: a hand-in up to that many whole days "
            "after the student's due date spends them instead of losing points.", minimum=0),
    _policy("max_late_days_per_assignment", "integer", None, "days",
            "Late days one assignment may spend. None: as many as the student has left.",
            allow_none=True, minimum=0),
    _policy("accommodations", "keyword arguments", {"extra-time-1.5x": 1.5, "extra-time-2x": 2.0}, "",
            "accommodation label -> the scale it gives a student's windows (time from release to due "
            "date, and the late window). A student gets one in policy.csv (setting `accommodation`)."),
    _policy("policy_file", "text", "policy.csv", "",
            "The course's per-student and per-group overrides, relative to the course folder "
            "(columns who, assignment, setting, value; `grader policy validate` checks it)."),
    # ---- feedback pages -------------------------------------------------------------------------
    Setting("GenerateFeedback", "copy_working_files", "boolean", False, "",
            "Copy the files of the graded working folder (autograded/<student>/<assignment>: the "
            "submission's files and whatever its notebook wrote there) into each feedback folder "
            "beside the page, as plain nbgrader does. False: the feedback folder holds the pages only, "
            "so nothing a notebook writes reaches feedback/, the service's archive or the exchange."),
    Setting("FeedbackPage", "feedback_language", "language", "en", "",
            "The language of a student's feedback page when the roster gives the student none "
            "(`grader roster`, its Language column): en (English) or zh (简体中文)."),
    _feedback("max_output_chars", "integer", 16 * MiB, "characters",
              "Output (text and data, in characters) one page shows, in reading order; the outputs "
              "past it are left off, each cell that loses some says so in one line.",
              formerly="max_output_bytes"),
    _feedback("max_inline_image_bytes", "integer", 2 * MiB, "bytes",
              "Largest image file next to a notebook that its markdown shows (`![](figure.png)`) "
              "inlined into the page; a larger file, or one that is not a PNG, JPEG or GIF, shows "
              "its alt text only."),
    # ---- the grading service (grader watch) -----------------------------------------------------
    _service("immediate_feedback", "assignment → boolean", {}, "",
             "assignment id -> whether feedback on a submission made before the due date is released "
             "as soon as it is graded (True) or held until the due date (False). Assignments not "
             "listed use `immediate_feedback_default`."),
    _service("immediate_feedback_default", "boolean", True, "",
             "Immediate feedback for assignments not listed in `immediate_feedback`."),
    _service("max_graded_per_hour", "integer", 6, "",
             "At most this many submissions per student and assignment are graded in any hour; a "
             "submission over the limit waits (its feedback page says until when) and is graded then.",
             minimum=1),
    _service("max_waiting", "integer", 5, "",
             "At most this many submissions per student and assignment wait for the hourly limit; "
             "older waiting ones beyond it are recorded as superseded (never graded), with a page "
             "saying so. Only a flood of hand-ins reaches this.", minimum=1),
    _service("max_notebook_megabytes", "number", 5.0, "MB",
             "A submitted notebook larger than this is not graded (recorded as ungradable)."),
    _service("max_cells", "integer", 2000, "",
             "A submitted notebook with more cells than this is not graded (ungradable)."),
    _service("max_handin_megabytes", "number", 20.0, "MB",
             "A hand-in (every file of the folder together) larger than this is refused before "
             "anything is copied; its author gets a page saying so."),
    _service("max_handin_files", "integer", 200, "",
             "A hand-in with more files and folders than this is refused.", minimum=1),
    _service("max_handin_notebooks", "integer", 10, "",
             "A hand-in with more notebooks at its top level than this is refused.", minimum=1),
    _service("max_handin_depth", "integer", 6, "",
             "A hand-in with folders nested deeper than this below its own folder is refused.", minimum=1),
    _service("max_inbound_entries_per_pass", "integer", 50, "",
             "New entries one account may make in the exchange's inbound folder between two looks of "
             "the service; beyond it all of them are refused together, unread, and recorded once as "
             "that account's flood (`grader watch` logs it once).", minimum=1),
    _service("incomplete_handin_seconds", "number", 60.0, "s",
             "A hand-in folder still without its submission_secret.txt (which nbgrader submit writes "
             "last) this long after the service first saw it is refused, so an unfinished folder is "
             "not looked at again."),
    _service("max_collect_cpu_seconds_per_hour", "number", 60.0, "s",
             "CPU seconds the service spends in any hour reading one account's inbound entries; "
             "beyond it that account's new entries wait until the hour has passed."),
    _service("max_archive_megabytes_per_account", "number", 200.0, "MB",
             "The service's archive of one account's hand-ins may hold this much, each file counted "
             "by the larger of its size and its disk blocks (a sparse file counts whole); a hand-in "
             "beyond it is refused with a page saying so."),
    _service("max_grading_seconds_per_hour", "number", 900.0, "s",
             "Wall-clock seconds of grading one student's hand-ins may take in any hour, across every "
             "assignment; beyond it the next hand-in waits (its page says so). A student has at most one "
             "hand-in grading at a time, so one student never holds every worker."),
    _service("poll_seconds", "number", 1.0, "s",
             "Seconds between two looks at the exchange's inbound folder when no "
             "file system event came (the fallback; events wake the service at once)."),
    _service("max_grading_attempts", "integer", 3, "",
             "Times the service tries a hand-in whose grading or handling failed for a reason that is not "
             "the student's (a worker that died, a cluster task that kept failing) before it records it "
             "as ungradable with the reason.", minimum=1),
    _service("workers", "integer", 2, "",
             "Submissions graded at once (one process each).", minimum=1),
    _service("instructor_group", "text", "", "",
             "A group whose members may read (never write) the course folder root owns: course "
             "paths of that group keep its read and search bits. Empty: only root reads the course."),

    # ---- scores posted to the LMS (grader.lti): how long a request may take, when a failed post is tried again
    _lms("first_retry_seconds", "number", 60.0, "s",
         "Seconds before a score post the LMS refused or could not take is tried again; each further "
         "failure of the same post doubles the wait, up to `longest_retry_seconds`.", minimum=1),
    _lms("longest_retry_seconds", "number", 6 * 3600.0, "s",
         "The longest wait between two tries of one score post.", minimum=1),
    _lms("request_timeout_seconds", "number", 20.0, "s",
         "Seconds one request to the LMS (a token, a line item, a score) may take, connecting and "
         "answering, before it counts as unreachable and is kept to be tried again.", minimum=1),
)


def settings_of(section: str) -> tuple[Setting, ...]:
    """The declared settings of one section, in declaration order."""
    found = tuple(s for s in SETTINGS if s.section == section)
    if not found:
        raise KeyError(f"no settings are declared for {section!r}")
    return found


def setting(section: str, name: str) -> Setting:
    """The declaration of ``c.<section>.<name>``."""
    for s in settings_of(section):
        if s.name == name:
            return s
    raise KeyError(f"no setting {section}.{name} is declared")


def traits_of(section: str) -> dict[str, TraitType]:
    """``{name: configurable traitlet}`` for every setting of ``section``, to add to its class
    (with, for a setting that was renamed, its former name and the observer that passes it on)."""
    traits: dict = {}
    for s in settings_of(section):
        traits[s.name] = s.trait()
        if s.formerly:
            traits.update(_former_name(s))
    return traits


def _former_name(s: Setting) -> dict:
    """The trait of ``s.formerly`` (unset by default) and an observer passing its value on to ``s.name``."""
    def pass_on(self, change):
        if change.new is not None:
            logging.getLogger(__name__).warning("c.%s.%s is now called c.%s.%s; its value is used for that.",
                                                s.section, s.formerly, s.section, s.name)
            setattr(self, s.name, change.new)

    former = replace(s, name=s.formerly, default=None, allow_none=True,
                     help=f"Former name of {s.name}, still read: a value set here is used for {s.name}.")
    return {s.formerly: former.trait(), f"_pass_{s.formerly}_on": observe(s.formerly)(pass_on)}


def sandbox_limit_settings() -> tuple[Setting, ...]:
    """The settings that make up the sandbox's limits object, in declaration order."""
    return tuple(s for s in SETTINGS if s.sandbox_limit)


# ---- environment variables -------------------------------------------------------------------

@dataclass(frozen=True)
class EnvironmentVariable:
    """An environment variable the grader (or the course's ``nbgrader_config.py``) reads.

    ``default`` is what :meth:`read` gives when the variable is unset (None: the reader decides,
    as ``default_note`` says).
    """

    name: str
    meaning: str
    default: str | None = None
    default_note: str = ""

    def read(self) -> str | None:
        """The variable's value in this process's environment, else ``default``."""
        return os.environ.get(self.name, self.default)

    def is_set(self) -> bool:
        return self.name in os.environ


DB_URL = EnvironmentVariable(
    "GRADER_DB_URL",
    "The gradebook's database URL (c.CourseDirectory.db_url), e.g. "
    "postgresql+psycopg://grader@db.example.edu/attention_lab for a PostgreSQL server that graders "
    "on several machines share; every grading machine must see the same value.",
    default_note="the SQLite file gradebook.db in the course folder")
EXCHANGE_ROOT = EnvironmentVariable(
    "GRADER_EXCHANGE_ROOT",
    "The nbgrader exchange folder students fetch from and hand in to (c.Exchange.root).",
    default="/usr/local/share/nbgrader/exchange")
CLUSTER_CERTS = EnvironmentVariable(
    "GRADER_CLUSTER_CERTS",
    "The folder of the grading cluster's TLS certificates (grader cluster-certs, "
    "grader autograde --scheduler).",
    default_note="cluster-certs in the course's .grader/ folder")

ENVIRONMENT: tuple[EnvironmentVariable, ...] = (DB_URL, EXCHANGE_ROOT, CLUSTER_CERTS)


# ---- the settings reference ------------------------------------------------------------------

def _size(value: int) -> str:
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if value >= size and value % size == 0:
            return f"{value // size} {unit}"
    return f"{value} bytes"


def default_text(setting: Setting) -> str:
    """The default as the reference shows it, with its unit (``2147483648 (2 GiB)``, ``600 s``)."""
    if setting.default_note:
        return setting.default_note
    value = setting.default
    if value is None:
        return "None"
    if isinstance(value, tuple):
        value = list(value)
    if setting.unit == "bytes" and isinstance(value, int):
        return f"{value} ({_size(value)})"
    text = repr(value) if isinstance(value, (str, dict, list)) else str(value)
    return f"{text} {setting.unit}" if setting.unit else text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def reference_markdown() -> str:
    """The settings reference as Markdown: one table per section (setting, type, default with unit,
    help), then the environment variables, then the layout of ``.grader/``."""
    from grader.state_folders import STATE_DIR_NAME, STATE_ENTRIES

    lines = ["# Settings reference", "",
             ("Settings go in the course's `nbgrader_config.py` as `c.<Section>.<setting> = value`. "
              "Sizes are in bytes unless the unit says otherwise, times in seconds; `None`, where a "
              "setting allows it, means no limit. nbgrader's own settings are documented by nbgrader."),
             ""]
    for section in dict.fromkeys(s.section for s in SETTINGS):
        lines += [f"## {section}", "", "| setting | type | default | meaning |", "|---|---|---|---|"]
        for s in settings_of(section):
            kind = s.type + (" or None" if s.allow_none else "")
            formerly = f" Formerly `c.{section}.{s.formerly}`, which is still read." if s.formerly else ""
            lines.append(f"| `c.{section}.{s.name}` | {_cell(kind)} | {_cell(default_text(s))} | "
                         f"{_cell(s.help + formerly)} |")
        lines.append("")
    lines += ["## Environment variables", "", "| variable | meaning | when unset |", "|---|---|---|"]
    for variable in ENVIRONMENT:
        unset = variable.default if variable.default is not None else variable.default_note
        lines.append(f"| `{variable.name}` | {_cell(variable.meaning)} | {_cell(unset)} |")
    lines += ["", f"## The course's `{STATE_DIR_NAME}/` folder", "",
              (f"`{STATE_DIR_NAME}/` (mode 0700) is the grading process's private state; no kernel "
               "and no student can reach it."), "", "| entry | holds | who may read it |", "|---|---|---|"]
    for entry in STATE_ENTRIES:
        lines.append(f"| `{entry.relative}` | {_cell(entry.holds)} | {_cell(entry.readers)} |")
    return "\n".join(lines) + "\n"
