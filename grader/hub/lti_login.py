"""Sign-in to the course hub: each account's password (PAM), launches from the course's LMS (LTI 1.3),
and the signed-in student's choice of language (``/hub/language``).

This module runs inside JupyterHub, from the hub's environment (jupyterhub, jupyterhub-ltiauthenticator),
never inside the grader: it imports neither ``grader`` nor anything of the course. ``grader hub up``
copies it into the hub's root-only state folder, with the two standard-library modules it imports
(:mod:`grader.hub.language_page`, :mod:`grader.language.language_records`), and names it in
``jupyterhub_config.py`` (:func:`grader.hub.jupyter_config.hub_config`), with the course files it
reads on every launch:

- ``platform_file``: the LMS registration (``grader lti register``), JSON with ``issuer``,
  ``client_id``, ``deployment_id``, ``auth_login_url`` and ``jwks_url``; no file, no launches;
- ``hub_file``: the tool's public keys (served at ``/hub/lti13/jwks``) and the assignments offered to
  deep linking (``grader lti register``);
- ``accounts_db``: the passback journal (SQLite), whose ``accounts`` table links each hub account to
  its LMS user (``grader lti link``).

A launch is the OIDC third-party-initiated login of LTI 1.3: the LMS calls ``/hub/lti13/oauth_login``
(issuer, login hint, target link), the hub sends the browser to the LMS's authorization endpoint
(state and nonce in encrypted cookies), the LMS posts a signed ``id_token`` to
``/hub/lti13/oauth_callback``. jupyterhub-ltiauthenticator checks the state, the signature (the LMS's
JWKS), issuer, audience, expiry, nonce and the LTI claims; this module adds the deployment id and
maps the token's ``sub`` to the hub account linked to it. A launch for an LMS user linked to no
account is refused (403) naming what the instructor runs.

A student's language (``languages_file``, also written by ``grader roster``) is read by the hub's
spawn hook; :class:`LanguageChoice` records a student's own choice there and restarts their server.

A deep linking request (an instructor adding the tool to the LMS course) signs nobody in: the hub
answers with a page offering each assignment of ``hub_file`` (``grader lti register`` writes it); each offer is a form that posts a deep linking response, signed with the tool's key
(``tool_key_file``), back to the LMS: one ``ltiResourceLink`` with a ``lineItem`` whose
``resourceId`` is the assignment's name, the line item the score passback then posts to.
"""
from __future__ import annotations

import asyncio
import html
import json
import secrets
import sqlite3
import time
from pathlib import Path

import jwt
from jupyterhub.auth import PAMAuthenticator
from jupyterhub.handlers import BaseHandler
from jupyterhub.utils import url_path_join
from language_page import PAGE_PATH as LANGUAGE_PAGE
from language_page import PAGE_POLICY as LANGUAGE_PAGE_POLICY
from language_page import language_page
from language_records import read_languages, record_languages
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import InvalidAudienceError, LoginError, ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
from tornado.web import HTTPError, authenticated
from traitlets import Dict, List, Unicode

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/"
DEPLOYMENT_CLAIM = LTI + "deployment_id"
#: Roles that may link assignments (LIS vocabulary: context, institution and system roles).
TEACHING_ROLES = ("membership#Instructor", "membership#ContentDeveloper", "membership#Administrator",
                  "institution/person#Administrator", "system/person#Administrator")
#: Seconds the language page waits for the student's server to stop before starting it again.
STOP_WAIT_SECONDS = 60
#: Seconds a deep linking response is valid.
RESPONSE_SECONDS = 600


class CourseLoginInit(LTI13LoginInitHandler):
    """The LMS's login initiation: refused unless it comes from the registered platform."""

    def post(self):
        platform = self.authenticator.platform()
        if not platform:
            raise HTTPError(404, "this course hub is registered with no LMS (grader lti register)")
        issuer = self.get_argument("iss", "")
        if issuer != platform.get("issuer"):
            raise HTTPError(400, f"launches come from the course's LMS {platform.get('issuer')}, not {issuer!r}")
        client_id = self.get_argument("client_id", "")
        if client_id and client_id != platform.get("client_id"):
            raise HTTPError(400, f"client_id {client_id!r} is not the course's tool")
        return super().post()

    get = post


class CourseLaunch(LTI13CallbackHandler):
    """The LMS's signed launch (id_token), checked by ltiauthenticator, then by the course: a resource
    link signs the linked account in; a deep linking request gets the page of assignments."""

    async def post(self):
        try:
            id_token = self.decode_and_validate_launch_request()
        except InvalidAudienceError as exc:
            raise HTTPError(401, str(exc)) from None
        except ValidationError as exc:
            raise HTTPError(400, str(exc)) from None
        if id_token.get(LTI + "message_type") == "LtiDeepLinkingRequest":
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(self.authenticator.deep_linking_page(id_token))
            return
        try:
            user = await self.login_user(id_token)
        except LoginError as exc:
            raise HTTPError(400, str(exc)) from None
        if user is None:
            raise HTTPError(403, "no hub account for this launch")
        await self.redirect_to_next_url(user)


class ToolKeys(BaseHandler):
    """``/hub/lti13/jwks``: the tool's public key set, for an LMS that reads it from a URL."""

    def get(self):
        try:
            jwks = self.authenticator.hub_offer()["jwks"]
        except (OSError, ValueError, KeyError):
            raise HTTPError(404, "the course has no LTI tool key yet: run `grader lti register`") from None
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(jwks))


class LanguageChoice(BaseHandler):
    """``/hub/language``: the signed-in student's language; GET shows the choice, POST records it,
    restarts the student's server (which the spawn hook gives the new language) and sends the
    student to its first screen, the course page."""

    def _current(self, name: str) -> str:
        recorded = read_languages(self.authenticator.languages_file).get(name)
        return recorded if recorded in self.authenticator.languages else self.authenticator.default_language

    @authenticated
    def get(self):
        user = self.current_user
        self.set_header("Content-Security-Policy", LANGUAGE_PAGE_POLICY)
        self.set_header("Cache-Control", "no-store")
        self.finish(language_page(dict(self.authenticator.languages), self._current(user.name),
                                  self.xsrf_form_html(), url_path_join(self.hub.base_url, LANGUAGE_PAGE),
                                  user.url))  # the server's root: its first screen, a student's course page

    @authenticated
    async def post(self):
        user = self.current_user
        language = self.get_body_argument("language", "")
        if language not in self.authenticator.languages:
            raise HTTPError(400, f"{language!r} is not a language of this course; choose one of "
                                 f"{', '.join(self.authenticator.languages)}")
        if user.spawner.pending:
            doing = {"spawn": "starting", "stop": "stopping"}.get(user.spawner.pending, "busy")
            raise HTTPError(409, f"your server is {doing}; wait a moment and save again")
        record_languages(self.authenticator.languages_file, {user.name: language})
        self.log.info("%s reads the course in %s from now on", user.name, language)
        if user.spawner.active:
            await self.stop_single_user(user)
            for _ in range(STOP_WAIT_SECONDS * 2):  # a stop slower than the hub's slow_stop_timeout goes on
                if not user.spawner.pending:
                    break
                await asyncio.sleep(0.5)
        # The hub's spawn page starts the server again, with the new language, and sends the student to it.
        self.redirect(url_path_join(self.hub.base_url, "spawn", user.name))


class CourseAuthenticator(PAMAuthenticator):
    """PAM passwords, and LTI 1.3 launches from the LMS in ``platform_file`` for linked accounts."""

    platform_file = Unicode("", config=True, help="The course's LMS registration (JSON).")
    accounts_db = Unicode("", config=True, help="The passback journal whose accounts table links LMS users.")
    hub_file = Unicode("", config=True, help="The tool's public keys, its key id and the assignments offered "
                                             "to deep linking (JSON).")
    tool_key_file = Unicode("", config=True, help="The tool's private key (PEM), which signs deep linking responses.")
    jwks_algorithms = List(["RS256"], config=True, help="Signature algorithms accepted in id_tokens.")
    uri_scheme = Unicode("auto", config=True, help="auto, http or https: the scheme of the LTI addresses.")
    languages_file = Unicode("", config=True, help="The course's file of students' languages (JSON).")
    languages = Dict({"en": "English"}, config=True, help="The course's languages: code -> its name in itself.")
    default_language = Unicode("en", config=True, help="The language of a student the file names no language for.")
    get_uri_scheme = LTI13Authenticator.get_uri_scheme

    def platform(self) -> dict:
        """The registration, read anew on every launch (``grader lti register`` needs no restart)."""
        try:
            data = json.loads(Path(self.platform_file).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def hub_offer(self) -> dict:
        """``hub_file``: ``kid``, ``jwks`` and ``assignments`` (name -> points); raises OSError or ValueError."""
        data = json.loads(Path(self.hub_file).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{self.hub_file} is not a JSON object")
        return data

    # What ltiauthenticator's handlers read from their authenticator.
    issuer = property(lambda self: self.platform().get("issuer", ""))
    client_id = property(lambda self: {self.platform().get("client_id", "")} - {""})
    jwks_endpoint = property(lambda self: self.platform().get("jwks_url", ""))
    authorize_url = property(lambda self: self.platform().get("auth_login_url", ""))

    def callback_url(self, base_url: str) -> str:
        return url_path_join(base_url, "lti13", "oauth_callback")

    def get_handlers(self, app):
        return [*super().get_handlers(app), ("/lti13/oauth_login", CourseLoginInit),
                ("/lti13/oauth_callback", CourseLaunch), ("/lti13/jwks", ToolKeys),
                (f"/{LANGUAGE_PAGE}", LanguageChoice)]

    async def authenticate(self, handler, data):
        if not isinstance(handler, CourseLaunch):
            return await super().authenticate(handler, data)
        self.check_deployment(data, self.platform())
        account = self.linked_account(str(data.get("sub", "")))
        if account is None:
            raise HTTPError(403, f"the LMS user {data.get('sub')!r} is linked to no account of this course hub; "
                                 f"the instructor links it with `grader lti link ACCOUNT {data.get('sub')}`")
        return {"name": account}

    @staticmethod
    def check_deployment(id_token: dict, platform: dict) -> None:
        if id_token.get(DEPLOYMENT_CLAIM) != platform.get("deployment_id"):
            raise HTTPError(403, f"the launch's deployment {id_token.get(DEPLOYMENT_CLAIM)!r} is not the course's")

    def deep_linking_page(self, id_token: dict) -> str:
        """The page answering a deep linking request: one form per assignment, each posting a signed
        ``LtiDeepLinkingResponse`` with that assignment's resource link and line item."""
        platform = self.platform()
        self.check_deployment(id_token, platform)
        if not any(str(role).endswith(TEACHING_ROLES) for role in id_token.get(LTI + "roles") or []):
            raise HTTPError(403, "only the course's instructors link its assignments")
        settings = id_token.get(DEEP_LINKING + "deep_linking_settings") or {}
        return_url = settings.get("deep_link_return_url")
        if not return_url or "ltiResourceLink" not in settings.get("accept_types", []):
            raise HTTPError(400, "the deep linking request takes no ltiResourceLink or names no return URL")
        try:
            offer = self.hub_offer()
            key = Path(self.tool_key_file).read_bytes()
        except (OSError, ValueError):
            raise HTTPError(503, "the course offers no assignments yet: run `grader lti register`") from None
        forms = []
        for name, points in sorted(offer.get("assignments", {}).items()):
            item = {"type": "ltiResourceLink", "title": name, "url": id_token.get(LTI + "target_link_uri"),
                    "lineItem": {"label": name, "resourceId": name, "scoreMaximum": points, "tag": "grade"}}
            now = int(time.time())
            claims = {"iss": platform.get("client_id"), "aud": platform.get("issuer"), "iat": now,
                      "exp": now + RESPONSE_SECONDS, "nonce": secrets.token_urlsafe(16),
                      LTI + "message_type": "LtiDeepLinkingResponse", LTI + "version": "1.3.0",
                      DEPLOYMENT_CLAIM: platform.get("deployment_id"), DEEP_LINKING + "content_items": [item]}
            if "data" in settings:
                claims[DEEP_LINKING + "data"] = settings["data"]
            token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": offer.get("kid")})
            forms.append(f'<form method="post" action="{html.escape(return_url)}">'
                         f'<input type="hidden" name="JWT" value="{html.escape(token)}">'
                         f'<button type="submit">{html.escape(name)} ({points:g} points)</button></form>')
        if not forms:
            raise HTTPError(503, "the course offers no assignments yet: release one, then `grader lti register`")
        return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link an assignment</title>'
                '</head><body><main><h1>Link an assignment of the course</h1>' + "".join(forms) + "</main></body></html>")

    def linked_account(self, lms_user: str) -> str | None:
        """The hub account linked to ``lms_user``, or None."""
        if not lms_user or not Path(self.accounts_db).is_file():
            return None
        with sqlite3.connect(self.accounts_db, timeout=10) as db:
            row = db.execute("SELECT student FROM accounts WHERE lms_user = ?", (lms_user,)).fetchone()
        return row[0] if row else None
