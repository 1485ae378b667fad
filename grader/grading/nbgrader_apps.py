"""Run nbgrader's own converters in-process on a course folder, with the course's config file.

Each function returns nbgrader's captured result ({"success", "log", "error"}) instead of raising,
so a caller grading a class can record a failure against one student and carry on.
"""
from __future__ import annotations

from nbgrader.converters import GenerateAssignment, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import capture_log

from grader.course import Course, load_config


def _coursedir(course: Course, config, assignment: str, student: str = "*") -> CourseDirectory:
    coursedir = CourseDirectory(config=config)
    coursedir.root = str(course.root)
    coursedir.assignment_id = assignment
    coursedir.student_id = student
    return coursedir


def generate_assignment(course: Course, assignment: str) -> dict:
    """``nbgrader generate_assignment <assignment> --force`` (registers it in the gradebook)."""
    config = load_config(course)
    app = GenerateAssignment(coursedir=_coursedir(course, config, assignment), config=config)
    app.force = True
    app.create_assignment = True
    return capture_log(app)


def generate_feedback(course: Course, assignment: str, student: str = "*") -> dict:
    """``nbgrader generate_feedback <assignment> --force``."""
    config = load_config(course)
    app = GenerateFeedback(coursedir=_coursedir(course, config, assignment, student), config=config)
    app.force = True
    return capture_log(app)


class _WarmGenerateFeedback(GenerateFeedback):
    """``GenerateFeedback`` that builds its writer and exporter (nbconvert's compiled templates,
    the registered preprocessors) on its first run and reuses them on every later one."""

    _built = False

    def build(self) -> None:
        """Make the writer and the exporter, and compile the exporter's template (once)."""
        from nbconvert.writers import FilesWriter

        if self._built:
            return
        self.writer = FilesWriter(parent=self, config=self.config)
        self.exporter = self.exporter_class(parent=self, config=self.config)
        for preprocessor in self.preprocessors:
            self.exporter.register_preprocessor(preprocessor)
        self.exporter.template  # noqa: B018 - loads and compiles the page template now
        self._built = True

    def start(self) -> None:
        import os

        self.init_notebooks()
        self.build()
        here = os.getcwd()
        os.chdir(self.coursedir.root)
        try:
            self.convert_notebooks()
        finally:
            os.chdir(here)


_warm_feedback: dict[str, tuple[float, _WarmGenerateFeedback]] = {}


def warm_feedback_app(course: Course, assignment: str = "", student: str = "*") -> _WarmGenerateFeedback:
    """This process's feedback app of ``course`` (built again when its config file changed)."""
    path = course.root / "nbgrader_config.py"
    mtime = path.stat().st_mtime
    cached = _warm_feedback.get(str(course.root))
    if cached is None or cached[0] != mtime:
        config = load_config(course)
        app = _WarmGenerateFeedback(coursedir=_coursedir(course, config, assignment, student),
                                    config=config)
        app.force = True
        cached = _warm_feedback[str(course.root)] = (mtime, app)
    return cached[1]


def generate_feedback_warm(course: Course, assignment: str, student: str) -> dict:
    """``generate_feedback`` of one student through an app kept in this process.

    The same page as :func:`generate_feedback` (same config, exporter and preprocessors), without
    compiling the templates again for every page: a grading worker writes many. The app is built
    again when the course's ``nbgrader_config.py`` changed.
    """
    app = warm_feedback_app(course)
    app.coursedir.assignment_id = assignment
    app.coursedir.student_id = student
    return capture_log(app)
