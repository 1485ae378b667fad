"""Sign-in to the course hub: each account's password (PAM), and launches from the course's LMS (LTI 1.3).

This module runs inside JupyterHub, from the hub's environment (jupyterhub, jupyterhub-ltiauthenticator),
never inside the grader: it imports neither ``grader`` nor anything of the course. ``grader hub up``
copies it into the hub's root-only state folder and names it in ``jupyterhub_config.py``
(:func:`grader.hub.jupyter_config.hub_config`), with the two course files it reads on every launch:

- ``platform_file``: the LMS registration (``grader lti register``), JSON with ``issuer``,
  ``client_id``, ``deployment_id``, ``auth_login_url`` and ``jwks_url``; no file, no launches;
- ``accounts_db``: the passback journal (SQLite), whose ``accounts`` table links each hub account to
  its LMS user (``grader lti link``).

A launch is the OIDC third-party-initiated login of LTI 1.3: the LMS calls ``/hub/lti13/oauth_login``
(issuer, login hint, target link), the hub sends the browser to the LMS's authorization endpoint
(state and nonce in encrypted cookies), the LMS posts a signed ``id_token`` to
``/hub/lti13/oauth_callback``. jupyterhub-ltiauthenticator checks the state, the signature (the LMS's
JWKS), issuer, audience, expiry, nonce and the LTI claims; this module adds the deployment id and
maps the token's ``sub`` to the hub account linked to it. A launch for an LMS user linked to no
account is refused (403) naming what the instructor runs.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from jupyterhub.auth import PAMAuthenticator
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
from tornado.web import HTTPError
from traitlets import List, Unicode

DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"


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
    """The LMS's signed launch (id_token), checked by ltiauthenticator, then by the course."""


class CourseAuthenticator(PAMAuthenticator):
    """PAM passwords, and LTI 1.3 launches from the LMS in ``platform_file`` for linked accounts."""

    platform_file = Unicode("", config=True, help="The course's LMS registration (JSON).")
    accounts_db = Unicode("", config=True, help="The passback journal whose accounts table links LMS users.")
    jwks_algorithms = List(["RS256"], config=True, help="Signature algorithms accepted in id_tokens.")
    uri_scheme = Unicode("auto", config=True, help="auto, http or https: the scheme of the LTI addresses.")
    get_uri_scheme = LTI13Authenticator.get_uri_scheme

    def platform(self) -> dict:
        """The registration, read anew on every launch (``grader lti register`` needs no restart)."""
        try:
            data = json.loads(Path(self.platform_file).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    # What ltiauthenticator's handlers read from their authenticator.
    issuer = property(lambda self: self.platform().get("issuer", ""))
    client_id = property(lambda self: {self.platform().get("client_id", "")} - {""})
    jwks_endpoint = property(lambda self: self.platform().get("jwks_url", ""))
    authorize_url = property(lambda self: self.platform().get("auth_login_url", ""))

    def callback_url(self, base_url: str) -> str:
        return url_path_join(base_url, "lti13", "oauth_callback")

    def get_handlers(self, app):
        return [*super().get_handlers(app), ("/lti13/oauth_login", CourseLoginInit),
                ("/lti13/oauth_callback", CourseLaunch)]

    async def authenticate(self, handler, data):
        if not isinstance(handler, CourseLaunch):
            return await super().authenticate(handler, data)
        platform = self.platform()
        if data.get(DEPLOYMENT_CLAIM) != platform.get("deployment_id"):
            raise HTTPError(403, f"the launch's deployment {data.get(DEPLOYMENT_CLAIM)!r} is not the course's")
        account = self.linked_account(str(data.get("sub", "")))
        if account is None:
            raise HTTPError(403, f"the LMS user {data.get('sub')!r} is linked to no account of this course hub; "
                                 f"the instructor links it with `grader lti link ACCOUNT {data.get('sub')}`")
        return {"name": account}

    def linked_account(self, lms_user: str) -> str | None:
        """The hub account linked to ``lms_user``, or None."""
        if not lms_user or not Path(self.accounts_db).is_file():
            return None
        with sqlite3.connect(self.accounts_db, timeout=10) as db:
            row = db.execute("SELECT student FROM accounts WHERE lms_user = ?", (lms_user,)).fetchone()
        return row[0] if row else None
