"""``grader watch``: collect every new submission from the exchange, grade it, release its feedback.

The loop runs a pass whenever something happens: a hand-in lands in ``inbound/`` (a file system
event, ``grader.service.notice``), a grading ends, or ``poll_seconds`` passed (the fallback where
events are not delivered). A pass:

1. list the exchange's inbound folder; collect each hand-in not yet in the journal into the
   service's private archive (``.grader/submissions/``) and record it (``received``). Nothing in
   ``inbound/`` is trusted (``grader.service.inbound`` reads it, the rules of the service path in
   ``grader.grading.admission`` decide what is refused): links are never followed, a hand-in is
   copied only when it belongs to the student it names and fits its budget, its time is the file
   system's; a folder that is nobody's hand-in is recorded as refused. Each folder is handled on
   its own, so none can stop the pass;
2. release held feedback whose due date has passed (the student's own: grader.policy);
3. for each (student, assignment), take its oldest pending submission (arrival order per student;
   one at a time per pair, different pairs in parallel) and decide: late after an on-time
   submission -> not counted; over the hourly limit (the student's own, grader.policy) -> waits,
   with a page saying until when;
   otherwise grade it in a worker process (``grader.service.grading``);
4. when a grading ends, record the result and release the feedback (or hold it until the due date
   when the course says feedback is not immediate for that assignment). One log line each.

``once=True`` handles what is waiting and returns. SIGTERM (or :meth:`GradingLoop.stop`) stops
collecting and lets running gradings finish; the journal makes a restart after ``kill -9`` grade
an interrupted submission again and release what was graded but not yet released.
"""
from __future__ import annotations

import concurrent.futures as cf
import fcntl
import hashlib
import logging
import multiprocessing
import os
import re
import shutil
import signal
import time
from pathlib import Path

from nbgrader.exchange import ExchangeError

from grader.course import Course, enable_concurrent_writers
from grader.grading.admission import (
    Refusal,
    archive_full_refusal,
    handin_budget,
    limits_from,
    never_finished_refusal,
    nobodys_handin_refusal,
    secret_reused_refusal,
    unreadable_entry,
)
from grader.grading.nbgrader_compat import reuse_gradebook_connections
from grader.language.catalogue import translate
from grader.language.student_language import reading_language
from grader.policy.course_policy import PolicyBook
from grader.policy.declaration import PolicyFileError
from grader.policy.resolution import ResolvedPolicy
from grader.scheduling.cluster_security import InsecureSchedulerError
from grader.scheduling.dask_cluster import ClusterSetupError
from grader.scheduling.worker_lifetime import die_with_parent
from grader.service import pages
from grader.service.attribution import owner_of
from grader.service.budgets import HOUR, HourlySpending, archive_bytes
from grader.service.exchange import CourseExchange
from grader.service.grading import FEEDBACK, HANDIN, NOT_COLLECTED, grade_archived, warm_up
from grader.service.inbound import SECRET_FILE, TIMESTAMP_FILE, AnswerKey, HandinRefused, answer_key, nbgrader_timestamp
from grader.service.journal import GRADED, GRADING, HELD, RECEIVED, RELEASED, WAITING, Journal, Row
from grader.service.notice import SETTLING_SECONDS, Wakeup
from grader.service.privacy import Problem, course_problems, exchange_problems, fix
from grader.service.status_messages import (
    GRADING_STOPPED,
    GRADING_TIME_USED,
    HELD_UNTIL_DUE,
    HOURLY_LIMIT,
    NOT_COUNTED,
    OWN_WORK_TODO,
    REFUSED_TODO,
    SERVICE_FAULT,
    SUPERSEDED,
    UNNAMED_TIME,
    YOUR_HANDIN,
)
from grader.service_policy import GradingService, load_service_policy
from grader.state_folders import HANDIN_ARCHIVE, REFUSAL_STAGING, SERVICE_JOURNAL, SERVICE_LOCK

log = logging.getLogger("grader.watch")
SETTLING_WINDOW = 10.0  # seconds after its last change an incomplete hand-in folder is looked at often
GRADING_TIME_RECHECK = 60.0  # seconds between looks at a hand-in waiting for its student's grading time
PASSBACK_RETRY_SECONDS = 60.0  # seconds between looks for LMS score posts due for a retry (grader.lti)
REFUSED_LABEL = "refused"  # the feedback folder of a refused folder that names no assignment of the course


class PrivacyError(RuntimeError):
    """The course or exchange is readable by other accounts; the message says what to run."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("the grading service will not start while other accounts can reach these "
                         "paths:\n" + "\n".join(f"  {p}" for p in problems)
                         + "\n(or start it with --fix-permissions to apply those commands)")


class AlreadyServing(RuntimeError):
    """Another ``grader watch`` holds this course's lock."""


def start_worker(course_root: str) -> None:
    """The first thing a local grading worker does: die with the service, then ``warm_up``."""
    die_with_parent()
    warm_up(course_root)


def exchange_root(exchange: CourseExchange) -> Path:
    """The root folder of the course's nbgrader exchange."""
    return exchange.root


def privacy_problems(course: Course) -> list[Problem]:
    """Course paths and exchange folders other accounts can reach or own (grader.service.privacy)."""
    exchange = CourseExchange(course)
    return course_problems(course) + exchange_problems(exchange_root(exchange), exchange.course_id,
                                                       (course.root.stat().st_uid,))


def ensure_private(course: Course, fix_permissions: bool) -> None:
    """Raise PrivacyError naming each reachable path, or close them when asked to."""
    problems = privacy_problems(course)
    if problems and fix_permissions:
        for problem in problems:
            log.warning("closing %s", problem)
        fix(problems)
        problems = privacy_problems(course)
    if problems:
        raise PrivacyError(problems)


class GradingLoop:
    """The grading service of one course folder (check :func:`ensure_private` first)."""

    def __init__(self, course: Course, policy: GradingService | None = None, workers: int | None = None,
                 clock=time.time, scheduler: str | None = None, insecure_scheduler: bool = False):
        self.course = course
        self.scheduler = scheduler  # a Dask scheduler's address: grade on that cluster
        self.insecure_scheduler = insecure_scheduler  # accept one without mutual TLS
        self.policy = policy or load_service_policy(course)
        self.workers = workers or self.policy.workers
        self.clock = clock
        self.exchange = CourseExchange(course)
        self.journal = Journal(course.state_dir / SERVICE_JOURNAL)
        self.archive_root = course.state_dir / HANDIN_ARCHIVE
        self.limits = limits_from(self.policy)
        self._policy_book: PolicyBook | None = None  # the last course policy that could be used
        self._policy_problem = ""  # why the policy file cannot be used now ("" when it can)
        self._stopping = False
        self._pool: cf.ProcessPoolExecutor | None = None
        self._inflight: dict[cf.Future, Row] = {}
        self._failures: dict[int, int] = {}  # row id -> decisions that raised, in this run
        self.wakeup = Wakeup()
        self._settling = False  # a hand-in folder is being written: look again soon
        self._moments: dict[int, dict[str, float]] = {}  # row id -> epoch seconds of its steps
        self._flooded: set[bytes] = set()  # inbound entries refused unread as part of a flood
        self._flooding: set[str] = set(self.journal.floods())  # accounts that flooded inbound/
        self._flooded_now: set[str] = set()  # accounts that flooded inbound/ while this service ran
        self._flood_counts: dict[str, int] = {}  # account -> entries folded into its flood in this pass
        self._first_seen: dict[bytes, float] = {}  # unfinished hand-in folder -> when first seen
        self._collect_cpu = HourlySpending()  # owner -> CPU seconds spent reading their entries
        self._over_budget_logged: set[str] = set()
        self._graded_now: list[tuple[str, str]] = []  # (assignment, student) graded since the last post_scores
        self._next_passback = 0.0  # when post_scores next looks for retries due
        self._passback_thread = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="lms-passback")
        self._passback: cf.Future | None = None  # the LMS posting pass under way

    # ---- the loop ------------------------------------------------------------------------------

    def stop(self, *_signal_args) -> None:
        """Stop collecting; running gradings finish and are released before :meth:`run` returns."""
        self._stopping = True

    def run(self, once: bool = False) -> None:
        """Serve until stopped (or, with ``once``, until nothing is left to grade now)."""
        lock = self._lock()
        try:
            self._serve(once)
        finally:
            os.close(lock)

    def _lock(self) -> int:
        """Hold ``.grader/service.lock`` while serving: one service per course folder."""
        path = self.course.state_dir / SERVICE_LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AlreadyServing(f"another grader watch is already serving {self.course.root} "
                               f"(it holds {path}); stop it first") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return fd

    def _new_pool(self):
        if self.scheduler is not None:
            from grader.service.cluster import DaskGrading

            return DaskGrading(self.course, self.scheduler, self.insecure_scheduler)
        return cf.ProcessPoolExecutor(max_workers=self.workers, initializer=start_worker,
                                      initargs=(str(self.course.root),),
                                      mp_context=multiprocessing.get_context("spawn"))

    def _serve(self, once: bool) -> None:
        reuse_gradebook_connections()  # due dates are read for every hand-in: one engine, not one each
        if self.course.gradebook.exists():
            enable_concurrent_writers(self.course)
        for row in self.journal.recover():
            log.info("%s %s: grading was interrupted; grading it again", row.student, row.assignment)
        self.deliver_graded()  # graded before a crash, not yet released
        self._pool = self._new_pool()
        if not once:
            self._warm_workers()
        try:
            while not self._stopping:
                if self.exchange.is_folder_exchange and self.wakeup.watched is None:
                    self.wakeup.watch(self.exchange.inbound_dir)
                for step in (self.collect_new, self.deliver_graded, self.release_due_feedback, self.schedule,
                             self.post_scores):
                    try:
                        step()
                    except Exception:  # e.g. the gradebook unreachable for a moment: next pass
                        log.exception("grading service step %s failed; trying again", step.__name__)
                self._wait(self.policy.poll_seconds)
                if once and not self._inflight and not self._ready_now():
                    break
            while self._inflight:  # let running gradings finish and release them
                self._wait(1.0)
        finally:
            self._finish_passback()  # the scores of the last gradings, before the service stops
            self.wakeup.close()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def post_scores(self) -> None:
        """Pass the scores graded since the last pass to the LMS (when one is registered,
        ``grader.lti``), and retry those kept, once a minute. The posting runs in a thread of its
        own, one pass at a time, so a slow or unreachable LMS never holds up grading."""
        from grader.lti.passback import after_grading

        if self._passback is not None and not self._passback.done():
            return
        if not self._graded_now and time.time() < self._next_passback:
            return
        graded, self._graded_now = self._graded_now, []
        self._next_passback = time.time() + PASSBACK_RETRY_SECONDS
        self._passback = self._passback_thread.submit(after_grading, self.course, graded)

    def _finish_passback(self) -> None:
        """Before the service stops: the pass under way, then one for the last gradings."""
        if self._passback is not None:
            self._passback.result()
            self._passback = None
        self._next_passback = 0.0
        self.post_scores()
        if self._passback is not None:
            self._passback.result()

    def _warm_workers(self) -> None:
        """Start every worker now, so that the first hand-in is graded as fast as the next ones:
        each local worker warms itself up as it starts (``start_worker``), and the pool starts one
        for each task it cannot give to an idle one; every Dask worker runs ``warm_up`` once."""
        if self.scheduler is not None:
            self._pool.warm(warm_up, str(self.course.root))
            return
        for _ in range(self.workers):
            self._pool.submit(os.getpid)

    def _ready_now(self) -> bool:
        now = self.clock()
        return any(row.state == RECEIVED or (row.not_before or 0) <= now
                   for row in self.journal.in_state(RECEIVED, WAITING))

    # ---- 1. collect ----------------------------------------------------------------------------

    def archive_of(self, row: Row) -> Path:
        """Where a hand-in is archived: ``.grader/submissions/<student>/<assignment>/<timestamp>-<folder digest>``
        (the digest tells apart folders whose names share a timestamp)."""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "-", row.timestamp)
        legacy = f"{row.student}+{row.assignment}+{row.timestamp}".encode()
        if row.folder and row.folder != legacy:
            safe += "-" + hashlib.sha256(row.folder).hexdigest()[:12]
        return self.archive_root / row.student / row.assignment / safe

    def collect_new(self) -> int:
        """Collect and record every inbound hand-in the journal does not know; returns how many.

        Each folder is handled on its own: whatever it holds or raises is recorded for that folder
        (refused, with the reason, and a page to its author where one can be sent safely), and
        the next folder is collected in the same pass.
        """
        new = 0
        noticed = time.time()
        self._settling = False
        try:
            folders = self.exchange.inbound(self.journal.known_folders() | self._flooded,
                                            self.policy.max_inbound_entries_per_pass)
        except Exception:  # the exchange itself cannot be listed now: look again at the next pass
            log.exception("could not list the exchange's inbound folder")
            return 0
        self._record_floods([folder for folder in folders if folder.flooded])
        for folder in folders:
            if self._stopping:
                break
            if folder.flooded or self._over_collect_budget(folder, noticed):
                continue
            started = time.process_time()
            try:
                if not self.journal.knows(folder.name):
                    new += self._collect_or_wait(folder, noticed)
            except Exception as exc:  # never let one folder stop the service
                log.exception("could not collect %s", folder.printable_name)
                self._refuse_folder(folder, unreadable_entry(exc))
            finally:
                self._collect_cpu.add(folder.owner, time.process_time() - started, noticed)
        for owner, entries in self._flood_counts.items():  # one journal write per account and pass
            self.journal.record_flood(owner, entries)
        self._flood_counts.clear()
        return new

    def _collect_or_wait(self, folder, noticed: float) -> int:
        """Collect ``folder``, or leave an unfinished one for a later look: looked at often while it
        is new (nbgrader submit writes the secret last, within moments), refused once it stayed
        unfinished for ``incomplete_handin_seconds``, so a folder touched forever costs nothing."""
        if folder.complete or folder.student is None:
            return self._collect_folder(folder, noticed)
        first_seen = self._first_seen.setdefault(folder.name, noticed)
        never_finished = never_finished_refusal(noticed - first_seen, self.policy.incomplete_handin_seconds)
        if never_finished is not None:
            self._first_seen.pop(folder.name, None)
            self._refuse_folder(folder, never_finished)
            return 0
        if noticed - first_seen < SETTLING_WINDOW and noticed - folder.changed_at < SETTLING_WINDOW:
            self._settling = True
        return self._collect_folder(folder, noticed)

    def _record_floods(self, flooded: list) -> None:
        """Refuse, unread and together, the new entries of every account that made more than its
        budget since the last look: one journal row per account (a count), one log line the first
        time; the entries are not listed again while the service runs. Later entries of that
        account that no page can answer are added to its count too, without a log line."""
        by_owner: dict[str, list[bytes]] = {}
        for folder in flooded:
            by_owner.setdefault(folder.owner, []).append(folder.name)
        for owner, names in by_owner.items():
            self._flooded.update(names)
            # A restart lists the earlier flood's entries again: its first count replaces the old one.
            first_in_this_run = owner not in self._flooded_now
            self._flooding.add(owner)
            self._flooded_now.add(owner)
            if self.journal.record_flood(owner, len(names), replace=first_in_this_run):
                log.warning("refused %d new inbound entries of %s at once (more than %d a look); its "
                            "later floods are counted in the journal, not logged", len(names), owner,
                            self.policy.max_inbound_entries_per_pass)

    def _over_collect_budget(self, folder, now: float) -> bool:
        """Whether the service already spent ``max_collect_cpu_seconds_per_hour`` reading this
        folder owner's entries (it is read again once the hour has passed)."""
        if self._collect_cpu.spent(folder.owner, now) < self.policy.max_collect_cpu_seconds_per_hour:
            return False
        if folder.owner not in self._over_budget_logged:
            self._over_budget_logged.add(folder.owner)
            log.warning("%s: reading its inbound entries took %.0f CPU s this hour (budget %g s); "
                        "the rest wait", folder.owner, self._collect_cpu.spent(folder.owner, now),
                        self.policy.max_collect_cpu_seconds_per_hour)
        return True

    def _refuse_folder(self, folder, refusal: Refusal, answer: bool = True, todo: str = REFUSED_TODO) -> None:
        """Record an inbound entry that is nobody's hand-in, and tell its author why with a page
        where a page can find them (``answer``; see :meth:`_answer_key`); otherwise it is for the
        instructor only: the journal's refused folders and one log line."""
        try:
            if self.journal.knows(folder.name):
                return
            key = self._answer_key(folder) if answer else None
            if key is None and folder.owner in self._flooding:  # one more of a flood: counted, not logged
                self._flooded.add(folder.name)
                self._flood_counts[folder.owner] = self._flood_counts.get(folder.owner, 0) + 1
                return
            if key is not None:
                self._send_refusal_page(folder, key, refusal, todo)
            if self.journal.refuse_folder(folder.name, folder.owner, refusal,
                                          None if key is None else key.secret_digest):
                told = f"a page told {folder.owner}" if key is not None else "no page can reach its author"
                log.warning("refused inbound entry %r (owner %s): %s; %s", folder.printable_name,
                            folder.owner or "unknown", refusal.instructor_text, told)
        except Exception:
            log.exception("could not record the refusal of %s", folder.printable_name)

    def _answer_key(self, folder) -> AnswerKey | None:
        """What a page about a refused folder is keyed on, or None when none may be sent: the folder
        must be a real folder of a student's account (not root's, not a uid without an account)
        whose secret can key a page (``grader.service.inbound.answer_key``) that no other hand-in's
        page is keyed on."""
        if not self.exchange.is_folder_exchange or owner_of(folder) is None:
            return None
        key = answer_key(self.exchange.inbound_dir, folder, self.policy.max_handin_notebooks)
        if key is None or self.journal.folder_with_secret(key.secret_digest) is not None:
            return None
        return key

    def _send_refusal_page(self, folder, key: AnswerKey, refusal: Refusal, todo: str) -> None:
        """Release a page saying why ``folder`` was refused, found by its author's own copy of the
        hand-in; staged outside the course's ``feedback/``, which holds students' real feedback."""
        staging = self.course.state_dir / REFUSAL_STAGING
        claimed = folder.assignment if folder.assignment and self.course.has_assignment(folder.assignment) else None
        language = reading_language(self.course, folder.owner)
        page = pages.status_page_of(folder.owner, folder.assignment or translate(YOUR_HANDIN, language),
                                    folder.timestamp or translate(UNNAMED_TIME, language), "refused",
                                    refusal.student_text, todo, language=language, code=refusal.code)
        pages.place_for_author(staging, folder.owner, claimed or REFUSED_LABEL, key, page,
                               nbgrader_timestamp(time.time()))
        try:
            self.exchange.release_feedback(claimed or REFUSED_LABEL, folder.owner, root=staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _collect_folder(self, folder, noticed: float) -> int:
        student = owner_of(folder, self.exchange.check_owner)  # never the name's word (attribution)
        # A hand-in named after a classmate is still its maker's row (refused, with a page to its maker).
        nobodys = nobodys_handin_refusal(self.course, folder.problem, folder.assignment, student, folder.owner,
                                         folder.student)
        if nobodys is not None:
            self._refuse_folder(folder, nobodys)
            return 0
        if not folder.complete:
            return 0  # still being written by nbgrader submit: collected at the next look
        self._first_seen.pop(folder.name, None)
        full = archive_full_refusal(archive_bytes(self.archive_root / student),
                                    self.policy.max_archive_megabytes_per_account)
        if full is not None:
            self._refuse_folder(folder, full,
                                todo="ask the instructor: later hand-ins are refused too until they make room.")
            return 0
        row = Row(0, student, folder.assignment, folder.timestamp, 0, 0, "", None, None,
                  None, None, None, None, None, 0, None, folder.name)
        archive = self.archive_of(row)
        refusal = folder.problem
        try:
            collected = self.exchange.collect(folder, archive / HANDIN, handin_budget(self.policy))
            secret_digest = collected.secret_digest
            counted_at = collected.counted_at
        except FileNotFoundError:
            return 0  # the folder vanished while it was read; if it comes back it is read again
        except HandinRefused as not_copied:
            if not_copied.secret is None:  # no page can be sent safely: recorded, logged, never graded
                self._refuse_folder(folder, not_copied.refusal)
                return 0
            # The hand-in is not copied; it is recorded and ends ungradable (or, under another
            # student's name, refused) with a page saying why.
            secret_digest = hashlib.sha256(not_copied.secret.encode("ascii")).hexdigest()
            counted_at = time.time()
            self._keep_refused_handin(archive, not_copied.secret, not_copied.refusal)
        except ExchangeError as exc:
            log.error("could not collect %s: %s", folder.printable_name, exc)
            return 0
        reused = secret_reused_refusal(self.journal.folder_with_secret(secret_digest))
        if reused is not None:
            # nbgrader names a feedback page after the submission secret: a reused secret would
            # release this page under another hand-in's name. Nothing is sent for it.
            self._refuse_folder(folder, reused, answer=False)
            shutil.rmtree(archive, ignore_errors=True)
            return 0
        row_id = self.journal.add(folder.name, student, folder.assignment, folder.timestamp,
                                  counted_at, refusal, secret_digest)
        if row_id is not None:
            self._moments[row_id] = {"landed": min(counted_at, noticed), "noticed": noticed,
                                     "collected": time.time()}
        if row_id is not None and refusal:
            try:
                self._answer_refused(self.journal.get(row_id))
            except Exception as exc:
                self._handin_failed(self.journal.get(row_id), exc)
        return int(row_id is not None)

    def _keep_refused_handin(self, archive: Path, secret: str, refusal: Refusal) -> None:
        """A hand-in that was not copied keeps what its page needs: its secret, the counted time
        and the refusal (which grading reports as the reason it is ungradable, with its code)."""
        shutil.rmtree(archive / HANDIN, ignore_errors=True)
        (archive / HANDIN).mkdir(parents=True, mode=0o755)
        (archive / HANDIN / SECRET_FILE).write_text(secret)
        (archive / HANDIN / TIMESTAMP_FILE).write_text(nbgrader_timestamp(time.time()))
        (archive / HANDIN / NOT_COLLECTED).write_text(refusal.as_record())

    def _answer_refused(self, row: Row) -> None:
        """Tell a refused hand-in's author why, through a staging folder: the course's own
        ``feedback/`` (the named student's real feedback) is never touched by it."""
        staging = self.course.state_dir / REFUSAL_STAGING
        page = pages.status_page_of(row.student, row.assignment, pages.utc(row.submitted_at), "refused", row.refusal,
                                    OWN_WORK_TODO, language=reading_language(self.course, row.student),
                                    code=row.code or "names-another-student")
        pages.place(self.course, row.student, row.assignment, self.archive_of(row) / HANDIN, page,
                    root=staging)
        try:
            self.exchange.release_feedback(row.assignment, row.student, root=staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.journal.update(row.id, state=RELEASED, outcome="refused", problem=row.refusal,
                            finished_at=self.clock(), code=row.code)
        self._moments.pop(row.id, None)
        log.info("%s %s refused: %s", row.student, row.assignment, row.refusal)

    # ---- 2. held feedback ----------------------------------------------------------------------

    def resolved_policy(self, student: str, assignment: str) -> ResolvedPolicy:
        """``student``'s own policy for ``assignment`` (grader.policy), read afresh: the policy file
        and the gradebook's due dates may change while the service runs. While the policy file
        cannot be used (edited by hand), the last one that could decides, and the log says why once."""
        try:
            self._policy_book, self._policy_problem = PolicyBook.of(self.course, hand_ins=False), ""
        except PolicyFileError as exc:
            if self._policy_book is None:
                raise
            if str(exc) != self._policy_problem:
                log.error("the course policy cannot be used; deciding with the last one that could: %s", exc)
                self._policy_problem = str(exc)
        return self._policy_book.resolve(student, assignment)

    def due_date(self, assignment: str, student: str) -> float | None:
        """``student``'s own due date of ``assignment`` (epoch seconds): the gradebook's, or the
        course policy's, moved by the student's extension or accommodation; None without one."""
        due = self.resolved_policy(student, assignment).due
        return None if due is None else due.timestamp()

    def hourly_limit(self, student: str, assignment: str) -> int:
        """Hand-ins of ``student`` graded per hour: the policy file's override, else the service's."""
        resolved = self.resolved_policy(student, assignment)
        return resolved.max_graded_per_hour if "max_graded_per_hour" in resolved.sources \
            else self.policy.max_graded_per_hour

    def release_due_feedback(self) -> None:
        busy = {(r.student, r.assignment) for r in self._inflight.values()}
        for row in self.journal.in_state(HELD):
            due = self.due_date(row.assignment, row.student)
            if (row.student, row.assignment) not in busy and (due is None or self.clock() >= due):
                try:
                    self._release(row, Path(self.archive_of(row)) / FEEDBACK)
                except Exception as exc:
                    self._handin_failed(row, exc)
                    continue
                self.journal.update(row.id, state=RELEASED)
                log.info("%s %s: held feedback released after the due date", row.student, row.assignment)

    def deliver_graded(self) -> None:
        """Release (or hold) the feedback of every graded row not yet delivered: one whose release
        failed, or one graded before the service stopped. Each on its own."""
        busy = {r.id for r in self._inflight.values()}
        for row in self.journal.in_state(GRADED):
            if row.id not in busy:
                try:
                    self._deliver(row)
                except Exception as exc:
                    self._handin_failed(row, exc)

    # ---- 3. schedule ---------------------------------------------------------------------------

    def schedule(self) -> None:
        busy = {(r.student, r.assignment) for r in self._inflight.values()}
        pending: dict[tuple[str, str], list[Row]] = {}
        for row in self.journal.in_state(RECEIVED, WAITING):
            if row.refusal:  # answered at once; it never supersedes or queues a hand-in
                try:
                    self._answer_refused(row)
                except Exception as exc:
                    self._handin_failed(row, exc)
                continue
            pending.setdefault((row.student, row.assignment), []).append(row)
        for pair, rows in pending.items():
            if self._stopping or pair in busy or self._grading_another(pair[0]):
                continue
            rows.sort(key=lambda r: r.id)
            try:
                rows = self._supersede_flood(rows)
                self._decide(rows[0])
            except Exception as exc:  # one hand-in's trouble never stops the others
                self._handin_failed(rows[0], exc)

    def _grading_another(self, student: str) -> bool:
        """Whether a hand-in of ``student`` is grading (or queued for a worker) now: a student has
        one at a time, so their hand-ins in several assignments never hold every worker while
        classmates queue behind them (a notebook may run for minutes)."""
        return any(row.student == student for row in self._inflight.values())

    def _handin_failed(self, row: Row, exc: Exception) -> None:
        """A hand-in whose handling raised (deciding, answering, releasing) is tried again at the
        next passes from the state it is in, then recorded as ungradable with the reason (a fault
        of the service, not of the student). Never raises."""
        log.error("%s %s: could not handle the hand-in (state %s)", row.student, row.assignment, row.state,
                  exc_info=exc)
        failures = self._failures[row.id] = self._failures.get(row.id, 0) + 1
        try:
            if failures < self.policy.max_grading_attempts:
                if row.state == GRADING:  # its result was not recorded: graded again
                    self.journal.update(row.id, state=RECEIVED, started_at=None)
                return
            try:
                self._answer_without_grading(row, "ungradable", SERVICE_FAULT, "ask the instructor; handing in "
                                             "again may not help.", code="service-fault", error=type(exc).__name__)
            except Exception:
                log.exception("%s %s: could not record the hand-in as ungradable", row.student, row.assignment)
                self.journal.update(row.id, state=RELEASED, outcome="ungradable", code="service-fault",
                                    problem=f"the service could not handle it ({type(exc).__name__})")
        except Exception:  # the journal itself failed: the next pass finds the row as it is
            log.exception("%s %s: could not record what happened to the hand-in", row.student, row.assignment)

    def _supersede_flood(self, rows: list[Row]) -> list[Row]:
        """All but the newest ``max_waiting`` pending rows of one pair are recorded as superseded."""
        keep = self.policy.max_waiting
        for row in rows[:-keep]:
            latest = rows[-1]
            self._answer_without_grading(row, "superseded", SUPERSEDED,
                                         "wait for the feedback of your latest submission before handing in again.",
                                         count=len(rows), latest=pages.utc(latest.submitted_at))
        return rows[-keep:]

    def _decide(self, row: Row) -> None:
        if row.refusal:
            self._answer_refused(row)
            return
        now = self.clock()
        due = self.due_date(row.assignment, row.student)
        if due is not None and row.submitted_at > due:
            on_time = [r for r in self.journal.of(row.student, row.assignment)
                       if r.submitted_at <= due and r.outcome in ("graded", "ungradable")]
            if on_time:
                self._answer_without_grading(row, "not counted", NOT_COUNTED,
                                             "nothing: your on-time submission is the one that is graded.",
                                             due=pages.utc(due), on_time=pages.utc(on_time[-1].submitted_at))
                return
        starts = self.journal.graded_since(row.student, row.assignment, now - HOUR)
        limit = self.hourly_limit(row.student, row.assignment)
        if len(starts) >= limit:
            not_before = starts[len(starts) - limit] + HOUR
            if row.state != WAITING or row.not_before != not_before:
                self.journal.update(row.id, state=WAITING, not_before=not_before)
                self._place_and_release(row, pages.status_page_of(
                    row.student, row.assignment, pages.utc(row.submitted_at), "waiting to be graded", HOURLY_LIMIT,
                    "nothing; fetch feedback again after that time. A newer submission is graded "
                    "after this one.", waiting=True, language=reading_language(self.course, row.student),
                    values={"limit": limit, "at": pages.utc(not_before)}))
                log.info("%s %s: waiting until %s (hourly limit %d)", row.student, row.assignment,
                         pages.utc(not_before), limit)
            return
        if self._over_grading_time(row, now):
            return
        self.journal.start_grading(row.id)
        self._moments.setdefault(row.id, {})["started"] = time.time()
        future = self._pool.submit(grade_archived, str(self.course.root), row.assignment, row.student,
                                   str(self.archive_of(row)), self.limits)
        self._inflight[future] = self.journal.get(row.id)
        future.add_done_callback(self.wakeup.set)

    def _over_grading_time(self, row: Row, now: float) -> bool:
        """Whether the student's gradings took ``max_grading_seconds_per_hour`` of wall-clock time
        in the last hour; the hand-in then waits (looked at again every minute), with a page."""
        used = self.journal.grading_seconds_since(row.student, now - HOUR, now)
        budget = self.policy.max_grading_seconds_per_hour
        if used < budget:
            return False
        if row.state != WAITING:
            self._place_and_release(row, pages.status_page_of(
                row.student, row.assignment, row.timestamp, "waiting to be graded", GRADING_TIME_USED,
                "nothing; fetch feedback again later. Notebooks that wait or loop for long use up this time.",
                waiting=True, language=reading_language(self.course, row.student),
                values={"used": f"{used / 60:.0f}", "budget": f"{budget / 60:g}"}))
            log.info("%s %s: waiting (grading took %.0f s of the last hour, budget %g s)", row.student,
                     row.assignment, used, budget)
        self.journal.update(row.id, state=WAITING, not_before=now + GRADING_TIME_RECHECK)
        return True

    def _answer_without_grading(self, row: Row, outcome: str, detail: str, todo: str,
                                code: str | None = None, **values) -> None:
        """Release a page saying ``outcome`` without grading, in the student's language, and record
        it (in the journal in English). ``detail``: a catalogue message whose ``{name}`` parts
        ``values`` fill; ``code``: the refusal code of an ungradable one."""
        self._place_and_release(row, pages.status_page_of(row.student, row.assignment, pages.utc(row.submitted_at),
                                                          outcome, detail, todo, values=values,
                                                          language=reading_language(self.course, row.student)))
        detail = detail.format(**values) if values else detail
        self.journal.update(row.id, state=RELEASED, outcome=outcome, problem=detail,
                            finished_at=self.clock(), code=code)
        self._moments.pop(row.id, None)
        log.info("%s %s %s: %s", row.student, row.assignment, outcome, detail)

    # ---- 4. finish and release ----------------------------------------------------------------

    def _wait(self, seconds: float) -> None:
        """Until a hand-in lands, a grading ends or ``seconds`` pass; then finish ended gradings."""
        self.wakeup.wait(min(seconds, SETTLING_SECONDS) if self._settling else seconds)
        for future in [f for f in self._inflight if f.done()]:
            row = self._inflight.pop(future)
            try:
                self._finish(row, future)
            except Exception as exc:
                self._handin_failed(self.journal.get(row.id), exc)

    def _finish(self, row: Row, future: cf.Future) -> None:
        try:
            result = future.result()
        except Exception as exc:  # the worker died (killed, out of memory): not the student's fault
            self._replace_broken_pool()
            if row.gradings < self.policy.max_grading_attempts:
                log.error("%s %s: grading crashed (%s); trying again", row.student, row.assignment, exc)
                self.journal.update(row.id, state=RECEIVED, started_at=None)
                return
            self._answer_without_grading(row, "ungradable", GRADING_STOPPED,
                                         "ask the instructor; handing in again will not help.", code="service-fault",
                                         times=row.gradings, error=type(exc).__name__)
            return
        self.journal.update(row.id, state=GRADED, finished_at=self.clock(), score=result["score"],
                            max_score=result["max_score"], problem=result["problem"], code=result.get("code"),
                            outcome="graded" if result["graded"] else "ungradable")
        row = self.journal.get(row.id)
        graded = time.time()
        if result["graded"]:
            self._graded_now.append((row.assignment, row.student))
        try:
            self._deliver(row)
        except Exception as exc:  # graded and recorded; the release is tried again at the next pass
            self._handin_failed(row, exc)
        log.info("%s %s %s %g/%g %.1fs first problem: %s; %s", row.student, row.assignment,
                 row.outcome, result["score"], result["max_score"], result["seconds"],
                 result["problem"], self._step_line(row.id, result.get("steps", {}), graded))

    def _step_line(self, row_id: int, steps: dict[str, float], graded: float) -> str:
        """``noticed 0.01 s, collected ..., released 0.04 s, 0.92 s after it landed``: the seconds
        of each step of one hand-in (from when it landed in inbound/ until its page was released)."""
        moments = self._moments.pop(row_id, {})
        released = time.time()
        parts = []
        if {"landed", "noticed", "collected"} <= moments.keys():
            parts += [f"noticed {moments['noticed'] - moments['landed']:.2f} s",
                      f"collected {moments['collected'] - moments['noticed']:.2f} s"]
        if "started" in moments and "collected" in moments:
            parts.append(f"queued {moments['started'] - moments['collected']:.2f} s")
        parts += [f"{name} {seconds:.2f} s" for name, seconds in steps.items()]
        if "started" in moments:
            worker = sum(steps.values())
            parts.append(f"waited for a worker {max(0.0, graded - moments['started'] - worker):.2f} s")
        parts.append(f"released {released - graded:.2f} s")
        if "landed" in moments:
            parts.append(f"{released - moments['landed']:.2f} s after it landed")
        return "steps: " + ", ".join(parts)

    def _deliver(self, row: Row) -> None:
        """Release a graded row's feedback, or hold it until the due date."""
        due = self.due_date(row.assignment, row.student)
        hold = (not self.policy.feedback_is_immediate(row.assignment) and due is not None
                and row.submitted_at <= due and self.clock() < due)
        if hold:
            self._place_and_release(row, pages.status_page_of(
                row.student, row.assignment, pages.utc(row.submitted_at), "received and graded", HELD_UNTIL_DUE,
                "nothing; fetch feedback again after the due date.", waiting=True, values={"due": pages.utc(due)},
                language=reading_language(self.course, row.student)), archive=False)
            self.journal.update(row.id, state=HELD)
            return
        self._release(row, self.archive_of(row) / FEEDBACK)
        self.journal.update(row.id, state=RELEASED)

    def _place_and_release(self, row: Row, page: str, archive: bool = True) -> None:
        archive_dir = self.archive_of(row)
        pages.place(self.course, row.student, row.assignment, archive_dir / HANDIN, page)
        if archive:
            if (archive_dir / FEEDBACK).exists():
                shutil.rmtree(archive_dir / FEEDBACK)
            shutil.copytree(self.course.feedback_folder(row.student, row.assignment),
                            archive_dir / FEEDBACK)
        self.exchange.release_feedback(row.assignment, row.student)

    def _release(self, row: Row, feedback: Path) -> None:
        folder = self.course.feedback_folder(row.student, row.assignment)
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(feedback, folder)
        pages.keep_only_recorded(self.course, folder, row.assignment, self.archive_of(row) / HANDIN)
        self.exchange.release_feedback(row.assignment, row.student)

    def _replace_broken_pool(self) -> None:
        if self._pool is not None and getattr(self._pool, "_broken", False):
            alive = {f: r for f, r in self._inflight.items() if not f.done()}
            for future, row in alive.items():  # their worker pool is gone with the broken one
                self._inflight.pop(future)
                self.journal.update(row.id, state=RECEIVED, started_at=None)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()


def serve(course: Course, once: bool = False, fix_permissions: bool = False,
          workers: int | None = None, scheduler: str | None = None,
          insecure_scheduler: bool = False) -> int:
    """The ``grader watch`` command: check privacy, then run until done or SIGTERM; exit status."""
    try:
        ensure_private(course, fix_permissions)
    except PrivacyError as exc:
        log.error("%s", exc)
        return 2
    service = GradingLoop(course, workers=workers, scheduler=scheduler,
                             insecure_scheduler=insecure_scheduler)
    previous = signal.signal(signal.SIGTERM, service.stop)
    log.info("watching the exchange of %s (%s)", course.root, "once" if once else "until SIGTERM")
    try:
        service.run(once=once)
    except (AlreadyServing, ClusterSetupError, InsecureSchedulerError) as exc:
        log.error("%s", exc)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
        service.journal.close()
    log.info("stopped")
    return 0
