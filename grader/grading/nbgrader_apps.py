"""Run nbgrader's own converters in-process on a course folder, with the course's config file.

Each function returns nbgrader's captured result ({"success", "log", "error"}) instead of raising,
so a caller grading a class can record a failure against one student and carry on.
"""
from __future__ import annotations

import os
import threading

from nbgrader.converters import GenerateAssignment, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import GetGrades
from nbgrader.utils import capture_log, find_all_files

from grader.course import Course, load_config
from grader.sandbox.workdir_quota import copy_sparse
from grader.settings import traits_of


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


class PagesOnlyFeedback(GenerateFeedback):
    """``GenerateFeedback`` whose feedback folders hold the pages only: the files of the graded
    working folder (the submission's, and whatever its notebook wrote) are not copied beside them
    unless the course sets ``c.GenerateFeedback.copy_working_files``; then they are copied as
    nbgrader copies them, but with holes kept as holes."""

    locals().update(traits_of("GenerateFeedback"))  # copy_working_files (grader.settings)

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        dest = self._format_dest(assignment_id, student_id)
        # nbgrader removed an earlier feedback folder of this student before this step; its own
        # copy of the working folder made it again, and the page is written into it
        os.makedirs(dest, exist_ok=True)
        if not self.copy_working_files:
            return
        source = self._format_source(assignment_id, student_id)
        for filename in find_all_files(source, self.coursedir.ignore + ["*.ipynb"]):
            path = os.path.join(dest, os.path.relpath(filename, source))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if os.path.lexists(path):
                os.unlink(path)
            with open(filename, "rb") as original, open(path, "xb") as copy:
                copy_sparse(original.fileno(), copy.fileno())


def generate_feedback(course: Course, assignment: str, student: str = "*") -> dict:
    """``nbgrader generate_feedback <assignment> --force``, with :class:`PagesOnlyFeedback`."""
    config = load_config(course)
    app = PagesOnlyFeedback(coursedir=_coursedir(course, config, assignment, student), config=config)
    app.force = True
    return capture_log(app)


class _WarmGenerateFeedback(PagesOnlyFeedback):
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
        self._steps = [step(parent=self.exporter) if isinstance(step, type) else step
                       for step in self.preprocessors]
        for step in self._steps:
            self.exporter.register_preprocessor(step)
        self.exporter.template  # noqa: B018 - loads and compiles the page template now
        self._built = True

    def rehearse(self, course: Course) -> int:
        """Render the page of every released notebook of ``course`` in memory, as a student's
        page is rendered but without a score (nothing is read from the gradebook or written):
        the templates the page template includes are compiled, the page's style sheet parsed,
        and the code every page shows (the given code, the visible tests) highlighted and kept
        (``grader.pages.exporter.RememberingHighlight``). A worker's first page then costs what
        every later one does. Returns the number of pages rendered."""
        import nbformat

        self.build()
        reading = [step for step in self._steps if isinstance(step, GetGrades)]
        rendered = 0
        with _one_page_at_a_time:
            enabled = [step.enabled for step in reading]
            for step in reading:
                step.enabled = False
            try:
                for assignment in course.assignments():
                    path = course.release_notebook(assignment)
                    if not path.is_file():
                        continue
                    notebook = nbformat.read(path, as_version=4)
                    for cell in notebook.cells:  # what GetGrades would write: no score, no comment
                        cell.metadata.get("nbgrader", {}).update(score=0.0, comment=None)
                    self.exporter.from_notebook_node(notebook, {"nbgrader": {
                        "notebook": path.stem, "assignment": assignment, "student": "", "score": 0.0,
                        "max_score": 0.0, "late_penalty": 0.0}})
                    rendered += 1
            finally:
                for step, was in zip(reading, enabled):
                    step.enabled = was
        return rendered

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
# A rehearsal switches the app's gradebook step off while it renders; a page must not run then.
_one_page_at_a_time = threading.Lock()


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
    with _one_page_at_a_time:
        app.coursedir.assignment_id = assignment
        app.coursedir.student_id = student
        return capture_log(app)
