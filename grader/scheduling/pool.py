"""Grade a class in parallel: one (assignment, student) pair per task, on a pool of worker processes.

Plain ``nbgrader autograde`` grades students one after another (nbgrader issue #174). Pairs are
independent (separate gradebook rows and folders), so a pool of processes grades them at once; the
SQLite gradebook is shared through a busy timeout and write-ahead logging. A student is never
graded twice at once, and kernels are never shared (each notebook gets its own sandboxed kernel,
forked from the worker's zygote, ``grader.sandbox.zygote``). Each task is
``grader.grading.grade_one.grade_one``.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Callable, Iterable

from grader.course import Course, enable_concurrent_writers
from grader.grading import run_record
from grader.grading.outcome import GradingOutcome
from grader.scheduling.worker_lifetime import die_with_parent, exit_without_collecting


def pending_submissions(course: Course, pairs: Iterable[tuple[str, str]],
                        force: bool = False) -> tuple[list[tuple[str, str]], list[GradingOutcome]]:
    """Split (assignment, student) pairs into those to grade and outcomes of those to skip."""
    todo, skipped = [], []
    for assignment, student in pairs:
        record = None if force else run_record.read_record(course, assignment, student)
        if record is not None and record.get("inputs_digest") == run_record.inputs_digest(course, assignment, student):
            skipped.append(GradingOutcome(student, assignment, bool(record.get("graded")), record.get("reason"),
                                          0.0, skipped=True, code=record.get("code")))
        else:
            todo.append((assignment, student))
    return todo, skipped


def grading_workers(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` fresh worker processes (``_worker_init``); each runs on a core of its
    own (``pin_to_next_core``) when there are at least as many cores as workers, else (or where
    the system cannot pin a process, as on macOS) where the operating system puts it."""
    # "spawn": workers start clean, without the parent's event loops or open database handles.
    context = multiprocessing.get_context("spawn")
    pinned = hasattr(os, "sched_setaffinity") and workers <= len(os.sched_getaffinity(0))
    cores_taken = context.Value("i", 0) if pinned else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                               initargs=(cores_taken,))


def pin_to_next_core(cores_taken) -> None:
    """Run this process, and the kernels it starts (they inherit it), on the next of the cores it
    may use, counted by ``cores_taken`` (a shared ``multiprocessing.Value``, 0 at first).

    A worker and its kernel take turns, never run at once: on one core they keep that core's
    caches, and neither waits for a core the other worker's kernel holds (a class of 154
    notebooks on 2 cores took about 4 % less time than with the workers free to move).
    """
    with cores_taken.get_lock():
        index = cores_taken.value
        cores_taken.value += 1
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[index % len(cores)]})


def _worker_init(cores_taken=None) -> None:
    """Each worker dies with the process that started it (its kernels then die with it), exits
    without the garbage collector's passes over the grading code, runs on a core of its own when
    ``cores_taken`` counts them (``pin_to_next_core``), and imports the grading code once, before
    its first submission."""
    die_with_parent()
    exit_without_collecting()
    if cores_taken is not None:
        pin_to_next_core(cores_taken)
    gc.disable()  # importing makes no garbage worth the collector's passes (about 0.1 s of 1 s)
    try:
        import grader.grading.grade_one  # noqa: F401
    finally:
        gc.enable()


def _grade_one(course_root: str, assignment: str, student: str) -> GradingOutcome:
    """``grade_one``, imported where it runs: this process hands out submissions and reads outcomes
    without importing nbgrader and the pipeline, so the workers start while it would still be
    importing them."""
    from grader.grading.grade_one import grade_one

    return grade_one(course_root, assignment, student)


def _started() -> None:
    """A task that only makes the pool start one more worker."""


def _prepare_course(course_root: str, before_grading: Callable[[str], None] | None) -> None:
    """What happens once before any pair is graded: the gradebook made ready for parallel writers
    (it reads the course config, which loads nbgrader), then ``before_grading``."""
    enable_concurrent_writers(Course(Path(course_root)))
    if before_grading is not None:
        before_grading(course_root)


def grade_submissions(course: Course, pairs: Iterable[tuple[str, str]], workers: int | None = None,
                      force: bool = False,
                      on_outcome: Callable[[GradingOutcome], None] | None = None,
                      before_grading: Callable[[str], None] | None = None,
                      finish_assignment: Callable[[str, str], object] | None = None,
                      on_finished: Callable[[str, object], None] | None = None) -> list[GradingOutcome]:
    """Autograde (assignment, student) pairs; outcomes in the order of ``pairs``.

    Pairs whose record shows the same inputs are skipped unless ``force``. ``on_outcome`` is
    called in this process for every outcome as it arrives (skipped ones first).
    workers: processes to use (default: the number of CPUs); 1 grades in this process.
    before_grading(course root): run before any pair is graded, in the first worker (which has the
    grading code loaded; the others start meanwhile) or in this process with one worker; what it
    raises (a picklable exception, such as SystemExit) is raised here and nothing is graded. This
    process itself loads neither nbgrader nor the course config, so the workers start at once.
    finish_assignment(course root, assignment): run once for each assignment of ``pairs`` as soon as
    every pair of it has an outcome, in a worker (which has the grading code loaded and would
    otherwise wait for the last pairs of the class; with one worker, in this process). What it
    returns (picklable) reaches ``on_finished(assignment, value)`` here, before this returns; one
    that raises is left out, for the caller to do again where its error shows.
    """
    pairs = list(pairs)
    if not pairs:
        return []
    todo, skipped = pending_submissions(course, pairs, force)
    by_pair = {(o.assignment, o.student): o for o in skipped}
    for outcome in skipped:
        if on_outcome:
            on_outcome(outcome)
    workers = max(1, min(workers or os.cpu_count() or 1, len(todo) or 1))
    left = Counter(assignment for assignment, _ in todo)  # assignment -> pairs without an outcome
    finished_first = [a for a in dict.fromkeys(a for a, _ in pairs) if not left[a]] if finish_assignment else []
    if workers == 1:
        _prepare_course(str(course.root), before_grading)

        def finish_here(assignment: str) -> None:
            try:
                value = finish_assignment(str(course.root), assignment)
            except Exception:  # noqa: BLE001 - left to the caller, where the error shows
                return
            if on_finished:
                on_finished(assignment, value)

        for assignment in finished_first:
            finish_here(assignment)
        for assignment, student in todo:
            outcome = by_pair[assignment, student] = _grade_one(str(course.root), assignment, student)
            if on_outcome:
                on_outcome(outcome)
            left[assignment] -= 1
            if finish_assignment and not left[assignment]:
                finish_here(assignment)
    else:
        with grading_workers(workers) as pool:
            prepared = pool.submit(_prepare_course, str(course.root), before_grading)
            for _ in range(workers - 1):
                pool.submit(_started)
            prepared.result()
            futures = {pool.submit(_grade_one, str(course.root), a, s): (a, s) for a, s in todo}
            finishing = {pool.submit(finish_assignment, str(course.root), a): a for a in finished_first}
            running = set(futures) | set(finishing)
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    if future in finishing:
                        if future.exception() is None and on_finished:
                            on_finished(finishing[future], future.result())
                        continue
                    try:
                        outcome = future.result()
                    except Exception as exc:  # the worker died: no record, so the next run retries it
                        assignment, student = futures[future]
                        outcome = GradingOutcome(student, assignment, False,
                                                 f"the grading process failed ({type(exc).__name__}: {exc}); "
                                                 "run grader autograde again to retry", 0.0, code="worker-died")
                    by_pair[outcome.assignment, outcome.student] = outcome
                    if on_outcome:
                        on_outcome(outcome)
                    assignment = futures[future][0]
                    left[assignment] -= 1
                    if finish_assignment and not left[assignment]:
                        try:
                            following = pool.submit(finish_assignment, str(course.root), assignment)
                        except BrokenExecutor:  # a worker died: the caller does it
                            continue
                        finishing[following] = assignment
                        running.add(following)
    return [by_pair[pair] for pair in pairs]


def grade_class(course: Course, assignment: str, students: list[str] | None = None,
                workers: int | None = None, force: bool = True,
                on_outcome: Callable[[GradingOutcome], None] | None = None) -> list[GradingOutcome]:
    """Autograde every listed (default: every submitted) student; outcomes in student order.

    workers: processes to use (default: the number of CPUs); 1 grades in this process.
    force: grade even submissions whose inputs are unchanged since their last grading
    (default True, as ``nbgrader autograde --force``; ``grader autograde`` skips them).
    """
    students = sorted(students if students is not None else course.students(assignment))
    return grade_submissions(course, [(assignment, s) for s in students], workers, force, on_outcome)
