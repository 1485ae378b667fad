"""The tool's RSA key pair (``.grader/lti/tool-key.pem``, mode 0600) and its public JWKS.

The platform verifies the tool's client assertions with the public key, which the LMS administrator
pastes into the tool's registration (``grader lti jwks``). The key id (``kid``) is the key's JWK
thumbprint (RFC 7638), so the same key always has the same id.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from grader.lti.registration import lti_folder
from grader.state_folders import LTI_TOOL_KEY

KEY_BITS = 2048
ALGORITHM = "RS256"


@dataclass(frozen=True)
class ToolKey:
    """The tool's private key (PEM bytes) and its key id."""

    private_pem: bytes
    kid: str

    def public_jwk(self) -> dict:
        """The public key as a JWK: ``kty``, ``n``, ``e``, ``kid``, ``alg`` and ``use``."""
        key = serialization.load_pem_private_key(self.private_pem, password=None)
        jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}

    def jwks(self) -> dict:
        """The tool's public JWKS: ``{"keys": [jwk]}``."""
        return {"keys": [self.public_jwk()]}


def thumbprint(public_jwk: dict) -> str:
    """RFC 7638 thumbprint of an RSA JWK (SHA-256, base64url without padding)."""
    canonical = json.dumps({k: public_jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


def tool_key(state_dir: Path) -> ToolKey:
    """The course's tool key, made (2048-bit RSA, mode 0600) the first time it is asked for."""
    path = lti_folder(state_dir) / LTI_TOOL_KEY
    try:
        pem = path.read_bytes()
    except FileNotFoundError:
        pem = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
    key = serialization.load_pem_private_key(pem, password=None)
    return ToolKey(pem, thumbprint(RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)))
