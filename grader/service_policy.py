"""The course's grading-service policy: a traitlets Configurable read from ``nbgrader_config.py``.

Every setting is declared in ``grader.settings`` with its default, so a course without a
``GradingService`` block gets them::

    c.GradingService.immediate_feedback = {"04_attention": False}   # default: immediate for all
    c.GradingService.max_graded_per_hour = 6
    c.GradingService.max_waiting = 5

Due dates, extensions, late penalties and per-student hourly limits are the course policy's
(``grader.policy``: ``c.CoursePolicy``, the policy file, the gradebook's ``duedate``); the service
only decides *when* to grade and release.
"""
from __future__ import annotations

from traitlets.config import Configurable

from grader.course import Course, load_config
from grader.settings import traits_of


class GradingService(Configurable):
    """When submissions are graded and when their feedback is released."""

    # Every c.GradingService setting: type, default and help from grader.settings.
    locals().update(traits_of("GradingService"))

    def feedback_is_immediate(self, assignment: str) -> bool:
        return self.immediate_feedback.get(assignment, self.immediate_feedback_default)


def load_service_policy(course: Course) -> GradingService:
    """The ``c.GradingService`` settings of ``course``'s ``nbgrader_config.py`` (defaults if absent)."""
    return GradingService(config=load_config(course))
