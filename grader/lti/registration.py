"""The LMS platform this course is registered with, kept in ``.grader/lti/platform.json``.

An LMS administrator registers the tool (``grader lti config`` prints what they need) and gets back
the platform's issuer, the tool's client id and deployment id, and the platform's endpoints; the
instructor records them with ``grader lti register``. Scores are passed back only while a platform
is registered.
"""
from __future__ import annotations

import ipaddress
import json
import os
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from urllib.parse import urlsplit

from grader.state_folders import LTI_FOLDER, LTI_PLATFORM

LOOPBACK_NAMES = frozenset({"localhost"})


class RegistrationError(ValueError):
    """A registration that cannot be used; the message names the field and what to do."""


@dataclass(frozen=True)
class Platform:
    """One LTI 1.3 platform registration of this course's tool.

    issuer: the platform's ``iss`` (a URL); client_id / deployment_id: what the platform assigned to
    the tool; auth_login_url: the platform's OIDC authorization endpoint (launches); token_url: its
    OAuth 2 token endpoint; jwks_url: its public keys; lineitems_url: the course context's AGS line
    items container (``.../lineitems``), where each assignment gets its line item; audience: the
    ``aud`` the token endpoint expects in client assertions when it is not ``token_url`` itself.
    """

    issuer: str
    client_id: str
    deployment_id: str
    auth_login_url: str
    token_url: str
    jwks_url: str
    lineitems_url: str
    audience: str = ""

    URL_FIELDS = ("issuer", "auth_login_url", "token_url", "jwks_url", "lineitems_url")

    def __post_init__(self):
        for name in ("issuer", "client_id", "deployment_id", "auth_login_url", "token_url", "jwks_url",
                     "lineitems_url"):
            if not str(getattr(self, name)).strip():
                raise RegistrationError(f"the platform's {name} is empty; give it as the LMS shows it")
        for name in self.URL_FIELDS + (("audience",) if self.audience else ()):
            check_url(name, getattr(self, name))

    @property
    def token_audience(self) -> str:
        """The ``aud`` of the tool's client assertions."""
        return self.audience or self.token_url


def check_url(name: str, url: str) -> None:
    """Refuse a URL the tool must not send keys or scores to: https, or http to this machine only."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and parts.hostname and _is_loopback(parts.hostname):
        return
    raise RegistrationError(f"the platform's {name} {url!r} must be an https:// URL (http:// only for "
                            "a platform on this machine, 127.0.0.1 or localhost)")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def platform_file(state_dir: Path) -> Path:
    return Path(state_dir) / LTI_FOLDER / LTI_PLATFORM


def lti_folder(state_dir: Path) -> Path:
    """``.grader/lti/``, created mode 0700."""
    folder = Path(state_dir) / LTI_FOLDER
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def save_platform(state_dir: Path, platform: Platform) -> Path:
    """Write the registration atomically (mode 0600); returns its file."""
    folder = lti_folder(state_dir)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".platform-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(asdict(platform), out, indent=2, sort_keys=True)
    os.replace(temporary, folder / LTI_PLATFORM)
    return folder / LTI_PLATFORM


def load_platform(state_dir: Path) -> Platform | None:
    """The registered platform, or None when none is registered.

    Raises :class:`RegistrationError` when the file is there but unreadable or incomplete.
    """
    path = platform_file(state_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RegistrationError(f"{path} cannot be read ({exc}); register the platform again "
                                "(grader lti register)") from None
    known = {f.name for f in fields(Platform)}
    missing = {f.name for f in fields(Platform) if f.name != "audience"} - set(data)
    if not isinstance(data, dict) or missing:
        raise RegistrationError(f"{path} lacks {', '.join(sorted(missing))}; register the platform again "
                                "(grader lti register)")
    return Platform(**{k: str(v) for k, v in data.items() if k in known})


def is_registered(state_dir: Path) -> bool:
    return platform_file(state_dir).is_file()
