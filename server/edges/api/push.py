"""Web Push over HTTP: the server's public VAPID key, and each device's push subscription and
notification kinds, which only that device's own token reads and writes (docs/protocol.md,
Web Push)."""

from __future__ import annotations

import re
from typing import Literal

from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import current_player
from server.edges.api.errors import ApiError, error_response_doc
from server.notify import prefs
from server.notify.outbound import MAX_URL_CHARS, OutboundRefused, Reach, check_url
from server.notify.push import LANGS, b64url, b64url_decode
from server.players import Caller
from server.storage import push as store
from server.storage.db import Database

router = APIRouter(tags=["push"])

_B64URL = re.compile(r"^[A-Za-z0-9_-]+={0,2}$")
DEVICE_PATH = "Your device's id, or 'me' for the device whose token makes the call."


class PushKey(BaseModel):
    key: str = Field(description="The VAPID public key (applicationServerKey): a P-256 point, base64url.")


class SubscriptionKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")
    p256dh: str = Field(max_length=100, description="The browser's P-256 public key, base64url (65 bytes).")
    auth: str = Field(max_length=32, description="The auth secret, base64url (16 bytes).")


class NewSubscription(BaseModel):
    """What ``PushSubscription.toJSON()`` gives, and the language to be told in."""

    model_config = ConfigDict(extra="forbid")
    endpoint: str = Field(max_length=MAX_URL_CHARS, description="The push service's URL for this device (https).")
    expirationTime: int | None = Field(default=None, description="Ignored: a push service's 410 ends it.")
    keys: SubscriptionKeys
    lang: Literal["en", "pt"] = Field(default="en", description="The language notifications are written in.")


class Kinds(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kinds: dict[str, bool] = Field(
        max_length=16,
        description="Kinds to turn on (true) or off (false); kinds not named keep their state. Kinds: "
        + ", ".join(prefs.KINDS)
        + ".",
        examples=[{"turn": True, "clock": False}],
    )


class NotifySettings(BaseModel):
    push: bool = Field(description="Whether this device has a push subscription.")
    kinds: dict[str, bool] = Field(description="Every kind of notification, on or off on this device.")


def own_device(device_id: str, caller: Caller) -> str:
    """The device a path names, if it is the calling device (403 otherwise)."""
    if caller.device is None or device_id not in ("me", caller.device):
        raise ApiError(403, "forbidden", "A device's notifications are read and set with its own token only.")
    return caller.device


def _decoded(text: str, size: int, what: str) -> bytes:
    data = b64url_decode(text.rstrip("=")) if _B64URL.fullmatch(text) else b""
    if len(data) != size:
        raise ApiError(422, "invalid_subscription", f"keys.{what} must be {size} bytes in base64url.")
    return data


def clean_subscription(body: NewSubscription, allow_private: bool) -> tuple[str, str, str]:
    """The endpoint and the two keys (base64url without padding) of a valid subscription."""
    try:
        endpoint = check_url(body.endpoint, Reach(allow_private))
    except OutboundRefused as exc:
        raise ApiError(422, "invalid_subscription", f"endpoint: {exc}") from None
    # Only a test's loopback receiver speaks plain http (and only with private targets allowed).
    if not endpoint.startswith("https://") and not allow_private:
        raise ApiError(422, "invalid_subscription", "endpoint: a push service's URL is https://.")
    point = _decoded(body.keys.p256dh, 65, "p256dh")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise ApiError(422, "invalid_subscription", "keys.p256dh is not a P-256 public key.") from None
    auth = _decoded(body.keys.auth, 16, "auth")
    return endpoint, b64url(point), b64url(auth)


def _settings_of(db: Database, device: str) -> NotifySettings:
    with db.session() as session:
        off = store.kinds_off(session, device)
        subscribed = store.subscription_of(session, device) is not None
    return NotifySettings(push=subscribed, kinds=prefs.kinds_state(off))


@router.get(
    "/push/key", response_model=PushKey, summary="The server's VAPID public key", responses=error_response_doc(503)
)
async def push_key(request: Request) -> PushKey:
    return PushKey(key=await request.app.state.vapid.public_key())


@router.put(
    "/devices/{device_id}/push",
    response_model=NotifySettings,
    summary="Subscribe this device to Web Push (replaces its earlier subscription)",
    responses=error_response_doc(401, 403, 409, 422, 503),
)
async def subscribe(
    device_id: str, body: NewSubscription, request: Request, caller: Caller = Depends(current_player)
) -> NotifySettings:
    device = own_device(device_id, caller)
    endpoint, p256dh, auth = clean_subscription(body, request.app.state.settings.outbound_allow_private)
    lang = body.lang if body.lang in LANGS else "en"
    db: Database = request.app.state.db
    cap = request.app.state.settings.max_push_subscriptions_per_player

    def save() -> NotifySettings | None:
        with db.session() as session:
            if not store.save_subscription(session, device, endpoint, p256dh, auth, lang, cap):
                return None
        return _settings_of(db, device)

    try:
        saved = await db.call(save)
    except store.TooManySubscriptions:
        raise ApiError(
            409,
            "too_many_subscriptions",
            f"Your player has {cap} devices subscribed to notifications, the most it may have:"
            " turn them off on one of them (or sign it out) first.",
        ) from None
    if saved is None:
        raise ApiError(403, "forbidden", "This device was signed out.")
    return saved


@router.delete(
    "/devices/{device_id}/push",
    status_code=204,
    response_class=Response,
    summary="Unsubscribe this device from Web Push",
    responses=error_response_doc(401, 403, 503),
)
async def unsubscribe(device_id: str, request: Request, caller: Caller = Depends(current_player)) -> Response:
    device = own_device(device_id, caller)
    db: Database = request.app.state.db

    def drop() -> None:
        with db.session() as session:
            store.drop_subscription(session, device)

    await db.call(drop)
    return Response(status_code=204)


@router.get(
    "/devices/{device_id}/notifications",
    response_model=NotifySettings,
    summary="This device's notification kinds and whether it is subscribed",
    responses=error_response_doc(401, 403, 503),
)
async def get_kinds(device_id: str, request: Request, caller: Caller = Depends(current_player)) -> NotifySettings:
    device = own_device(device_id, caller)
    db: Database = request.app.state.db
    return await db.call(_settings_of, db, device)


@router.put(
    "/devices/{device_id}/notifications",
    response_model=NotifySettings,
    summary="Turn kinds of notification on or off on this device",
    responses=error_response_doc(401, 403, 422, 503),
)
async def set_kinds(
    device_id: str, body: Kinds, request: Request, caller: Caller = Depends(current_player)
) -> NotifySettings:
    device = own_device(device_id, caller)
    db: Database = request.app.state.db

    def save() -> NotifySettings | None:
        with db.session() as session:
            try:
                off = prefs.kinds_off(body.kinds, store.kinds_off(session, device))
            except ValueError as exc:
                raise ApiError(422, "invalid_kind", str(exc)) from None
            if not store.set_kinds_off(session, device, off):
                return None
        return _settings_of(db, device)

    saved = await db.call(save)
    if saved is None:
        raise ApiError(403, "forbidden", "This device was signed out.")
    return saved
