"""The base of the course's preprocessors that need the course folder and the graded submission."""
from __future__ import annotations

from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.course import Course, converter_coursedir, course_root_of

#: Where ``student_policy`` keeps the policy it read, in the resources every step of one notebook shares.
POLICY_RESOURCE = "grader_student_policy"


class CoursePreprocessor(NbGraderPreprocessor):
    """A preprocessor that needs the ``.grader`` folder of the course it is grading."""

    def _converter_root(self) -> str | None:
        """The converter's course folder, or None when this preprocessor runs on its own."""
        coursedir = converter_coursedir(self)
        return coursedir.root if coursedir is not None else None

    def _course_root(self) -> str:
        return course_root_of(self)

    def _coursedir(self) -> CourseDirectory:
        """The converter's course directory settings (folders, ignore patterns), else the config's."""
        coursedir = converter_coursedir(self)
        return coursedir if coursedir is not None else CourseDirectory(config=self.config, root=self._course_root())

    def state_dir(self) -> Path:
        return Course(Path(self._course_root())).state_dir

    def student_policy(self, resources):
        """The course policy with the graded student's hand-in times (``PolicyBook.of(course,
        student=...)``), read once per notebook: the steps of one notebook share ``resources`` and
        nothing they do changes the policy or the hand-in times. Raises PolicyFileError as
        ``PolicyBook.of`` does."""
        from grader.policy.course_policy import PolicyBook

        book = resources.get(POLICY_RESOURCE)
        if book is None:
            info = resources["nbgrader"]
            book = resources[POLICY_RESOURCE] = PolicyBook.of(
                Course(Path(self._course_root())), config=self.config, student=info["student"],
                db_url=info.get("db_url"))  # the gradebook nbgrader grades this notebook into
        return book
