"""Every folder and file inside a course's private ``.grader/`` folder, named once.

``.grader/`` (``Course.state_dir``, mode 0700) belongs to the account that grades; no kernel and no
student can reach it. Each module takes its entry's name from here (``course.state_dir / RUN_RECORDS``),
and :data:`STATE_ENTRIES` says what each holds and who reads it (the settings reference shows it).
"""
from __future__ import annotations

from dataclasses import dataclass

STATE_DIR_NAME = ".grader"

# ---- grading (grader autograde, the service's workers, Dask workers) ---------------------------
RUN_RECORDS = "autograde"
UNGRADABLE_REASONS = "ungradable"
QUIZ_ANSWERS = "quiz_answers"
QUARANTINE = "quarantine"
ATTEMPT_HISTORY = "attempts.sqlite"
REFERENCE_STATISTICS = "reference_statistics.sqlite"
REFERENCE_STATISTICS_LOCKS = "reference_statistics.lock"
COURSE_SECRET = "course_secret"
AUTOGRADE_LOG = "autograde.log"
STUDENT_LANGUAGES = "student_languages.json"
CLUSTER_CERTIFICATES = "cluster-certs"
# ---- the grading service (grader watch) ---------------------------------------------------------
SERVICE_JOURNAL = "service.sqlite"
SERVICE_LOCK = "service.lock"
HANDIN_ARCHIVE = "submissions"
REFUSAL_STAGING = "refusing"
COLLECT_STAGING = "collecting"
# ---- the LMS (LTI 1.3, grader lti) --------------------------------------------------------------
LTI_FOLDER = "lti"
LTI_PLATFORM = "platform.json"
LTI_TOOL_KEY = "tool-key.pem"
LTI_JOURNAL = "passback.sqlite"
LTI_HUB_FILE = "hub.json"


@dataclass(frozen=True)
class StateEntry:
    """One entry of ``.grader/``: ``relative`` is its path there (``<...>`` parts vary)."""

    name: str
    relative: str
    holds: str
    readers: str


STATE_ENTRIES: tuple[StateEntry, ...] = (
    StateEntry(RUN_RECORDS, f"{RUN_RECORDS}/<assignment>/<student>.json",
               "the last grading run of each submission: the digest of its inputs, its outcome and step times",
               "grader autograde (skips what is up to date), grader report (timings)"),
    StateEntry(UNGRADABLE_REASONS, f"{UNGRADABLE_REASONS}/<assignment>/<student>.txt",
               "why a submission was not graded, in a sentence or two",
               "the class report, the submission's feedback page"),
    StateEntry(QUIZ_ANSWERS, f"{QUIZ_ANSWERS}/<assignment>/<student>.json",
               "each student's latest graded quiz answers", "the class report (borrowed numbers)"),
    StateEntry(QUARANTINE, f"{QUARANTINE}/<assignment>/<student>/",
               "links, special files and oversized files moved out of a submission before grading",
               "the instructor"),
    StateEntry(ATTEMPT_HISTORY, ATTEMPT_HISTORY,
               "the distinct wrong answers graded per assignment, student and quiz item",
               "the grading process (c.AttemptCredit)"),
    StateEntry(REFERENCE_STATISTICS, REFERENCE_STATISTICS,
               "simulated reference statistics, computed once per grading code version",
               "every grading process"),
    StateEntry(REFERENCE_STATISTICS_LOCKS, REFERENCE_STATISTICS_LOCKS,
               "empty; a process simulating a reference statistic holds a lock on one byte of it, so another "
               "that needs the same value waits and reads it", "every grading process"),
    StateEntry(COURSE_SECRET, COURSE_SECRET,
               "the course's secret (mode 0600), from which each submission's hidden inputs are derived",
               "the grading process only"),
    StateEntry(AUTOGRADE_LOG, AUTOGRADE_LOG, "library warnings and logs of grader autograde",
               "the instructor"),
    StateEntry(STUDENT_LANGUAGES, STUDENT_LANGUAGES,
               "the language each student reads feedback in, from the roster's Language column (grader roster)",
               "the feedback pages"),
    StateEntry(CLUSTER_CERTIFICATES, f"{CLUSTER_CERTIFICATES}/",
               "the grading cluster's CA, certificates and private keys (unless GRADER_CLUSTER_CERTS "
               "names another folder)", "grader autograde --scheduler and its workers"),
    StateEntry(SERVICE_JOURNAL, SERVICE_JOURNAL, "the grading service's record of every hand-in it has seen",
               "grader watch"),
    StateEntry(SERVICE_LOCK, SERVICE_LOCK, "held while a grading service serves the course (one at a time)",
               "grader watch"),
    StateEntry(HANDIN_ARCHIVE, f"{HANDIN_ARCHIVE}/<student>/<assignment>/<timestamp>-<digest>/",
               "the service's private archive of every hand-in, as collected", "grader watch"),
    StateEntry(REFUSAL_STAGING, f"{REFUSAL_STAGING}/",
               "pages for refused hand-ins, staged before they are released to their author",
               "grader watch"),
    StateEntry(COLLECT_STAGING, f"{COLLECT_STAGING}/",
               "hand-ins being collected through an nbgrader exchange plugin", "grader watch"),
    StateEntry(LTI_PLATFORM, f"{LTI_FOLDER}/{LTI_PLATFORM}",
               "the LMS platform the course is registered with (issuer, client id, deployment id, endpoints)",
               "grader lti, score passback after grading"),
    StateEntry(LTI_TOOL_KEY, f"{LTI_FOLDER}/{LTI_TOOL_KEY}",
               "the course's LTI tool private key (mode 0600); its public half is `grader lti jwks`",
               "score passback (signs its access-token requests)"),
    StateEntry(LTI_JOURNAL, f"{LTI_FOLDER}/{LTI_JOURNAL}",
               "every score to post to the LMS and what became of it, each student's LMS user id and each "
               "assignment's line item", "score passback, grader lti status and resend, grader doctor"),
    StateEntry(LTI_HUB_FILE, f"{LTI_FOLDER}/{LTI_HUB_FILE}",
               "what the course hub serves for the LTI tool: its public keys, and each assignment with its points "
               "for deep linking (written by grader lti register)", "the course hub (LTI launches)"),
)
