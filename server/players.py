"""The players' part: who a bearer token belongs to, and which sockets each device holds.

Tokens are stored hashed, one per device; a player found once is remembered in memory (keyed
by the token's hash, so the cache holds no secret) for ``KNOWN_FOR_S`` at most, and the
database is asked off the event loop (while it is down, a token known before still counts).
Revoking a device forgets its token here and closes the
sockets it holds at once; in cluster mode every node is told through Redis and does the same
(``DeviceSockets.revoked``), so the token stops working on every node.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from server.log_entry import StoreUnavailable
from server.storage import devices
from server.storage.db import Database

log = logging.getLogger("felt.players")

# The close code a revoked device's sockets get: policy, and the client does not come back.
CLOSE_REVOKED = 1008
REVOKED_REASON = "this device was signed out"


@dataclass(frozen=True, slots=True)
class Caller:
    """The player a request or a socket speaks for, and the device it speaks from."""

    id: str
    name: str
    device: str | None = None
    autoplay_forced: bool = False  # the player's own setting (``save_prefs``)

    @property
    def prefs(self) -> dict:
        """The player's own settings, as their view at a table shows them."""
        return {"autoplay_forced": self.autoplay_forced}


_known: dict[str, tuple[Caller, float]] = {}
_KNOWN_MAX = 50_000
# A remembered token is looked up again after this long: the bound on how stale a name (or,
# if a node missed a revocation while Redis was away, a token) can be on another node.
KNOWN_FOR_S = 60.0


def token_key(token: str) -> str:
    """A token's key in the cache: its SHA-256, as the database keeps it."""
    return hashlib.sha256(token.encode()).hexdigest()


async def player_for_token(app: Any, token: str | None) -> Caller | None:
    """The player holding ``token``, or None (a player, once found, is remembered a while)."""
    if not token or len(token) > 256:
        return None
    key = token_key(token)
    known = _known.get(key)
    now = time.monotonic()
    if known is not None and known[1] > now:
        return known[0]
    db: Database = app.state.db

    def find() -> Caller | None:
        with db.session() as session:
            found = devices.by_token(session, token)
            if found is None:
                return None
            player, device = found
            return Caller(player.id, player.name, device.id, bool(player.autoplay_forced))

    try:
        caller = await db.call(find)
    except StoreUnavailable:
        if known is not None:  # the database is away: a token known a minute ago still counts
            return known[0]
        raise
    if caller is None:
        _known.pop(key, None)
        return None
    if len(_known) >= _KNOWN_MAX:
        _known.clear()
    _known[key] = (caller, now + KNOWN_FOR_S)
    return caller


async def save_prefs(app: Any, player_id: str, autoplay_forced: bool) -> None:
    """Keep the player's own settings (for every table); their tokens are looked up afresh."""
    db = app.state.db

    def save() -> None:
        with db.session() as session:
            devices.save_prefs(session, player_id, autoplay_forced)

    await db.call(save)
    forget_player(player_id)


def forget_token(token_hash: str) -> None:
    """This process no longer vouches for the token with this hash."""
    _known.pop(token_hash, None)


def forget_player(player_id: str) -> None:
    """Look every token of this player up again (its name changed)."""
    for key in [k for k, (caller, _) in _known.items() if caller.id == player_id]:
        _known.pop(key, None)


Closer = Callable[[int, str], Awaitable[None]]


class DeviceSockets:
    """The room sockets each device holds open in this process (by device id), so that a
    revoked device's are closed at once. The rooms know nothing of it: the socket edge adds
    and removes its own closer."""

    __slots__ = ("_open", "_revoked")

    # Devices revoked lately, remembered so that a socket let in just before its device was
    # revoked (its token checked, its closer not yet added) is closed all the same.
    REVOKED_KEPT = 10_000

    def __init__(self) -> None:
        self._open: dict[str, set[Closer]] = {}
        self._revoked: set[str] = set()

    def add(self, device: str, closer: Closer) -> bool:
        """Count a socket of ``device``; False (nothing counted) when the device is revoked."""
        if device in self._revoked:
            return False
        self._open.setdefault(device, set()).add(closer)
        return True

    def remove(self, device: str, closer: Closer) -> None:
        held = self._open.get(device)
        if held is not None:
            held.discard(closer)
            if not held:
                del self._open[device]

    def held(self, device: str) -> int:
        return len(self._open.get(device, ()))

    async def revoked(self, device: str, token_hash: str) -> int:
        """Forget the device's token and close its sockets here; how many were closed."""
        forget_token(token_hash)
        if len(self._revoked) >= self.REVOKED_KEPT:
            self._revoked.clear()
        self._revoked.add(device)
        closers = list(self._open.pop(device, ()))
        for closer in closers:
            await closer(CLOSE_REVOKED, REVOKED_REASON)
        return len(closers)


async def device_revoked(app: Any, device: str, token_hash: str) -> None:
    """A device was revoked in the database: stop honouring it here and, in cluster mode,
    tell every other node to do the same."""
    await app.state.device_sockets.revoked(device, token_hash)
    await _tell_cluster(app, "revoke", device, token_hash)


async def player_renamed(app: Any, player_id: str) -> None:
    """A player's name changed: its tokens are looked up again here and on every node."""
    forget_player(player_id)
    await _tell_cluster(app, "renamed", player_id)


async def _tell_cluster(app: Any, verb: str, *args: str) -> None:
    """Publish to every node; with Redis away the change is already in the database, and other
    nodes look every token up again within ``KNOWN_FOR_S``."""
    cluster = getattr(app.state, "cluster", None)
    if cluster is None:
        return
    from redis.exceptions import RedisError  # here: a single node never loads the Redis client

    try:
        await cluster.bus.publish_players(verb, *args)
    except (RedisError, OSError, TimeoutError) as exc:  # Redis unreachable: the others see it later
        log.warning("could not tell the other nodes (%s): %s; they see it within %.0f s", verb, exc, KNOWN_FOR_S)


def on_cluster_message(app: Any) -> Callable[[str, list[str]], Awaitable[None]]:
    """What this node does when another announces a revoked device or a renamed player."""

    async def handle(verb: str, args: list[str]) -> None:
        if verb == "revoke" and len(args) == 2:
            await app.state.device_sockets.revoked(args[0], args[1])
        elif verb == "renamed" and len(args) == 1:
            forget_player(args[0])
        else:
            log.warning("unknown players message %r from the cluster", verb)

    return handle
