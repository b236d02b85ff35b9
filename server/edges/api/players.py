"""Players over HTTP: a guest identity (a name and a bearer token, shown once), its name, and
its devices: a one-time code (and its QR code) that links a new device to the same player,
the list of devices, and revoking one (its token stops working and its sockets close at once,
on every node: server/players.py)."""

from __future__ import annotations

import io
from datetime import datetime
from urllib.parse import quote

import segno
from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from server.edges.api.deps import current_player, spend
from server.edges.api.errors import ApiError, error_response_doc
from server.limits import LINKS, PLAYERS
from server.players import Caller, device_revoked, player_renamed
from server.storage import devices, store
from server.storage.db import Database

router = APIRouter(tags=["players"])

NAME_FIELD = Field(
    # The schema says what the server enforces (after trimming, with a sentence: invalid_name);
    # the looser bound here only stops absurd bodies before they are cleaned.
    max_length=200,
    description=(
        "1 to 24 characters once trimmed: letters, digits, single spaces, ordinary punctuation and"
        " emoji, none drawn wider than two columns, not a bot's or an empty seat's label"
        " (docs/protocol.md, Player names)."
    ),
    examples=["Ana"],
    json_schema_extra={"minLength": 1, "maxLength": 24},
)
TOO_MANY_DEVICES = (
    "Your player has {cap} devices signed in, the most it may have: sign one out (Devices) to add this one."
)
UNKNOWN_CODE = (
    "That code does not link a device: it is mistyped, used already or more than 10 minutes old."
    " Make a new one on a device where you are known."
)


class NewPlayer(BaseModel):
    name: str = NAME_FIELD


class PlayerCreated(BaseModel):
    id: str
    name: str
    token: str = Field(description="A bearer secret: send it as 'Authorization: Bearer <token>'. Shown only once.")


class PlayerMe(BaseModel):
    id: str
    name: str
    device: str | None = Field(description="The id of the device whose token made this call.")


class Rename(BaseModel):
    name: str = NAME_FIELD


class LinkCreated(BaseModel):
    code: str = Field(description="Eight letters and digits, no look-alikes; case, spaces and dashes are ignored.")
    expires_at: datetime = Field(description="It works once, until then (10 minutes).")
    url: str = Field(description="The page that links a device with this code, e.g. '/link?code=ABCD2345'.")
    qr_svg: str = Field(description="The absolute link URL as a QR code, an SVG document.")


class LinkCode(BaseModel):
    code: str = Field(max_length=64, examples=["ABCD-2345"])


class DeviceOut(BaseModel):
    id: str
    name: str | None = Field(default=None, description="The name the player gave it, or null.")
    label: str = Field(description="What the device's browser said it was when linked ('' if unknown).")
    created_at: datetime
    last_seen_at: datetime = Field(description="Last use of its token, to within ten minutes.")
    current: bool = Field(description="True for the device that made this call.")


class DeviceList(BaseModel):
    devices: list[DeviceOut]


class DeviceName(BaseModel):
    name: str | None = Field(
        max_length=200, description="As a player's name (1 to 24 characters once trimmed); null or empty forgets it."
    )


def _clean_name(raw: str) -> str:
    try:
        return store.clean_name(raw)
    except store.InvalidName as exc:
        raise ApiError(422, "invalid_name", str(exc)) from None


@router.post(
    "/players",
    status_code=201,
    response_model=PlayerCreated,
    summary="Create a guest player and its bearer token",
    responses=error_response_doc(400, 422, 429, 503),
)
async def create_player(body: NewPlayer, request: Request) -> PlayerCreated:
    spend(request, PLAYERS, "new players")
    name = _clean_name(body.name)
    label = device_label(request.headers.get("user-agent", ""))
    db: Database = request.app.state.db

    def create() -> PlayerCreated:
        with db.session() as session:
            player, token = store.create_player(session, name, label)
            return PlayerCreated(id=player.id, name=player.name, token=token)

    return await db.call(create)


@router.get(
    "/players/me",
    response_model=PlayerMe,
    summary="The calling player (and device)",
    responses=error_response_doc(401, 503),
)
async def get_me(caller: Caller = Depends(current_player)) -> PlayerMe:
    return PlayerMe(id=caller.id, name=caller.name, device=caller.device)


@router.patch(
    "/players/me",
    response_model=PlayerMe,
    summary="Change your name (finished matches keep the name they were played under)",
    responses=error_response_doc(401, 422, 503),
)
async def rename(body: Rename, request: Request, caller: Caller = Depends(current_player)) -> PlayerMe:
    name = _clean_name(body.name)
    db: Database = request.app.state.db

    def save() -> None:
        with db.session() as session:
            devices.rename_player(session, caller.id, name)

    await db.call(save)
    await player_renamed(request.app, caller.id)
    return PlayerMe(id=caller.id, name=name, device=caller.device)


@router.post(
    "/players/me/links",
    status_code=201,
    response_model=LinkCreated,
    summary="A one-time code (and QR code) that adds a device to your player",
    responses=error_response_doc(401, 503),
)
async def create_link(request: Request, caller: Caller = Depends(current_player)) -> LinkCreated:
    db: Database = request.app.state.db

    def create() -> tuple[str, datetime]:
        with db.session() as session:
            return devices.create_link_code(session, caller.id)

    code, expires = await db.call(create)
    url = f"/link?code={quote(code)}"
    return LinkCreated(code=code, expires_at=expires, url=url, qr_svg=qr_svg(str(request.base_url).rstrip("/") + url))


@router.post(
    "/players/link",
    status_code=201,
    response_model=PlayerCreated,
    summary="Link this device with a code: a new token for the code's player",
    responses=error_response_doc(404, 409, 422, 429, 503),
)
async def redeem_link(body: LinkCode, request: Request) -> PlayerCreated:
    spend(request, LINKS, "device link codes")
    label = device_label(request.headers.get("user-agent", ""))
    db: Database = request.app.state.db
    cap = request.app.state.settings.max_devices_per_player

    def redeem() -> PlayerCreated | None:
        with db.session() as session:
            found = devices.redeem_link_code(session, body.code, label, cap=cap)
            if found is None:
                return None
            player, _, token = found
            return PlayerCreated(id=player.id, name=player.name, token=token)

    try:
        linked = await db.call(redeem)
    except devices.TooManyDevices:  # rolled back: the code still works once a device is signed out
        raise ApiError(409, "too_many_devices", TOO_MANY_DEVICES.format(cap=cap)) from None
    if linked is None:
        raise ApiError(404, "link_code_unknown", UNKNOWN_CODE)
    return linked


@router.get(
    "/players/me/devices",
    response_model=DeviceList,
    summary="Your devices (those not revoked), oldest first",
    responses=error_response_doc(401, 503),
)
async def list_devices(request: Request, caller: Caller = Depends(current_player)) -> DeviceList:
    db: Database = request.app.state.db

    def read() -> list[dict]:
        with db.session() as session:
            return devices.list_devices(session, caller.id)

    rows = await db.call(read)
    return DeviceList(devices=[DeviceOut(**row, current=row["id"] == caller.device) for row in rows])


@router.patch(
    "/players/me/devices/{device_id}",
    response_model=DeviceOut,
    summary='Name one of your devices ("Kitchen tablet"), so your list tells them apart',
    responses=error_response_doc(401, 404, 422, 503),
)
async def name_device(
    device_id: str, body: DeviceName, request: Request, caller: Caller = Depends(current_player)
) -> DeviceOut:
    name = _clean_name(body.name) if body.name and body.name.strip() else None
    db: Database = request.app.state.db

    def save() -> dict | None:
        with db.session() as session:
            if not devices.name_device(session, caller.id, device_id, name):
                return None
            return next(d for d in devices.list_devices(session, caller.id) if d["id"] == device_id)

    row = await db.call(save) if store.is_valid_id(device_id) else None
    if row is None:
        raise ApiError(404, "not_found", "You have no such device (or it was revoked already).")
    return DeviceOut(**row, current=device_id == caller.device)


@router.delete(
    "/players/me/devices/{device_id}",
    status_code=204,
    response_class=Response,
    summary="Revoke one of your devices: its token is refused and its sockets close at once",
    responses=error_response_doc(401, 404, 503),
)
async def revoke_device(device_id: str, request: Request, caller: Caller = Depends(current_player)) -> Response:
    db: Database = request.app.state.db

    def revoke() -> str | None:
        with db.session() as session:
            return devices.revoke_device(session, caller.id, device_id)

    token_hash = await db.call(revoke) if store.is_valid_id(device_id) else None
    if token_hash is None:
        raise ApiError(404, "not_found", "You have no such device (or it was revoked already).")
    await device_revoked(request.app, device_id, token_hash)
    return Response(status_code=204)


def qr_svg(text: str) -> str:
    """``text`` as a QR code: a small SVG document, dark on light, with its quiet zone."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=4, border=4, xmldecl=False, dark="#000", light="#fff")
    return out.getvalue().decode()


# Browser and system names as a User-Agent spells them, in the order they are to be tried.
_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("FxiOS", "Firefox"),
    ("CriOS", "Chrome"),
    ("Chrome/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def device_label(user_agent: str) -> str:
    """A short name for a device from its User-Agent ("Firefox on Android"), or '' when it
    says nothing recognisable. Only a label for the player's own list: never trusted."""
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), "")
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system
