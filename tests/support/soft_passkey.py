"""A passkey held in Python: answers a server's WebAuthn options as a browser's authenticator
would (a P-256 key, "none" attestation, user present and verified), for tests that add and
use a passkey over plain HTTP, without a browser."""

from __future__ import annotations

import base64
import hashlib
import json
import os

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

PRESENT, VERIFIED, ATTESTED = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftPasskey:
    """One credential for the relying party of ``origin`` (its host name is the rp id)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = os.urandom(16)
        self.user: bytes = b""
        self.count = 0

    def _client_data(self, kind: str, options: dict) -> bytes:
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": self.origin}).encode()

    def _auth_data(self, rp_id: str, flags: int, attested: bytes = b"") -> bytes:
        self.count += 1
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + self.count.to_bytes(4, "big") + attested

    def create(self, options: dict) -> dict:
        """The credential ``navigator.credentials.create`` would give for ``options``."""
        self.user = unb64url(options["user"]["id"])
        numbers = self.key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        attested = bytes(16) + len(self.id).to_bytes(2, "big") + self.id + cose
        auth_data = self._auth_data(options["rp"]["id"], PRESENT | VERIFIED | ATTESTED, attested)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64url(self.id),
            "rawId": b64url(self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(self._client_data("webauthn.create", options)),
                "attestationObject": b64url(attestation),
            },
        }

    def get(self, options: dict) -> dict:
        """The credential ``navigator.credentials.get`` would give for ``options``."""
        client_data = self._client_data("webauthn.get", options)
        auth_data = self._auth_data(options["rpId"], PRESENT | VERIFIED)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(self.id),
            "rawId": b64url(self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(self.user),
            },
        }
