"""A small LTI 1.3 platform for the tests, built on the IMS specifications and nothing of the tool's.

It runs a real HTTP server on 127.0.0.1 (a thread of the test process) and serves:

- ``/.well-known/jwks.json``: its own public RSA key (it signs its access tokens with it);
- ``/auth``: the OIDC authorization endpoint of LTI 1.3 launches (implicit flow, ``form_post``): it
  checks the request (``openid`` scope, ``id_token`` response type, a registered client id and
  redirect URI, a nonce, a login hint naming a member of the course) and answers with the page a
  browser submits to the tool: a signed ``id_token`` (a resource link launch) and the tool's state;
- ``/deep_links``: the return URL of deep linking (LTI Deep Linking 2.0): it takes a response JWT
  signed by the tool's registered key (issuer the client id, audience the platform, a nonce, the
  deployment, the ``data`` it sent) and makes a resource link and the line item of each
  ``ltiResourceLink`` content item;
- ``/token``: OAuth 2 client credentials (IMS Security Framework 1.0 §4.1). It accepts only a JWT
  client assertion (RFC 7523) signed by the key the tool registered, with ``iss`` and ``sub`` equal to
  the client id, ``aud`` its token URL, an ``exp`` in the future and a ``jti`` never seen before, and
  issues a signed access token (JWT) holding only the scopes asked for that the tool may have;
- ``/contexts/<context>/lineitems`` and ``.../lineitems/<n>``: AGS 2.0 line items (GET with
  ``resource_id``; POST of ``application/vnd.ims.lis.v2.lineitem+json``), with the ``lineitem`` scope;
- ``.../lineitems/<n>/scores``: POST of ``application/vnd.ims.lis.v1.score+json`` with the ``score``
  scope, for enrolled users only; every score taken is kept (:meth:`LtiPlatform.scores`).

Every bearer token is checked (its signature by this platform's key, expiry, issuer, audience and
scope) before anything else is read. Answers are JSON ``{"error": ..., "error_description": ...}``.
"""
from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM_SCOPE, SCORE_SCOPE = AGS + "lineitem", AGS + "score"
RESULT_SCOPE, LINEITEM_READ_SCOPE = AGS + "result.readonly", AGS + "lineitem.readonly"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
TOKEN_SECONDS = 3600
CONTEXT = "course-1"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
ID_TOKEN_SECONDS = 300


class Refusal(Exception):
    def __init__(self, status: int, error: str, description: str):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description


@dataclass
class ToolRegistration:
    client_id: str
    deployment_id: str
    jwks: dict
    redirect_uris: list[str] = field(default_factory=list)
    scopes: set[str] = field(default_factory=lambda: {LINEITEM_SCOPE, SCORE_SCOPE, RESULT_SCOPE,
                                                      LINEITEM_READ_SCOPE})


@dataclass(frozen=True)
class Launch:
    """What a login initiation the platform sent is for (its lti_message_hint names it)."""

    target_link_uri: str
    deep_linking: bool


@dataclass
class LineItem:
    id: str
    label: str
    score_maximum: float
    resource_id: str = ""
    tag: str = ""
    scores: list[dict] = field(default_factory=list)  # every score taken, in order

    def document(self) -> dict:
        return {"id": self.id, "label": self.label, "scoreMaximum": self.score_maximum,
                "resourceId": self.resource_id, "tag": self.tag}


class LtiPlatform:
    """The platform; ``with LtiPlatform() as platform:`` serves it until the block ends."""

    def __init__(self):
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = secrets.token_hex(8)
        self.tools: dict[str, ToolRegistration] = {}
        self.members: set[str] = set()
        self.line_items: list[LineItem] = []
        self.seen_jti: set[str] = set()
        self.instructors: set[str] = set()
        self.launches: dict[str, Launch] = {}  # lti_message_hint -> the launch it started
        self.deep_link_data: set[str] = set()  # the data of every deep linking request sent
        self.resource_links: list[dict] = []  # made by deep linking: title, url, line item id
        self.refused: list[tuple[str, int, str]] = []  # (path, status, error) of every refused request
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # ---- addresses -------------------------------------------------------------------------------
    issuer = property(lambda self: self.url)
    token_url = property(lambda self: self.url + "/token")
    jwks_url = property(lambda self: self.url + "/.well-known/jwks.json")
    auth_url = property(lambda self: self.url + "/auth")
    lineitems_url = property(lambda self: f"{self.url}/contexts/{CONTEXT}/lineitems")

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    # ---- what the platform's administrator does ----------------------------------------------------
    def register_tool(self, jwks: dict, client_id: str = "grader-tool", deployment_id: str = "deployment-1",
                      scopes: set[str] | None = None, redirect_uris: list[str] = ()) -> ToolRegistration:
        tool = ToolRegistration(client_id, deployment_id, jwks, list(redirect_uris))
        if scopes is not None:
            tool.scopes = set(scopes)
        self.tools[client_id] = tool
        return tool

    def enrol(self, user: str) -> None:
        self.members.add(user)

    def enrol_instructor(self, user: str) -> None:
        self.members.add(user)
        self.instructors.add(user)

    def launch_address(self, tool_login_url: str, user: str, target_link_uri: str,
                       client_id: str = "grader-tool", deep_linking: bool = False) -> str:
        """Where the LMS sends a user who opens the tool (or, with ``deep_linking``, an instructor who
        adds it to the course): the tool's login initiation URL (LTI 1.3 §4.1)."""
        tool = self.tools[client_id]
        hint = secrets.token_urlsafe(12)  # the platform's own note of what this launch is
        self.launches[hint] = Launch(target_link_uri, deep_linking)
        return tool_login_url + "?" + urlencode({
            "iss": self.issuer, "login_hint": user, "target_link_uri": target_link_uri, "lti_message_hint": hint,
            "client_id": client_id, "lti_deployment_id": tool.deployment_id})

    def authorize(self, query: dict[str, str]) -> tuple[str, dict[str, str]]:
        """An authentication request of a launch -> (the tool's redirect URI, the form to post there)."""
        tool = self.tools.get(query.get("client_id", ""))
        if tool is None:
            raise Refusal(400, "unauthorized_client", "no tool is registered with this client_id")
        if query.get("redirect_uri") not in tool.redirect_uris:
            raise Refusal(400, "invalid_request", "redirect_uri is not one the tool registered")
        expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none"}
        for name, value in expected.items():
            if query.get(name) != value:
                raise Refusal(400, "invalid_request", f"{name} must be {value}")
        if not query.get("nonce") or not query.get("state"):
            raise Refusal(400, "invalid_request", "nonce and state are required")
        launch = self.launches.get(query.get("lti_message_hint", ""))
        if launch is None:
            raise Refusal(400, "invalid_request", "lti_message_hint names no launch of this platform")
        user = query.get("login_hint", "")
        if user not in self.members:
            raise Refusal(403, "login_required", "the login hint names no member of the course")
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": tool.client_id, "azp": tool.client_id, "sub": user, "iat": now,
                  "exp": now + ID_TOKEN_SECONDS,
                  "nonce": query["nonce"], "name": f"User {user}", LTI + "version": "1.3.0",
                  LTI + "deployment_id": tool.deployment_id, LTI + "target_link_uri": launch.target_link_uri,
                  LTI + "roles": [INSTRUCTOR if user in self.instructors else LEARNER],
                  LTI + "context": {"id": CONTEXT, "label": "SAL", "title": "Scaled Attention Lab"},
                  LTI + "tool_platform": {"guid": "local-platform", "name": "Local LTI platform",
                                          "product_family_code": "grader-tests", "version": "1"},
                  LTI + "launch_presentation": {"document_target": "window", "return_url": self.url + "/return"},
                  "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                      "scope": sorted(tool.scopes & {LINEITEM_SCOPE, SCORE_SCOPE}), "lineitems": self.lineitems_url}}
        if launch.deep_linking:
            data = secrets.token_urlsafe(12)
            self.deep_link_data.add(data)
            claims[LTI + "message_type"] = "LtiDeepLinkingRequest"
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": self.url + "/deep_links", "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["window", "iframe"], "accept_multiple": False,
                "data": data}
        else:
            claims[LTI + "message_type"] = "LtiResourceLinkRequest"
            claims[LTI + "resource_link"] = {"id": "assignment-link-1"}
        token = jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid})
        return query["redirect_uri"], {"id_token": token, "state": query["state"]}

    def take_deep_links(self, response: str) -> list[LineItem]:
        """A deep linking response (a JWT the tool signed) -> the line items it made."""
        try:
            unverified = jwt.decode(response, options={"verify_signature": False})
            header = jwt.get_unverified_header(response)
        except jwt.PyJWTError as exc:
            raise Refusal(400, "invalid_request", f"unreadable deep linking response: {exc}") from None
        tool = self.tools.get(str(unverified.get("iss")))
        keys = {k.get("kid"): k for k in tool.jwks.get("keys", [])} if tool else {}
        if tool is None or header.get("kid") not in keys:
            raise Refusal(401, "invalid_client", "the response is not signed by a registered tool's key")
        try:
            claims = jwt.decode(response, RSAAlgorithm.from_jwk(json.dumps(keys[header["kid"]])), algorithms=["RS256"],
                                audience=self.issuer, issuer=tool.client_id,
                                options={"require": ["iss", "aud", "exp", "iat", "nonce"]})
        except jwt.PyJWTError as exc:
            raise Refusal(401, "invalid_client", f"deep linking response refused: {exc}") from None
        expected = {LTI + "message_type": "LtiDeepLinkingResponse", LTI + "version": "1.3.0",
                    LTI + "deployment_id": tool.deployment_id}
        for name, value in expected.items():
            if claims.get(name) != value:
                raise Refusal(400, "invalid_request", f"{name} must be {value}")
        with self.lock:
            if claims.get(DL + "data") not in self.deep_link_data:
                raise Refusal(400, "invalid_request", "the response's data answers no deep linking request")
            self.deep_link_data.discard(claims[DL + "data"])
        made = []
        for item in claims.get(DL + "content_items") or []:
            if item.get("type") != "ltiResourceLink":
                raise Refusal(400, "invalid_request", "only ltiResourceLink content items are accepted")
            line_item = self.add_line_item(item["lineItem"]) if item.get("lineItem") else None
            self.resource_links.append({"title": item.get("title"), "url": item.get("url"),
                                        "line_item": line_item.id if line_item else None})
            made += [line_item] if line_item else []
        return made

    def public_jwks(self) -> dict:
        jwk = RSAAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        return {"keys": [{**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}]}

    def scores(self, resource_id: str) -> list[dict]:
        """Every score taken for the line item of ``resource_id``, in order."""
        return [s for item in self.line_items if item.resource_id == resource_id for s in item.scores]

    def gradebook(self, resource_id: str) -> dict[str, float]:
        """user -> the latest score given on that line item (what the LMS's gradebook shows)."""
        return {s["userId"]: s["scoreGiven"] for s in self.scores(resource_id)}

    # ---- the token endpoint ----------------------------------------------------------------------
    def issue_token(self, form: dict[str, str]) -> dict:
        if form.get("grant_type") != "client_credentials":
            raise Refusal(400, "unsupported_grant_type", "grant_type must be client_credentials")
        if form.get("client_assertion_type") != ASSERTION_TYPE:
            raise Refusal(400, "invalid_request", "client_assertion_type must be jwt-bearer (RFC 7523)")
        assertion = form.get("client_assertion", "")
        try:
            unverified = jwt.decode(assertion, options={"verify_signature": False})
            header = jwt.get_unverified_header(assertion)
        except jwt.PyJWTError as exc:
            raise Refusal(401, "invalid_client", f"unreadable client assertion: {exc}") from None
        tool = self.tools.get(str(unverified.get("iss")))
        if tool is None:
            raise Refusal(401, "invalid_client", "no tool is registered with this client id")
        keys = {k.get("kid"): k for k in tool.jwks.get("keys", [])}
        if header.get("kid") not in keys or header.get("alg") != "RS256":
            raise Refusal(401, "invalid_client", "the assertion is not signed with a registered key (kid, RS256)")
        public = RSAAlgorithm.from_jwk(json.dumps(keys[header["kid"]]))
        try:
            claims = jwt.decode(assertion, public, algorithms=["RS256"], audience=self.token_url,
                                issuer=tool.client_id, options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
        except jwt.PyJWTError as exc:
            raise Refusal(401, "invalid_client", f"client assertion refused: {exc}") from None
        if claims["sub"] != tool.client_id:
            raise Refusal(401, "invalid_client", "sub must be the client id")
        with self.lock:
            if claims["jti"] in self.seen_jti:
                raise Refusal(401, "invalid_client", "this client assertion (jti) was already used")
            self.seen_jti.add(claims["jti"])
        asked = set(form.get("scope", "").split())
        granted = asked & tool.scopes
        if not granted:
            raise Refusal(400, "invalid_scope", f"none of the scopes {sorted(asked)} is granted to this tool")
        now = int(time.time())
        token = jwt.encode({"iss": self.issuer, "aud": self.token_url, "sub": tool.client_id, "iat": now,
                            "exp": now + TOKEN_SECONDS, "scope": " ".join(sorted(granted))},
                           self._key, algorithm="RS256", headers={"kid": self.kid})
        return {"access_token": token, "token_type": "Bearer", "expires_in": TOKEN_SECONDS,
                "scope": " ".join(sorted(granted))}

    def check_token(self, authorization: str, scopes: set[str]) -> dict:
        """The claims of a valid bearer token holding one of ``scopes``; else a 401 or 403 refusal."""
        kind, _, token = authorization.partition(" ")
        if kind.lower() != "bearer" or not token:
            raise Refusal(401, "invalid_token", "an Authorization: Bearer token is required")
        try:
            claims = jwt.decode(token, self._key.public_key(), algorithms=["RS256"], audience=self.token_url,
                                issuer=self.issuer, options={"require": ["exp", "scope", "sub"]})
        except jwt.PyJWTError as exc:
            raise Refusal(401, "invalid_token", f"access token refused: {exc}") from None
        if not scopes & set(claims["scope"].split()):
            raise Refusal(403, "insufficient_scope", f"this needs one of the scopes {sorted(scopes)}")
        return claims

    # ---- AGS -------------------------------------------------------------------------------------
    def line_item(self, number: str) -> LineItem:
        for item in self.line_items:
            if item.id.rsplit("/", 1)[-1] == number:
                return item
        raise Refusal(404, "not_found", f"no line item {number}")

    def add_line_item(self, document: dict) -> LineItem:
        maximum = document.get("scoreMaximum")
        if not isinstance(document.get("label"), str) or not document["label"].strip():
            raise Refusal(400, "invalid_request", "a line item needs a label")
        if not isinstance(maximum, (int, float)) or isinstance(maximum, bool) or maximum <= 0:
            raise Refusal(400, "invalid_request", "scoreMaximum must be a number above 0")
        with self.lock:
            item = LineItem(f"{self.lineitems_url}/{len(self.line_items) + 1}", document["label"], float(maximum),
                            str(document.get("resourceId", "")), str(document.get("tag", "")))
            self.line_items.append(item)
        return item

    def take_score(self, item: LineItem, score: dict) -> None:
        user = score.get("userId")
        if not isinstance(user, str) or not user:
            raise Refusal(400, "invalid_request", "userId is required")
        if user not in self.members:
            raise Refusal(422, "invalid_request", f"user {user} is not a member of the course")
        if score.get("activityProgress") not in ACTIVITY or score.get("gradingProgress") not in GRADING:
            raise Refusal(400, "invalid_request", "activityProgress and gradingProgress must be AGS values")
        given, maximum = score.get("scoreGiven"), score.get("scoreMaximum")
        if given is not None:
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (given, maximum)) \
                    or given < 0 or maximum <= 0:
                raise Refusal(400, "invalid_request", "scoreGiven needs scoreMaximum > 0, both numbers, given >= 0")
        try:
            moment = datetime.fromisoformat(str(score.get("timestamp")))
        except ValueError:
            raise Refusal(400, "invalid_request", "timestamp must be ISO 8601") from None
        if moment.tzinfo is None:
            raise Refusal(400, "invalid_request", "timestamp must carry its time zone")
        with self.lock:
            item.scores.append(score)


def _handler(platform: LtiPlatform):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def _answer(self, status: int, document: dict | list | None, content_type: str = "application/json"):
            body = b"" if document is None else json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _json(self, content_type: str) -> dict:
            if self.headers.get("Content-Type", "").split(";")[0].strip() != content_type:
                raise Refusal(415, "invalid_request", f"the body must be {content_type}")
            try:
                document = json.loads(self._body())
            except ValueError:
                raise Refusal(400, "invalid_request", "the body is not JSON") from None
            if not isinstance(document, dict):
                raise Refusal(400, "invalid_request", "the body must be a JSON object")
            return document

        def _serve(self, method: str) -> None:
            path = urlsplit(self.path)
            try:
                self._route(method, path.path, parse_qs(path.query))
            except Refusal as refusal:
                platform.refused.append((path.path, refusal.status, refusal.error))
                self._answer(refusal.status, {"error": refusal.error, "error_description": refusal.description})

        def _route(self, method: str, path: str, query: dict) -> None:
            auth = self.headers.get("Authorization", "")
            prefix = f"/contexts/{CONTEXT}/lineitems"
            if method == "GET" and path == "/.well-known/jwks.json":
                return self._answer(200, platform.public_jwks())
            if path == "/auth":
                fields = {k: v[0] for k, v in query.items()}
                if method == "POST":
                    fields.update({k: v[0] for k, v in parse_qs(self._body().decode()).items()})
                target, form = platform.authorize(fields)
                inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                                 for k, v in form.items())
                page = (f'<!doctype html><form id="launch" method="post" action="{html.escape(target)}">{inputs}'
                        '</form><script>document.getElementById("launch").submit()</script>')
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return None
            if method == "POST" and path == "/deep_links":
                form = {k: v[0] for k, v in parse_qs(self._body().decode()).items()}
                made = platform.take_deep_links(form.get("JWT", ""))
                return self._answer(200, {"line_items": [item.document() for item in made]})
            if method == "POST" and path == "/token":
                if self.headers.get("Content-Type", "").split(";")[0] != "application/x-www-form-urlencoded":
                    raise Refusal(400, "invalid_request", "the token request must be form-encoded")
                form = {k: v[0] for k, v in parse_qs(self._body().decode()).items()}
                return self._answer(200, platform.issue_token(form))
            if path == prefix:
                if method == "GET":
                    platform.check_token(auth, {LINEITEM_SCOPE, LINEITEM_READ_SCOPE})
                    wanted = query.get("resource_id", [None])[0]
                    items = [i.document() for i in platform.line_items if wanted in (None, i.resource_id)]
                    return self._answer(200, items, CONTAINER_TYPE)
                if method == "POST":
                    platform.check_token(auth, {LINEITEM_SCOPE})
                    return self._answer(201, platform.add_line_item(self._json(LINEITEM_TYPE)).document(),
                                        LINEITEM_TYPE)
            match = re.fullmatch(re.escape(prefix) + r"/(\d+)/scores", path)
            if match and method == "POST":
                platform.check_token(auth, {SCORE_SCOPE})
                item = platform.line_item(match.group(1))
                platform.take_score(item, self._json(SCORE_TYPE))
                return self._answer(204, None)
            raise Refusal(404, "not_found", f"{method} {path} is not served here")

        def do_GET(self):
            self._serve("GET")

        def do_POST(self):
            self._serve("POST")

    return Handler
