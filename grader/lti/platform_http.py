"""The HTTP requests the tool makes to its platform, and how they fail.

A failure is either :class:`PlatformRefused` (the platform answered 4xx: it read the request and said
no; the reason is its answer) or :class:`PlatformUnreachable` (no answer, a timeout or a 5xx: nothing
is known to have happened). Both are kept and tried again by the passback journal.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from grader.settings import setting

#: Characters of a platform's error answer kept as the reason.
REASON_CHARS = 500


class PlatformError(Exception):
    """A request to the platform that did not succeed."""


class PlatformRefused(PlatformError):
    """The platform answered with a 4xx status; ``status`` is it."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class PlatformUnreachable(PlatformError):
    """No usable answer: the connection failed, timed out, or the platform answered 5xx."""


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes

    def json(self):
        return json.loads(self.body.decode("utf-8"))


#: Seconds one request may take when no course setting is given (``c.LmsPassback.request_timeout_seconds``).
DEFAULT_TIMEOUT: float = setting("LmsPassback", "request_timeout_seconds").default


def send(method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None,
         timeout: float = DEFAULT_TIMEOUT) -> Answer:
    """One request of at most ``timeout`` seconds; returns the 2xx answer, else raises
    :class:`PlatformRefused` or :class:`PlatformUnreachable`."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Answer(response.status, response.headers.get("Content-Type", ""), response.read())
    except urllib.error.HTTPError as exc:
        reason = exc.read()[:REASON_CHARS].decode("utf-8", errors="replace")
        text = f"{method} {url}: HTTP {exc.code} {reason}".strip()
        if 400 <= exc.code < 500:
            raise PlatformRefused(exc.code, text) from None
        raise PlatformUnreachable(text) from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        raise PlatformUnreachable(f"{method} {url}: {getattr(exc, 'reason', exc)}") from None


def send_json(method: str, url: str, document: dict, content_type: str, token: str, accept: str = "",
              timeout: float = DEFAULT_TIMEOUT) -> Answer:
    """A JSON body of ``content_type`` with a bearer token."""
    headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
    if accept:
        headers["Accept"] = accept
    return send(method, url, json.dumps(document).encode("utf-8"), headers, timeout)
