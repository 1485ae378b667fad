"""The course's grading-service policy: a traitlets Configurable read from ``nbgrader_config.py``.

Every setting has a documented default, so a course without a ``GradingService`` block gets them::

    c.GradingService.immediate_feedback = {"04_attention": False}   # default: immediate for all
    c.GradingService.max_graded_per_hour = 6
    c.GradingService.max_waiting = 5

Due dates and late penalties are nbgrader's own (the gradebook's ``duedate``,
``c.LateSubmissionPlugin.penalty_method``); the service only decides *when* to grade and release.
"""
from __future__ import annotations

from traitlets import Bool, Dict, Float, Int
from traitlets.config import Configurable

from grader.course import Course, load_config


class GradingService(Configurable):
    """When submissions are graded and when their feedback is released."""

    immediate_feedback = Dict(
        value_trait=Bool(), default_value={},
        help="assignment id -> whether feedback on a submission made before the due date is released "
             "as soon as it is graded (True) or held until the due date (False). Assignments not "
             "listed use `immediate_feedback_default`.",
    ).tag(config=True)
    immediate_feedback_default = Bool(
        True, help="Immediate feedback for assignments not listed in `immediate_feedback`.",
    ).tag(config=True)
    max_graded_per_hour = Int(
        6, min=1,
        help="At most this many submissions per student and assignment are graded in any hour; a "
             "submission over the limit waits (its feedback page says until when) and is graded then.",
    ).tag(config=True)
    max_waiting = Int(
        5, min=1,
        help="At most this many submissions per student and assignment wait for the hourly limit; "
             "older waiting ones beyond it are recorded as superseded (never graded), with a page "
             "saying so. Only a flood of hand-ins reaches this.",
    ).tag(config=True)
    max_notebook_megabytes = Float(
        5.0, help="A submitted notebook larger than this is not graded (recorded as ungradable).",
    ).tag(config=True)
    max_cells = Int(
        2000, help="A submitted notebook with more cells than this is not graded (ungradable).",
    ).tag(config=True)
    max_handin_megabytes = Float(
        20.0, help="A hand-in (every file of the folder together) larger than this is refused before "
                   "anything is copied; its author gets a page saying so.",
    ).tag(config=True)
    max_handin_files = Int(
        200, min=1, help="A hand-in with more files and folders than this is refused.",
    ).tag(config=True)
    max_handin_notebooks = Int(
        10, min=1, help="A hand-in with more notebooks at its top level than this is refused.",
    ).tag(config=True)
    poll_seconds = Float(1.0, help="Seconds between two looks at the exchange's inbound folder when no "
                         "file system event came (the fallback; events wake the service at once).").tag(config=True)
    workers = Int(2, min=1, help="Submissions graded at once (one process each).").tag(config=True)

    def feedback_is_immediate(self, assignment: str) -> bool:
        return self.immediate_feedback.get(assignment, self.immediate_feedback_default)


def load_policy(course: Course) -> GradingService:
    """The ``c.GradingService`` settings of ``course``'s ``nbgrader_config.py`` (defaults if absent)."""
    return GradingService(config=load_config(course))
