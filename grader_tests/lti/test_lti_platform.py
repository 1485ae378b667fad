"""The local LTI 1.3 platform validates what the tool sends: keys, assertions, tokens and scopes.

These tests speak to the platform over HTTP with the tool's own client (grader.lti), so that the
end-to-end passback tests prove something: a platform that took anything would pass them too.
"""
from __future__ import annotations

import time

import jwt
import pytest
from lti_platform import LINEITEM_SCOPE, SCORE_SCOPE, LtiPlatform

from grader.lti.access_token import TokenClient, client_assertion
from grader.lti.ags import Score, find_or_create_line_item, post_score
from grader.lti.platform_http import PlatformRefused, send
from grader.lti.registration import Platform
from grader.lti.tool_keys import tool_key


@pytest.fixture
def platform():
    with LtiPlatform() as running:
        yield running


def registration_of(platform: LtiPlatform, client_id: str = "grader-tool") -> Platform:
    return Platform(platform.issuer, client_id, "deployment-1", platform.auth_url, platform.token_url,
                    platform.jwks_url, platform.lineitems_url)


def key_in(folder):
    """A tool key of its own, kept in ``folder`` (a state folder)."""
    folder.mkdir()
    return tool_key(folder)


@pytest.fixture
def tool(platform, tmp_path):
    key = tool_key(tmp_path)
    platform.register_tool(key.jwks())
    return TokenClient(registration_of(platform), key)


def test_a_token_is_issued_for_an_assertion_signed_by_the_registered_key(tool):
    token = tool.token([SCORE_SCOPE])
    assert jwt.decode(token, options={"verify_signature": False})["scope"] == SCORE_SCOPE


def test_an_assertion_signed_by_another_key_gets_no_token(platform, tmp_path):
    platform.register_tool(key_in(tmp_path / "registered").jwks())
    impostor = TokenClient(registration_of(platform), key_in(tmp_path / "impostor"))
    with pytest.raises(PlatformRefused) as refused:
        impostor.token([SCORE_SCOPE])
    assert refused.value.status == 401 and "invalid_client" in str(refused.value)


def test_a_client_assertion_cannot_be_used_twice(platform, tmp_path):
    key = tool_key(tmp_path)
    platform.register_tool(key.jwks())
    assertion = client_assertion(registration_of(platform), key, time.time())
    form = (f"grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-"
            f"type%3Ajwt-bearer&scope={SCORE_SCOPE}&client_assertion={assertion}").encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    send("POST", platform.token_url, form, headers)
    with pytest.raises(PlatformRefused, match="already used"):
        send("POST", platform.token_url, form, headers)


def test_an_expired_client_assertion_gets_no_token(platform, tmp_path):
    key = tool_key(tmp_path)
    platform.register_tool(key.jwks())
    stale = TokenClient(registration_of(platform), key, clock=lambda: time.time() - 3600)
    with pytest.raises(PlatformRefused, match="expired"):
        stale.token([SCORE_SCOPE])


def test_a_score_post_with_a_token_without_the_score_scope_is_refused(platform, tmp_path):
    key = tool_key(tmp_path)
    platform.register_tool(key.jwks(), scopes={LINEITEM_SCOPE})
    platform.enrol("lms-user-1")
    client = TokenClient(registration_of(platform), key)
    line_item = find_or_create_line_item(client, platform.lineitems_url, "01_variance", 10.0)
    with pytest.raises(PlatformRefused, match="granted"):
        post_score(client, line_item, Score("lms-user-1", 5.0, 10.0, time.time()))
    token = client.token([LINEITEM_SCOPE])  # a real token of the platform, with another scope
    with pytest.raises(PlatformRefused) as refused:
        send("POST", line_item + "/scores", b"{}", {"Content-Type": "application/vnd.ims.lis.v1.score+json",
                                                      "Authorization": f"Bearer {token}"})
    assert refused.value.status == 403
    assert platform.scores("01_variance") == []


def test_a_score_post_with_a_token_the_platform_did_not_sign_is_refused(platform, tool, tmp_path):
    platform.enrol("lms-user-1")
    line_item = find_or_create_line_item(tool, platform.lineitems_url, "01_variance", 10.0)
    real = jwt.decode(tool.token([SCORE_SCOPE]), options={"verify_signature": False})
    forged = jwt.encode(real, key_in(tmp_path / "forger").private_pem, algorithm="RS256")
    with pytest.raises(PlatformRefused) as refused:
        send("POST", line_item + "/scores", b"{}", {"Content-Type": "application/vnd.ims.lis.v1.score+json",
                                                      "Authorization": f"Bearer {forged}"})
    assert refused.value.status == 401
    assert platform.scores("01_variance") == []


def test_a_score_for_a_user_outside_the_course_is_refused(platform, tool):
    line_item = find_or_create_line_item(tool, platform.lineitems_url, "01_variance", 10.0)
    with pytest.raises(PlatformRefused) as refused:
        post_score(tool, line_item, Score("stranger", 5.0, 10.0, time.time()))
    assert refused.value.status == 422


def test_a_valid_score_reaches_the_line_item_of_its_assignment(platform, tool):
    platform.enrol("lms-user-1")
    line_item = find_or_create_line_item(tool, platform.lineitems_url, "01_variance", 10.0)
    post_score(tool, line_item, Score("lms-user-1", 7.5, 10.0, time.time()))
    assert platform.gradebook("01_variance") == {"lms-user-1": 7.5}
    assert find_or_create_line_item(tool, platform.lineitems_url, "01_variance", 10.0) == line_item
