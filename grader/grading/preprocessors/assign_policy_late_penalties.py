"""``AssignPolicyLatePenalties``: the gradebook's late penalty from the student's resolved policy.

Takes nbgrader's ``AssignLatePenalties`` place in the grading pipeline (``grader.grading.pipeline``),
so ``grader autograde``, the grading service and plain ``nbgrader autograde`` write the same
penalty. The student's own due date, late window and penalty per day come from
:class:`grader.policy.course_policy.PolicyBook`; the late days spent from the recorded hand-in
times (:mod:`grader.policy.late_days`), so regrading gives the same penalty. The penalty is a share
of the notebook's score, written where nbgrader keeps it (``late_submission_penalty``): the
formgrader, ``nbgrader export`` and the feedback page's total all subtract it.
"""
from __future__ import annotations

from nbgrader.api import Gradebook

from grader.grading.preprocessors.course_preprocessor import CoursePreprocessor


class AssignPolicyLatePenalties(CoursePreprocessor):
    """Write each graded notebook's late penalty from the student's resolved policy."""

    reads = {"resources.nbgrader", "gradebook: submission", "gradebook: scores"}
    writes = {"gradebook: late penalty"}
    timed_as = "gradebook"

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        outcome = self.student_policy(resources).late_outcomes(info["student"]).get(info["assignment"])
        with Gradebook(info["db_url"]) as gb:
            notebook = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            share = outcome.penalty_share if outcome is not None else 0.0
            notebook.late_submission_penalty = share * notebook.score if share > 0 else None
            if share > 0:
                self.log.warning("%s %s: %.0f s late after %d late day(s): penalty %.0f %% of the score",
                                 info["student"], info["assignment"], outcome.seconds_late,
                                 outcome.late_days_spent, share * 100)
            gb.db.commit()
        return nb, resources
