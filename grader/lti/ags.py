"""Assignment and Grade Services 2.0: each assignment's line item, and scores posted to it.

An assignment's line item is found in the course context's line items container by its
``resourceId`` (the assignment's name), and created there when the platform has none yet. A score is
posted to ``<line item>/scores`` as ``application/vnd.ims.lis.v1.score+json``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlencode, urlsplit, urlunsplit

from grader.lti.access_token import TokenClient
from grader.lti.platform_http import PlatformUnreachable, send, send_json

LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
#: The tag of every line item the tool creates.
TAG = "grade"


@dataclass(frozen=True)
class Score:
    """One student's score on one line item.

    user_id: the student's LMS user id (the ``sub`` of their launches); score_given / score_maximum:
    points; graded_at: seconds since the epoch when the grading finished (the score's timestamp,
    the same on every retry, so a platform can tell a repeat from a newer score).
    """

    user_id: str
    score_given: float
    score_maximum: float
    graded_at: float

    def document(self) -> dict:
        moment = datetime.fromtimestamp(self.graded_at, tz=timezone.utc)
        return {"userId": self.user_id, "scoreGiven": self.score_given, "scoreMaximum": self.score_maximum,
                "activityProgress": "Completed", "gradingProgress": "FullyGraded",
                "timestamp": moment.isoformat(timespec="milliseconds")}


def scores_url(line_item_url: str) -> str:
    """``<line item>/scores``, keeping the line item URL's query."""
    parts = urlsplit(line_item_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def find_or_create_line_item(client: TokenClient, lineitems_url: str, assignment: str, max_score: float) -> str:
    """The URL of ``assignment``'s line item in the container ``lineitems_url``, created when missing."""
    token = client.token([LINEITEM_SCOPE])
    parts = urlsplit(lineitems_url)
    query = "&".join(q for q in (parts.query, urlencode({"resource_id": assignment})) if q)
    answer = send("GET", urlunsplit(parts._replace(query=query)),
                  headers={"Accept": LINEITEM_CONTAINER_TYPE, "Authorization": f"Bearer {token}"},
                  timeout=client.request_timeout)
    try:
        items = answer.json()
    except ValueError:
        raise PlatformUnreachable(f"the line items of {lineitems_url} are not JSON: {answer.body[:200]!r}") from None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("resourceId") == assignment and item.get("id"):
            return str(item["id"])
    created = send_json("POST", lineitems_url, {"label": assignment, "resourceId": assignment, "tag": TAG,
                                                "scoreMaximum": max_score},
                        LINEITEM_TYPE, token, accept=LINEITEM_TYPE, timeout=client.request_timeout)
    try:
        return str(created.json()["id"])
    except (ValueError, KeyError, TypeError):
        raise PlatformUnreachable(f"the platform created a line item without an id: {created.body[:200]!r}") from None


def post_score(client: TokenClient, line_item_url: str, score: Score) -> None:
    """Post one score; raises :class:`grader.lti.platform_http.PlatformError` when it was not taken."""
    send_json("POST", scores_url(line_item_url), score.document(), SCORE_TYPE, client.token([SCORE_SCOPE]),
              timeout=client.request_timeout)
