"""The base of the course's preprocessors that need the course folder and the graded submission.
"""
from __future__ import annotations

from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.course import Course


class CoursePreprocessor(NbGraderPreprocessor):
    """A preprocessor that needs the ``.grader`` folder of the course it is grading."""

    def _converter_coursedir(self) -> CourseDirectory | None:
        """The course directory of the converter running this preprocessor (exporter -> converter)."""
        return getattr(getattr(self.parent, "parent", None), "coursedir", None)

    def _converter_root(self) -> str | None:
        coursedir = self._converter_coursedir()
        return coursedir.root if coursedir is not None else None

    def _course_root(self) -> str:
        # standalone, nbgrader's own rule applies (CourseDirectory.root from config, else the cwd)
        return self._converter_root() or CourseDirectory(config=self.config).root

    def _coursedir(self) -> CourseDirectory:
        """The converter's course directory settings (folders, ignore patterns), else the config's."""
        coursedir = self._converter_coursedir()
        return coursedir if coursedir is not None else CourseDirectory(config=self.config, root=self._course_root())

    def state_dir(self) -> Path:
        return Course(Path(self._course_root())).state_dir
