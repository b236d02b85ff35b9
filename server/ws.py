"""The WebSocket edge: ``/ws/rooms/{code}?token=...``.

It parses each frame into a typed message, hands it to the room, and turns every refusal
(a bad frame, a room rule, a game rule) into an ``error`` frame in this one place. Each
socket has its own outbound queue and sender task; nothing here knows any game.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Annotated, Any, Literal, Union

import orjson
from fastapi import APIRouter, WebSocket
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from server.api.deps import player_for_token
from server.games import GameError
from server.rooms import Connection, Room, RoomError

log = logging.getLogger("felt.ws")
ws_router = APIRouter()

CLOSE_POLICY = 1008


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sit(_Msg):
    type: Literal["sit"]
    seat: StrictInt


class Stand(_Msg):
    type: Literal["stand"]


class BotMsg(_Msg):
    type: Literal["bot"]
    seat: StrictInt
    remove: StrictBool = False


class Start(_Msg):
    type: Literal["start"]


class Act(_Msg):
    type: Literal["act"]
    action: dict[str, Any]
    v: StrictInt


class Chat(_Msg):
    type: Literal["chat"]
    text: StrictStr


class Resync(_Msg):
    type: Literal["resync"]


class Ping(_Msg):
    type: Literal["ping"]


ClientMessage = Annotated[
    Union[Sit, Stand, BotMsg, Start, Act, Chat, Resync, Ping], Field(discriminator="type")
]
_parser: TypeAdapter = TypeAdapter(ClientMessage)
KNOWN_TYPES = ("sit", "stand", "bot", "start", "act", "chat", "resync", "ping")


class BadFrame(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_frame(text: str, max_bytes: int) -> _Msg:
    """A typed client message from a text frame, or BadFrame saying what is wrong."""
    if len(text) > max_bytes or len(text.encode()) > max_bytes:
        raise BadFrame("too_large", f"Frames are limited to {max_bytes} bytes.")
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise BadFrame("bad_json", "That frame is not valid JSON.") from None
    if not isinstance(data, dict):
        raise BadFrame("bad_frame", "A frame must be a JSON object with a 'type'.")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_TYPES:
        raise BadFrame("unknown_type", f"Unknown message type {kind!r}; expected one of: {', '.join(KNOWN_TYPES)}.")
    try:
        return _parser.validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ())[1:]) or kind
        raise BadFrame("bad_frame", f"Bad '{kind}' message: {where}: {first.get('msg', 'invalid')}.") from None


class TokenBucket:
    """Frames a connection may send: a sustained rate with a burst."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def _error(code: str, message: str) -> str:
    return orjson.dumps({"type": "error", "code": code, "message": message}).decode()


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    await websocket.accept()
    await websocket.send_text(_error(code, message))
    await websocket.close(close_code)


@ws_router.websocket("/ws/rooms/{code}")
async def room_socket(websocket: WebSocket, code: str) -> None:
    app = websocket.app
    settings = app.state.settings
    room: Room | None = app.state.rooms.get(code)
    if room is None:
        await _refuse(websocket, "not_found", f"There is no open room {code!r}.", 4404)
        return
    token = websocket.query_params.get("token")
    player = None
    if token:
        player = await player_for_token(app, token)
        if player is None:
            await _refuse(websocket, "unauthorized", "That player token is not known here.", CLOSE_POLICY)
            return
    await websocket.accept()

    handler = asyncio.current_task()
    closing = {"code": 1000, "reason": ""}

    def request_close(code: int, reason: str = "") -> None:
        """Send what is queued, then close with ``code`` (frames queued later are dropped)."""
        if not closing.get("requested"):
            closing.update(code=code, reason=reason, requested=True)
            conn.closed = True
            conn.queue.put_nowait(None)

    async def closer(code: int, reason: str) -> None:
        # Used by the room (a client too slow to read, a room closing, shutdown). A client
        # that stopped reading never drains its queue: then give up on it and end the handler.
        request_close(code, reason)
        done, _ = await asyncio.wait({sender_task}, timeout=2)
        if not done and handler is not None:
            handler.cancel()

    conn = Connection(
        player.id if player else None,
        player.name if player else None,
        closer,
        limit=settings.send_queue_limit,
    )

    async def sender() -> None:
        try:
            while True:
                frame = await conn.queue.get()
                if frame is None:
                    break
                await websocket.send_text(frame)
            if websocket.application_state == WebSocketState.CONNECTED:
                await websocket.close(closing["code"], closing["reason"])
        except Exception:  # the peer went away mid-send; the receive loop sees it too
            pass

    sender_task = asyncio.get_running_loop().create_task(sender())
    try:
        await room.join(conn)
    except RoomError as err:
        conn.push(_error(err.code, err.message))
        request_close(CLOSE_POLICY, err.code)
        await asyncio.wait({sender_task})
        return

    bucket = TokenBucket(settings.max_frames_per_second, settings.frame_burst)
    bad_in_a_row = 0
    try:
        while not conn.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                raw = message.get("bytes") or b""
                text = raw.decode("utf-8", "replace") if len(raw) <= settings.max_frame_bytes else "x" * (settings.max_frame_bytes + 1)
            try:
                if not bucket.take():
                    raise BadFrame("rate_limited", "Too many messages: slow down.")
                msg = parse_frame(text, settings.max_frame_bytes)
            except BadFrame as err:
                bad_in_a_row += 1
                conn.push(_error(err.code, err.message))
                if bad_in_a_row >= settings.max_bad_frames:
                    request_close(CLOSE_POLICY, "too many bad frames")
                    break
                continue
            bad_in_a_row = 0
            try:
                await _dispatch(room, conn, msg)
            except (RoomError, GameError) as err:
                conn.push(_error(err.code, str(err.message if isinstance(err, RoomError) else err)))
            except Exception:
                log.exception("room %s: unexpected error handling %s", room.code, type(msg).__name__)
                conn.push(_error("internal", "Something went wrong on the server; nothing changed."))
    except WebSocketDisconnect:
        pass
    except asyncio.CancelledError:
        pass
    finally:
        await room.leave(conn)
        if not sender_task.done():
            request_close(1000)
            try:
                done, _ = await asyncio.wait({sender_task}, timeout=2)
            except asyncio.CancelledError:
                done = set()
            if not done:
                sender_task.cancel()


async def _dispatch(room: Room, conn: Connection, msg: _Msg) -> None:
    if isinstance(msg, Act):
        await room.act(conn, msg.action, msg.v)
    elif isinstance(msg, Chat):
        await room.say(conn, msg.text)
    elif isinstance(msg, Resync):
        await room.resync(conn)
    elif isinstance(msg, Ping):
        conn.push('{"type":"pong"}')
    elif isinstance(msg, Sit):
        await room.sit(conn, msg.seat)
    elif isinstance(msg, Stand):
        await room.stand(conn)
    elif isinstance(msg, BotMsg):
        await room.set_bot(conn, msg.seat, msg.remove)
    elif isinstance(msg, Start):
        await room.start(conn)
