"""A request to the LMS that gets no answer gives up after ``c.LmsPassback.request_timeout_seconds``."""
from __future__ import annotations

import socket
import time

import pytest
from traitlets.config import Config

from grader.lti.access_token import TokenClient
from grader.lti.passback import LmsPassback
from grader.lti.platform_http import PlatformUnreachable
from grader.lti.registration import Platform
from grader.lti.tool_keys import tool_key
from grader.settings import setting


@pytest.fixture
def silent_platform():
    """A platform whose token endpoint accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    yield Platform(issuer=url, client_id="tool", deployment_id="d1", auth_login_url=f"{url}/auth",
                   token_url=f"{url}/token", jwks_url=f"{url}/jwks", lineitems_url=f"{url}/lineitems")
    listener.close()


def test_a_token_request_without_an_answer_is_unreachable_after_the_request_timeout(silent_platform, tmp_path):
    client = TokenClient(silent_platform, tool_key(tmp_path), request_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(PlatformUnreachable, match="timed out"):
        client.token(["scope"])
    assert time.monotonic() - started < setting("LmsPassback", "request_timeout_seconds").default


def test_the_request_timeout_is_a_course_setting():
    config = Config()
    config.LmsPassback.request_timeout_seconds = 3.0
    assert LmsPassback(config=config).request_timeout_seconds == 3.0
    assert LmsPassback().request_timeout_seconds == setting("LmsPassback", "request_timeout_seconds").default
