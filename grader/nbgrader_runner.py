"""Run nbgrader's own converters in-process on a course folder, with the course's config file.

Each function returns nbgrader's captured result ({"success", "log", "error"}) instead of raising,
so a caller grading a class can record a failure against one student and carry on.
"""
from __future__ import annotations

from nbgrader.converters import Autograde, GenerateAssignment, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import capture_log
from traitlets.config.loader import PyFileConfigLoader

from grader.course import Course


def load_config(course: Course):
    """The traitlets config of the course's ``nbgrader_config.py``."""
    return PyFileConfigLoader("nbgrader_config.py", path=str(course.root)).load_config()


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


def autograde(course: Course, assignment: str, student: str) -> dict:
    """``nbgrader autograde <assignment> --student <student> --force`` (creates the student)."""
    config = load_config(course)
    app = Autograde(coursedir=_coursedir(course, config, assignment, student), config=config)
    app.force = True
    app.create_student = True
    return capture_log(app)


def generate_feedback(course: Course, assignment: str, student: str = "*") -> dict:
    """``nbgrader generate_feedback <assignment> --force``."""
    config = load_config(course)
    app = GenerateFeedback(coursedir=_coursedir(course, config, assignment, student), config=config)
    app.force = True
    return capture_log(app)
