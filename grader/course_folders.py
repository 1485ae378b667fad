"""The names of a course folder's nbgrader folders (nbgrader's ``CourseDirectory`` defaults), named once.

A module of constants only, with no imports, so that the sandbox's launcher side can use them as
cheaply as ``grader.course`` does.
"""
from __future__ import annotations

SOURCE = "source"          # the instructor's source notebooks (model answers)
RELEASE = "release"        # the student versions nbgrader generates
SUBMITTED = "submitted"    # submitted/<student>/<assignment>/: hand-ins as collected
AUTOGRADED = "autograded"  # autograded/<student>/<assignment>/: where nbgrader grades them
FEEDBACK = "feedback"      # feedback/<student>/<assignment>/: the pages nbgrader generates
LOCALES = "locales"        # locales/<language>/LC_MESSAGES/notebooks.po: the notebooks' prose, translated
CHECKS_FILE = "checks.py"  # source/<assignment>/checks.py: its hidden checks, loaded by the grading process only
