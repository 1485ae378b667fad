"""What the course hub serves for the LTI tool (``.grader/lti/hub.json``), written by ``grader lti register``.

The hub cannot import the grader, so the grader writes what it needs:
``{"kid": <the tool key's id>, "jwks": <the tool's public JWKS>, "assignments": {name: points}}``.
The hub serves ``jwks`` at ``/hub/lti13/jwks`` (the tool's public key set URL) and answers a deep
linking request (LTI Deep Linking 2.0) with one content item per assignment: an ``ltiResourceLink``
with a ``lineItem`` whose label and ``resourceId`` are the assignment's name and ``scoreMaximum`` its
points, so the LMS makes the assignment's line item and the score passback finds it by its
``resourceId``.
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
from grader.state_folders import LTI_HUB_FILE


def assignment_points(course: Course) -> dict[str, float]:
    """Each assignment of the gradebook -> its points."""
    if course.sqlite_file is not None and not course.sqlite_file.exists():
        return {}
    with Gradebook(course.db_url) as gradebook:
        return {assignment.name: float(assignment.max_score) for assignment in gradebook.assignments}


def write_hub_file(course: Course) -> Path:
    """Write ``hub.json`` atomically (mode 0600); returns its path."""
    folder = lti_folder(course.state_dir)
    key = tool_key(course.state_dir)
    document = {"kid": key.kid, "jwks": key.jwks(), "assignments": assignment_points(course)}
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".hub-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=2, sort_keys=True)
    os.replace(temporary, folder / LTI_HUB_FILE)
    return folder / LTI_HUB_FILE
