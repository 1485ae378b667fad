"""What the course hub offers when an instructor links an assignment from the LMS (LTI Deep Linking 2.0).

The hub answers a deep linking request with one content item per assignment (an ``ltiResourceLink``
with a ``lineItem``: label and ``resourceId`` the assignment's name, ``scoreMaximum`` its points), so
the LMS makes the assignment's line item and the score passback finds it by its ``resourceId``. The
hub cannot import the grader: ``grader lti register`` writes what it needs into
``.grader/lti/deep_linking.json``: ``{"kid": <the tool key's id>, "assignments": {name: points}}``.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from nbgrader.api import Gradebook

from grader.course import Course
from grader.lti.registration import lti_folder
from grader.lti.tool_keys import tool_key
from grader.state_folders import LTI_DEEP_LINKING


def assignment_points(course: Course) -> dict[str, float]:
    """Each assignment of the gradebook -> its points."""
    if course.sqlite_file is not None and not course.sqlite_file.exists():
        return {}
    with Gradebook(course.db_url) as gradebook:
        return {assignment.name: float(assignment.max_score) for assignment in gradebook.assignments}


def write_deep_linking_file(course: Course) -> Path:
    """Write ``deep_linking.json`` atomically (mode 0600); returns its path."""
    folder = lti_folder(course.state_dir)
    document = {"kid": tool_key(course.state_dir).kid, "assignments": assignment_points(course)}
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".deep-linking-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=2, sort_keys=True)
    os.replace(temporary, folder / LTI_DEEP_LINKING)
    return folder / LTI_DEEP_LINKING
