"""Passkeys over HTTP (WebAuthn, checked with the ``webauthn`` library): a known device adds
a passkey to its player; any device signs in with one and gets a token of its own, as a
linked device does.

The relying party is the host the browser asked for (``Host``; a passkey made for one
host name works only there) and the expected origin that host with the request's scheme.
Each ceremony is two calls: options (with a one-time challenge, kept in the database for
five minutes so that any node can check the answer), then the browser's answer.
"""

from __future__ import annotations

import ipaddress
import json
from datetime import datetime
from typing import Any

import webauthn
from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from server.edges.api.deps import current_player, spend
from server.edges.api.errors import ApiError, error_response_doc
from server.edges.api.players import TOO_MANY_DEVICES, PlayerCreated, device_label
from server.limits import LINKS
from server.players import Caller
from server.storage import devices, passkeys
from server.storage.db import Database

router = APIRouter(tags=["passkeys"])
RP_NAME = "Felt"
REFUSED = "That passkey was not accepted here; try again, or link this device with a code."


class Ceremony(BaseModel):
    challenge_id: str = Field(description="Send it back with the browser's answer.")
    options: dict[str, Any] = Field(description="WebAuthn options as JSON (base64url for bytes), for the browser.")


class Answer(BaseModel):
    challenge_id: str = Field(max_length=64)
    credential: dict[str, Any] = Field(description="The browser's PublicKeyCredential as JSON (its toJSON()).")
    label: str = Field(default="", max_length=64, description="A name for the passkey; the device's by default.")


class PasskeyOut(BaseModel):
    id: str
    label: str
    created_at: datetime
    last_used_at: datetime | None


class PasskeyList(BaseModel):
    passkeys: list[PasskeyOut]


def _party(request: Request) -> tuple[str, str]:
    """The relying party's id (the host name) and the origin the browser must have used. A
    page opened at an IP address has no host name, and browsers refuse passkeys there: that is
    said plainly (400 ``passkey_needs_host_name``) instead of leaving the browser to fail."""
    url = request.base_url
    host = url.hostname or ""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host, f"{url.scheme}://{url.netloc}"
    raise ApiError(
        400,
        "passkey_needs_host_name",
        f"Passkeys need the site's name in the address, not an IP address ({host[:45]}): open Felt by its"
        " host name (for example localhost on this computer) and try again.",
    )


def _options_json(options: Any) -> dict[str, Any]:
    options_json: dict[str, Any] = json.loads(webauthn.options_to_json(options))
    return options_json


@router.post(
    "/players/me/passkeys/options",
    response_model=Ceremony,
    summary="Options for adding a passkey to your player",
    responses=error_response_doc(400, 401, 503),
)
async def passkey_options(request: Request, caller: Caller = Depends(current_player)) -> Ceremony:
    rp_id, _ = _party(request)
    db: Database = request.app.state.db

    def make() -> Ceremony:
        with db.session() as session:
            known = passkeys.credential_ids_of(session, caller.id)
            options = webauthn.generate_registration_options(
                rp_id=rp_id,
                rp_name=RP_NAME,
                user_name=caller.name,
                user_display_name=caller.name,
                user_id=caller.id.encode(),
                authenticator_selection=AuthenticatorSelectionCriteria(
                    resident_key=ResidentKeyRequirement.REQUIRED,
                    user_verification=UserVerificationRequirement.PREFERRED,
                ),
                exclude_credentials=[PublicKeyCredentialDescriptor(id=webauthn.base64url_to_bytes(c)) for c in known],
            )
            handle = passkeys.new_challenge(session, bytes_to_base64url(options.challenge), caller.id)
            return Ceremony(challenge_id=handle, options=_options_json(options))

    return await db.call(make)


@router.post(
    "/players/me/passkeys",
    status_code=201,
    response_model=PasskeyOut,
    summary="Add a passkey (the browser's answer to the options)",
    responses=error_response_doc(400, 401, 422, 503),
)
async def add_passkey(body: Answer, request: Request, caller: Caller = Depends(current_player)) -> PasskeyOut:
    rp_id, origin = _party(request)
    label = body.label.strip() or device_label(request.headers.get("user-agent", ""))
    db: Database = request.app.state.db

    def add() -> PasskeyOut | None:
        with db.session() as session:
            challenge = passkeys.take_challenge(session, body.challenge_id, caller.id)
            if challenge is None:
                return None
            try:
                checked = webauthn.verify_registration_response(
                    credential=body.credential,
                    expected_challenge=webauthn.base64url_to_bytes(challenge),
                    expected_rp_id=rp_id,
                    expected_origin=origin,
                )
            except (WebAuthnException, ValueError, KeyError, TypeError):
                return None
            credential_id = bytes_to_base64url(checked.credential_id)
            if passkeys.passkey(session, credential_id) is not None:
                return None
            return PasskeyOut(
                **passkeys.add_passkey(
                    session, caller.id, credential_id, checked.credential_public_key, checked.sign_count, label
                )
            )

    added = await db.call(add)
    if added is None:
        raise ApiError(400, "passkey_refused", REFUSED)
    return added


@router.get(
    "/players/me/passkeys",
    response_model=PasskeyList,
    summary="Your passkeys",
    responses=error_response_doc(401, 503),
)
async def list_passkeys(request: Request, caller: Caller = Depends(current_player)) -> PasskeyList:
    db: Database = request.app.state.db

    def read() -> list[dict]:
        with db.session() as session:
            return passkeys.passkeys_of(session, caller.id)

    return PasskeyList(passkeys=[PasskeyOut(**row) for row in await db.call(read)])


@router.delete(
    "/players/me/passkeys/{credential_id}",
    status_code=204,
    response_class=Response,
    summary="Remove one of your passkeys (devices it signed in keep their tokens)",
    responses=error_response_doc(401, 404, 503),
)
async def remove_passkey(credential_id: str, request: Request, caller: Caller = Depends(current_player)) -> Response:
    db: Database = request.app.state.db

    def remove() -> bool:
        with db.session() as session:
            return passkeys.remove_passkey(session, caller.id, credential_id)

    if not await db.call(remove):
        raise ApiError(404, "not_found", "You have no such passkey.")
    return Response(status_code=204)


@router.post(
    "/passkeys/sign-in/options",
    response_model=Ceremony,
    summary="Options for signing in with a passkey (no token needed)",
    responses=error_response_doc(400, 429, 503),
)
async def sign_in_options(request: Request) -> Ceremony:
    spend(request, LINKS, "sign-in attempts")
    rp_id, _ = _party(request)
    db: Database = request.app.state.db

    def make() -> Ceremony:
        options = webauthn.generate_authentication_options(
            rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
        )
        with db.session() as session:
            handle = passkeys.new_challenge(session, bytes_to_base64url(options.challenge), None)
        return Ceremony(challenge_id=handle, options=_options_json(options))

    return await db.call(make)


@router.post(
    "/passkeys/sign-in",
    status_code=201,
    response_model=PlayerCreated,
    summary="Sign in with a passkey: a new token, for this device, of the passkey's player",
    responses=error_response_doc(400, 409, 422, 503),
)
async def sign_in(body: Answer, request: Request) -> PlayerCreated:
    rp_id, origin = _party(request)
    label = device_label(request.headers.get("user-agent", ""))
    db: Database = request.app.state.db
    cap = request.app.state.settings.max_devices_per_player

    def verify() -> PlayerCreated | None:
        with db.session() as session:
            challenge = passkeys.take_challenge(session, body.challenge_id, None)
            key = passkeys.passkey(session, body.credential.get("id"))
            if challenge is None or key is None:
                return None
            try:
                checked = webauthn.verify_authentication_response(
                    credential=body.credential,
                    expected_challenge=webauthn.base64url_to_bytes(challenge),
                    expected_rp_id=rp_id,
                    expected_origin=origin,
                    credential_public_key=key.public_key,
                    credential_current_sign_count=key.sign_count,
                )
            except (WebAuthnException, ValueError, KeyError, TypeError):
                return None
            player = passkeys.used(session, key, checked.new_sign_count)
            if player is None:
                return None
            _, token = devices.add_device(session, player.id, label, cap=cap)
            return PlayerCreated(id=player.id, name=player.name, token=token)

    try:
        signed_in = await db.call(verify)
    except devices.TooManyDevices:  # rolled back: the challenge and the sign count stay as they were
        raise ApiError(409, "too_many_devices", TOO_MANY_DEVICES.format(cap=cap)) from None
    if signed_in is None:
        raise ApiError(400, "passkey_refused", REFUSED)
    return signed_in
