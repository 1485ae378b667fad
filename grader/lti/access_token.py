"""OAuth 2 client credentials for LTI Advantage services (IMS Security Framework 1.0 §4.1).

The tool asks the platform's token endpoint for an access token with a JWT client assertion
(RFC 7523) signed by its own key: ``iss`` and ``sub`` are its client id, ``aud`` the token endpoint,
``jti`` a fresh random id, valid for :data:`ASSERTION_SECONDS`. Tokens are kept until shortly before
they expire, one per set of scopes.
"""
from __future__ import annotations

import secrets
import time
from urllib.parse import urlencode

import jwt

from grader.lti.platform_http import DEFAULT_TIMEOUT, PlatformRefused, PlatformUnreachable, send
from grader.lti.registration import Platform
from grader.lti.tool_keys import ALGORITHM, ToolKey

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: Seconds a client assertion is valid.
ASSERTION_SECONDS = 300
#: A token is asked for again this many seconds before it expires.
EXPIRY_MARGIN = 30


def client_assertion(platform: Platform, key: ToolKey, now: float) -> str:
    """The signed JWT that authenticates the tool at the token endpoint."""
    claims = {"iss": platform.client_id, "sub": platform.client_id, "aud": platform.token_audience,
              "iat": int(now), "exp": int(now) + ASSERTION_SECONDS, "jti": secrets.token_urlsafe(24)}
    return jwt.encode(claims, key.private_pem, algorithm=ALGORITHM, headers={"kid": key.kid})


class TokenClient:
    """Access tokens of one platform registration; ``clock`` gives seconds since the epoch, and every
    request to the platform made for this registration (the token's and the services') may take at
    most ``request_timeout`` seconds."""

    def __init__(self, platform: Platform, key: ToolKey, clock=time.time, request_timeout: float = DEFAULT_TIMEOUT):
        self.platform = platform
        self.key = key
        self.clock = clock
        self.request_timeout = request_timeout
        self._tokens: dict[tuple[str, ...], tuple[str, float]] = {}  # scopes -> (token, expires at)

    def token(self, scopes: list[str]) -> str:
        """A bearer token granting ``scopes``; raises :class:`PlatformRefused` or :class:`PlatformUnreachable`."""
        wanted = tuple(sorted(scopes))
        now = self.clock()
        cached = self._tokens.get(wanted)
        if cached and cached[1] - EXPIRY_MARGIN > now:
            return cached[0]
        form = {"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": client_assertion(self.platform, self.key, now), "scope": " ".join(wanted)}
        answer = send("POST", self.platform.token_url, urlencode(form).encode("ascii"),
                      {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
                      self.request_timeout)
        try:
            document = answer.json()
            token, lifetime = document["access_token"], float(document.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise PlatformUnreachable(f"the token endpoint {self.platform.token_url} answered without an "
                                      f"access_token: {answer.body[:200]!r}") from None
        granted = set(str(document.get("scope", " ".join(wanted))).split())
        if not set(wanted) <= granted:
            raise PlatformRefused(403, f"the platform granted the scopes {sorted(granted)}, not "
                                       f"{sorted(set(wanted) - granted)}; enable them in the tool's registration")
        self._tokens[wanted] = (token, now + lifetime)
        return token

    def forget_all(self) -> None:
        """Drop every token (the platform no longer accepts one)."""
        self._tokens.clear()
