"""A table's seats and its match in play, and the small helpers a room needs (codes, seeds, text)."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime

import orjson

# No 0/O, 1/I/L: codes are read aloud and typed. 31 symbols ** 8 > 2**39.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8
# The longest string looked up as a code: anything longer (or outside the alphabet) is no
# table's code, so no store or cluster is asked about it.
CODE_MAX_LENGTH = 16


def new_room_code() -> str:
    """A short, unguessable room code (about 40 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def is_room_code(code: str) -> bool:
    """Whether a string, exactly as written, could be a table's code (the alphabet, at most
    16 long). Nothing is trimmed or upper-cased: the balancer routes a table by the code in
    the path, so a code is one spelling only (docs/scaling.md)."""
    return 0 < len(code) <= CODE_MAX_LENGTH and all(ch in CODE_ALPHABET for ch in code)


def quoted(text: str, limit: int = 24) -> str:
    """``text`` quoted for an error message, cut to ``limit`` characters: a message names what
    was asked for without echoing a client's 16 KiB back."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def new_seed() -> str:
    """A match seed from the operating system's secure random source (128 bits)."""
    return str(secrets.randbits(128))


def seed_commitment(seed: str) -> str:
    """The SHA-256 commitment to a seed, shown when the match starts."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def clean_text(text: str, limit: int) -> str:
    """Strip control characters and surrounding space; cut to ``limit`` characters."""
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " ")
    return " ".join(kept.split())[:limit]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class Seat:
    index: int
    player_id: str | None = None
    name: str | None = None
    bot: bool = False
    level: str | None = None  # a bot seat's level: "easy" or "strong"
    away: bool = False  # a dropped player's seat, played by a bot until they return
    connections: int = 0
    dropped_at: float | None = None
    left_by: str | None = None  # who left this seat during play (a bot keeps it): theirs to take back

    @property
    def is_botted(self) -> bool:
        return self.bot or self.away


@dataclass(slots=True)
class Match:
    """The match in play: what storage needs when it ends."""

    id: str
    seed: str
    commitment: str
    dealer: int
    started_at: datetime
    players: list[dict] = field(default_factory=list)
    finished_at: datetime | None = None
    moves: int = 0  # the actions logged so far
    # Who took a seat over during play, in order: {"seat", "from" (the index of the first action
    # that is theirs), "hand" and "at" (that point as the hand's number and its log's length),
    # "name", "player_id", "bot", "level"}.
    takeovers: list[dict] = field(default_factory=list)
    # The action log as JSON, '{"seat":S,"action":{...}},' per move: about 45 bytes a move
    # where a list of dicts held about 420 (a long match's log is most of a room's memory).
    log: bytearray = field(default_factory=bytearray)

    def log_action(self, seat: int, encoded_action: bytes) -> None:
        """Append one applied action (``encoded_action`` is its JSON)."""
        self.log += b'{"seat":%d,"action":' % seat
        self.log += encoded_action
        self.log += b"},"
        self.moves += 1

    def actions(self) -> list[dict]:
        """The whole log, in order: ``{"seat", "action"}`` per move."""
        if not self.log:
            return []
        moves: list[dict] = orjson.loads(b"[" + self.log[:-1] + b"]")
        return moves

    def took_over(self, seat: int, name: str, player_id: str | None, bot: bool, hand: int, at: int) -> None:
        """``seat`` changes hands now, the ``at``-th move of hand ``hand`` (a new list: the
        room part built from it is compared by identity)."""
        level = "easy" if bot else None
        taken = {"seat": seat, "from": self.moves, "hand": hand, "at": at, "name": name}
        self.takeovers = [*self.takeovers, {**taken, "player_id": player_id, "bot": bot, "level": level}]

    def occupants(self, seat: int) -> list[dict]:
        """Who made a seat's decisions: who sat there at the start (``from`` 0), then each who
        took it over, with the index of the first action that was theirs."""
        start = self.players[seat]
        first = {"from": 0, **{k: start[k] for k in ("name", "player_id", "bot", "level")}}
        later = [
            {k: t[k] for k in ("from", "name", "player_id", "bot", "level")}
            for t in self.takeovers
            if t["seat"] == seat
        ]
        return [first, *later]
