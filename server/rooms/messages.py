"""The wire messages of a room socket: what clients send (typed, checked) and what they get.

``parse_frame`` turns a text frame into one typed client message or raises ``RoomError``
saying what is wrong; the frame encoders below are the only places that shape server frames.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError

from server.rooms.errors import RoomError


class ClientMsg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sit(ClientMsg):
    type: Literal["sit"]
    seat: StrictInt


class Stand(ClientMsg):
    type: Literal["stand"]


class BotMsg(ClientMsg):
    type: Literal["bot"]
    seat: StrictInt
    remove: StrictBool = False
    level: Literal["easy", "strong"] = "easy"


class Start(ClientMsg):
    type: Literal["start"]


class Act(ClientMsg):
    type: Literal["act"]
    action: dict[str, Any]
    v: StrictInt


class Chat(ClientMsg):
    type: Literal["chat"]
    text: StrictStr


class Resync(ClientMsg):
    type: Literal["resync"]


class Ping(ClientMsg):
    type: Literal["ping"]


class Leave(ClientMsg):
    """Leave the table for good: before the start your seat empties, during play a bot keeps it."""

    type: Literal["leave"]


class Close(ClientMsg):
    """Host only, before the start: close the table for everyone."""

    type: Literal["close"]


class Reclaim(ClientMsg):
    """During play: take back the seat you left from the bot that kept it."""

    type: Literal["reclaim"]


class TakeSeat(ClientMsg):
    """During play, a spectator: take a bot's seat (or ask the host for it)."""

    type: Literal["take_seat"]
    seat: StrictInt


class AllowSeat(ClientMsg):
    """Host only: answer a spectator's request for a bot's seat."""

    type: Literal["allow_seat"]
    player_id: StrictStr
    allow: StrictBool = True


class JoinNext(ClientMsg):
    """A spectator: be seated at this table's "Play again", in a bot's seat."""

    type: Literal["join_next"]


class Claim(ClientMsg):
    """A seated player claims every remaining trick of the hand for their side."""

    type: Literal["claim"]


class Preselect(ClientMsg):
    """Choose your next card before your turn (null: clear it)."""

    type: Literal["preselect"]
    card: Annotated[str, Field(max_length=8)] | None


class Prefs(ClientMsg):
    """Your own settings, kept with your player for every table."""

    type: Literal["prefs"]
    autoplay_forced: StrictBool


class Undo(ClientMsg):
    """Ask to take back your action, the table's last."""

    type: Literal["undo"]


class UndoAnswer(ClientMsg):
    """Agree (or not) that the last action be taken back, when you are asked."""

    type: Literal["undo_answer"]
    accept: StrictBool


ClientMessage = Annotated[
    Sit
    | Stand
    | BotMsg
    | Start
    | Act
    | Chat
    | Resync
    | Ping
    | Leave
    | Close
    | Reclaim
    | TakeSeat
    | AllowSeat
    | JoinNext
    | Claim
    | Preselect
    | Prefs
    | Undo
    | UndoAnswer,
    Field(discriminator="type"),
]
_parser: TypeAdapter = TypeAdapter(ClientMessage)
KNOWN_TYPES = (
    "sit",
    "stand",
    "bot",
    "start",
    "act",
    "chat",
    "resync",
    "ping",
    "leave",
    "close",
    "reclaim",
    "take_seat",
    "allow_seat",
    "join_next",
    "claim",
    "preselect",
    "prefs",
    "undo",
    "undo_answer",
)


def parse_frame(text: str, max_bytes: int) -> ClientMsg:
    """A typed client message from a text frame, or RoomError saying what is wrong."""
    if len(text) > max_bytes or len(text.encode()) > max_bytes:
        raise RoomError("too_large", f"Frames are limited to {max_bytes} bytes.", 413)
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise RoomError("bad_json", "That frame is not valid JSON.", 400) from None
    if not isinstance(data, dict):
        raise RoomError("bad_frame", "A frame must be a JSON object with a 'type'.", 400)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_TYPES:
        raise RoomError(
            "unknown_type", f"Unknown message type {kind!r}; expected one of: {', '.join(KNOWN_TYPES)}.", 400
        )
    try:
        msg: ClientMsg = _parser.validate_python(data)
        return msg
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ())[1:]) or kind
        raise RoomError("bad_frame", f"Bad '{kind}' message: {where}: {first.get('msg', 'invalid')}.", 400) from None


def error_frame(code: str, message: str) -> str:
    """An ``error`` frame: a refused message; nothing changed."""
    return orjson.dumps({"type": "error", "code": code, "message": message}).decode()


def snapshot_frame(version: int, state: dict) -> str:
    """A ``snapshot`` frame: the whole view of one connection at ``version``."""
    return orjson.dumps({"type": "snapshot", "v": version, "state": state}).decode()


PONG = '{"type":"pong"}'
