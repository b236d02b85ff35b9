"""The WebSocket edge: ``/ws/rooms/{code}?token=...`` (or the token as a subprotocol).

It parses each frame into a typed message, hands it to the room, and turns every refusal
(a bad frame, a room rule, a game rule) into an ``error`` frame in this one place. Each
socket has its own outbound queue and sender task; nothing here knows any game. It speaks
plain ASGI (``RoomSockets``, a middleware the app adds), not through Starlette's WebSocket.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from typing import Any
from urllib.parse import unquote_plus

from server.edges.transport import LOAD
from server.games import GameError
from server.limits import CONNECTS, LOOKUPS, TOKEN_CONNECTS, OpenSockets, budget_key
from server.log_entry import StoreUnavailable
from server.players import CLOSE_REVOKED, REVOKED_REASON, DeviceSockets, player_for_token, save_prefs
from server.rooms import Connection, Room, RoomError
from server.rooms.messages import (
    PONG,
    Act,
    AllowSeat,
    BotMsg,
    Chat,
    Claim,
    ClientMsg,
    Close,
    JoinNext,
    Leave,
    Ping,
    Prefs,
    Preselect,
    Reclaim,
    Resync,
    Sit,
    Stand,
    Start,
    TakeSeat,
    Undo,
    UndoAnswer,
    error_frame,
    parse_frame,
)
from server.rooms.seats import quoted
from server.rooms.watching import SENT_AWAY
from server.storage import groups

log = logging.getLogger("felt.ws")

CLOSE_POLICY = 1008
CLOSE_TRY_AGAIN = 1013


class TokenBucket:
    """Frames a connection may send: a sustained rate with a burst."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

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


ROOM_PATH = "/ws/rooms/"
SUBPROTOCOL = "felt"  # answered when offered; the token may ride next to it (see ``_token``)
TOKEN_SUBPROTOCOL = "felt-token."


class RoomSockets:
    """ASGI middleware that serves ``/ws/rooms/{code}`` itself; everything else goes on to the app.

    A room socket sends a frame per change to every connection, so it talks to the server's
    own ASGI ``send`` and ``receive``: Starlette's ``WebSocket`` class and its exception
    wrappers would add three awaited layers to every frame and keep nothing we use. Added
    with ``app.add_middleware``, it runs outside the app's exception middleware (which
    passes WebSockets through untouched) and finds the app in ``scope["app"]``.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            path: str = scope["path"]
            if path.startswith(ROOM_PATH):
                code = path[len(ROOM_PATH) :]
                if code and "/" not in code:
                    await RoomSocket(scope, receive, send).serve(code)
                    return
        await self.app(scope, receive, send)


class RoomSocket:
    """One WebSocket to one room: the receive loop here, the sender task draining its queue."""

    __slots__ = (
        "close_code",
        "close_reason",
        "close_requested",
        "conn",
        "handler",
        "metrics",
        "peer_gone",
        "receive",
        "scope",
        "send",
        "sender_task",
    )

    def __init__(self, scope: dict, receive: Any, send: Any) -> None:
        self.scope = scope
        self.receive = receive
        self.send = send
        self.conn: Connection | None = None
        self.close_requested = False
        self.close_code = 1000
        self.close_reason = ""
        self.peer_gone = False  # the client closed or vanished: nothing more can be sent
        self.sender_task: asyncio.Task | None = None
        self.handler: asyncio.Task | None = None
        self.metrics: Any = None  # the app's Metrics, when it has them

    def _refused(self, code: str) -> None:
        if self.metrics is not None:
            self.metrics.refused("ws", code)

    def _push_error(self, conn: Connection, code: str, message: str) -> None:
        self._refused(code)
        conn.push(error_frame(code, message))

    async def _send_text(self, text: str) -> None:
        await self.send({"type": "websocket.send", "text": text})

    async def _close(self, code: int, reason: str = "") -> None:
        if not self.peer_gone:
            self.peer_gone = True
            await self.send({"type": "websocket.close", "code": code, "reason": reason})

    async def _accept(self) -> None:
        """Accept the handshake, naming the ``felt`` subprotocol when the client offered it (a
        browser fails a handshake that leaves a subprotocol it offered unanswered)."""
        if SUBPROTOCOL in self.scope.get("subprotocols", ()):
            await self.send({"type": "websocket.accept", "subprotocol": SUBPROTOCOL})
        else:
            await self.send({"type": "websocket.accept"})

    async def _refuse(self, code: str, message: str, close_code: int) -> None:
        self._refused(code)
        await self._accept()
        await self._send_text(error_frame(code, message))
        await self._close(close_code)

    def request_close(self, code: int, reason: str = "") -> None:
        """Send what is queued, then close with ``code`` (frames queued later are dropped)."""
        # Keyed on its own flag: the room marks a connection closed before it calls the closer
        # (a client too slow to read), and the sender must still get the closing sentinel.
        conn = self.conn
        if conn is not None and not self.close_requested:
            self.close_requested = True
            self.close_code, self.close_reason = code, reason
            conn.closed = True
            conn.queue.put_nowait(None)

    async def closer(self, code: int, reason: str) -> None:
        # Used by the room (a client too slow to read, a room closing, shutdown). A client
        # that stopped reading never drains its queue: then give up on it and end the handler.
        if code == CLOSE_POLICY:  # a watcher the table sends away at its start is counted apart
            self._refused("no_watchers" if reason == SENT_AWAY else "too_slow")
        self.request_close(code, reason)
        if self.sender_task is None:
            return
        done, _ = await asyncio.wait({self.sender_task}, timeout=2)
        if not done and self.handler is not None:
            self.handler.cancel()

    async def _sender(self) -> None:
        conn = self.conn
        assert conn is not None
        queue = conn.queue
        send = self.send
        try:
            while True:
                frames = queue.take_all()
                if not frames:
                    await queue.arrival()
                    continue
                for frame in frames:
                    if frame is None:  # request_close: what was queued before is sent
                        await self._close(self.close_code, self.close_reason)
                        return
                    await send({"type": "websocket.send", "text": frame})
                del frame  # not held while the socket waits for the next: ~1 KB a playing socket
        except Exception:  # noqa: BLE001 - the peer went away mid-send (each server says so its own way)
            self.peer_gone = True

    async def serve(self, code: str) -> None:
        first = await self.receive()
        if first["type"] != "websocket.connect":
            return
        app = self.scope["app"]
        settings = app.state.settings
        self.metrics = getattr(app.state, "metrics", None)
        limiter = getattr(app.state, "limiter", None)
        address = budget_key(app.state.addresses.of(self.scope)) if limiter is not None else ""
        if limiter is not None and limiter.take(CONNECTS, address) > 0:
            await self._refuse(
                "rate_limited", "Too many connections from your address; wait a moment.", CLOSE_TRY_AGAIN
            )
            return
        room = await self._find_room(app, code, limiter, address)
        if room is None:
            return
        player = await self._player(app, room, limiter)
        if player is False:
            return
        sockets: OpenSockets | None = getattr(app.state, "open_sockets", None)
        admitted, counted = await self._admitted(room, player, sockets, address, settings)
        if not admitted:
            return
        await self._accept()
        if self.metrics is not None:
            self.metrics.sockets.inc()
        device = player.device if player else None
        try:
            await self._attached(room, player, settings, app.state.device_sockets if device else None)
        finally:
            if device is not None:
                app.state.device_sockets.remove(device, self.closer)
            if counted:
                sockets.close(address)  # type: ignore[union-attr]
            if self.metrics is not None:
                self.metrics.sockets.dec()
            self._forget()

    def _forget(self) -> None:
        """Drop the references that made this socket a cycle (its connection's closer is this
        socket's method; its tasks' frames held it), so that it and everything it reaches,
        the protocol and transport included, are freed as soon as the socket ends, not at
        the next full collection (the server freezes survivors every second: ``CollectorTender``)."""
        if self.conn is not None:
            self.conn.closer = _closed
            self.conn = None
        self.sender_task = None
        self.handler = None

    async def _player(self, app: Any, room: Room, limiter: Any) -> Any:
        """The player of the socket's token (see ``_token``), None without one, or False once the
        socket is refused (a token reconnecting too often, unknown, or not checkable now)."""
        token = _token(self.scope)
        if not token:
            return None
        if limiter is not None and limiter.take(TOKEN_CONNECTS, _digest(token)) > 0:
            await self._refuse("rate_limited", "Too many connections with your token; wait a moment.", CLOSE_TRY_AGAIN)
            return False
        try:
            player = await player_for_token(app, token)
        except StoreUnavailable as exc:
            log.warning("socket to room %s: the database is unavailable: %s", room.code, exc)
            if self.metrics is not None:
                self.metrics.database_errors += 1
            await self._refuse("unavailable", "The database is unavailable; try again shortly.", CLOSE_TRY_AGAIN)
            return False
        if player is None:
            await self._refuse("unauthorized", "That player token is not known here.", CLOSE_POLICY)
            return False
        return player

    async def _admitted(
        self, room: Room, player: Any, sockets: OpenSockets | None, address: str, settings: Any
    ) -> tuple[bool, bool]:
        """Whether the socket may open (it is refused otherwise), and whether it was counted
        against its address's cap. A table's players (``Room.may_sit``) always get in: people
        watching are refused first when the server is crowded, and only they are counted."""
        if room.may_sit(player.id if player else None):
            return True, False
        if not await self._may_watch(room, player):
            return False, False
        if LOAD.crowded():
            await self._refuse(
                "overloaded", "The server is full; only the tables' players get in now.", CLOSE_TRY_AGAIN
            )
            return False, False
        if sockets is None:
            return True, False
        if not sockets.open(address, settings.max_sockets_per_address):
            await self._refuse("too_many_sockets", "Your address has too many sockets open.", CLOSE_POLICY)
            return False, False
        return True, True

    async def _may_watch(self, room: Room, player: Any) -> bool:
        """Whether the table lets this socket, which has no seat there, watch (its ``watchers``
        option: server/rooms/watching.py); refused with ``no_watchers`` otherwise."""
        watching = room.table.watching
        member = False
        if watching.watchers == "members" and watching.group is not None and player is not None:
            db = self.scope["app"].state.db
            code, player_id = watching.group, player.id

            def role() -> str | None:
                with db.session() as session:
                    return groups.role_of(session, code, player_id)

            try:
                member = await db.call(role) is not None
            except StoreUnavailable:
                await self._refuse("unavailable", "The database is unavailable; try again shortly.", CLOSE_TRY_AGAIN)
                return False
        if watching.admits(member):
            return True
        refusal = watching.refusal()
        await self._refuse(refusal.code, refusal.message, CLOSE_POLICY)
        return False

    async def _find_room(self, app: Any, code: str, limiter: Any, address: str) -> Room | None:
        """The open room ``code``, or None once the socket is refused (unknown, too many misses,
        or the table store unreachable)."""
        if limiter is not None and limiter.wait(LOOKUPS, address) > 0:
            await self._refuse(
                "rate_limited", "Too many unknown room codes from your address; wait a while.", CLOSE_POLICY
            )
            return None
        try:
            room: Room | None = await app.state.rooms.open(code)
        except RoomError as err:  # the table store is unreachable: the client retries
            await self._refuse(err.code, err.message, CLOSE_TRY_AGAIN)
            return None
        if room is None:
            if limiter is not None:
                limiter.take(LOOKUPS, address)
            await self._refuse("not_found", f"There is no open room {quoted(code)}.", 4404)
        return room

    async def _attached(self, room: Room, player: Any, settings: Any, devices: DeviceSockets | None) -> None:
        """The accepted socket's life in its room: join, the receive loop, leave."""
        self.handler = asyncio.current_task()
        conn = self.conn = Connection(
            player.id if player else None,
            player.name if player else None,
            self.closer,
            limit=settings.send_queue_limit,
            prefs=player.prefs if player else None,
        )
        sender_task = self.sender_task = asyncio.get_running_loop().create_task(self._sender())
        # Revoking the device closes this socket (server/players.py); a device revoked while
        # this socket was being let in is closed at once.
        if devices is not None and not devices.add(player.device, self.closer):
            self.request_close(CLOSE_REVOKED, REVOKED_REASON)
        try:
            await room.join(conn)
        except RoomError as err:
            self._push_error(conn, err.code, err.message)
            self.request_close(CLOSE_POLICY, err.code)
            await asyncio.wait({sender_task})
            return
        try:
            await self._receive_loop(room, conn, settings)
        except asyncio.CancelledError:
            pass
        finally:
            await room.leave(conn)
            if not sender_task.done():
                self.request_close(1000)
                try:
                    done, _ = await asyncio.wait({sender_task}, timeout=2)
                except asyncio.CancelledError:
                    done = set()
                if not done:
                    sender_task.cancel()

    async def _receive_loop(self, room: Room, conn: Connection, settings: Any) -> None:
        receive = self.receive
        max_bytes = settings.max_frame_bytes
        bucket = TokenBucket(settings.max_frames_per_second, settings.frame_burst)
        bad_in_a_row = 0
        timing = self.metrics.action_seconds if self.metrics is not None else None
        # The last frame read, as text and parsed, is let go before waiting for the next: a
        # playing room's four sockets held about 0.5 KB of them between moves.
        message: dict | None = None
        text: str | None = None
        msg: ClientMsg | None = None
        while not conn.closed:
            message = text = msg = None
            message = await receive()
            arrived = time.perf_counter()
            kind = message["type"]
            if kind == "websocket.disconnect":
                self.peer_gone = True
                break
            if kind != "websocket.receive":
                continue
            text = message.get("text")
            if text is None:
                raw = message.get("bytes") or b""
                text = raw.decode("utf-8", "replace") if len(raw) <= max_bytes else "x" * (max_bytes + 1)
            try:
                if not bucket.take():
                    raise RoomError("rate_limited", "Too many messages: slow down.", 429)
                msg = parse_frame(text, max_bytes)
            except RoomError as err:
                bad_in_a_row += 1
                self._push_error(conn, err.code, err.message)
                if bad_in_a_row >= settings.max_bad_frames:
                    self.request_close(CLOSE_POLICY, "too many bad frames")
                    break
                continue
            bad_in_a_row = 0
            try:
                if type(msg) is Prefs:
                    await _prefs(self.scope["app"], room, conn, msg)
                else:
                    await _dispatch(room, conn, msg)
            except RoomError as err:
                self._push_error(conn, err.code, err.message)
                if err.code == "unavailable":  # the database is down: the client retries later
                    self.request_close(CLOSE_TRY_AGAIN, err.code)
                    break
                continue
            except GameError as err:
                self._push_error(conn, err.code, str(err))
                continue
            except Exception:
                log.exception("room %s: unexpected error handling %s", room.code, type(msg).__name__)
                self._push_error(conn, "internal", "Something went wrong on the server; nothing changed.")
                continue
            if timing is not None and type(msg) is Act:
                timing.observe(time.perf_counter() - arrived)


def _token(scope: dict) -> str | None:
    """The socket's token: the URL's ``token`` parameter, else the subprotocol
    ``felt-token.<token>`` offered next to ``felt``. The browser client sends it the second way,
    so the token is in no URL (a browser prints a failed socket's URL in its console)."""
    found = _query_token(scope)
    if found:
        return found
    offered: str
    for offered in scope.get("subprotocols", ()):
        if offered.startswith(TOKEN_SUBPROTOCOL) and len(offered) > len(TOKEN_SUBPROTOCOL):
            return offered[len(TOKEN_SUBPROTOCOL) :]
    return None


def _query_token(scope: dict) -> str | None:
    """The ``token`` query parameter of the socket's URL, if any.

    Only the name spelled exactly ``token`` counts: a name spelled with escapes
    (``%74oken``) is not the credential, so nothing that the access log could print in a
    form its redaction does not know is ever accepted as one.
    """
    query = scope.get("query_string", b"")
    if not query:
        return None
    found = None
    for part in query.decode("latin-1").split("&"):
        name, sep, value = part.partition("=")
        if sep and name == "token" and value:
            found = unquote_plus(value)
    return found


async def _closed(code: int, reason: str) -> None:
    """The closer of a connection whose socket has ended: nothing is left to close."""


def _digest(token: str) -> str:
    """A token's key in the rate limiter: never the token itself (a shared limiter stores it)."""
    return hashlib.blake2b(token.encode(), digest_size=16).hexdigest()


async def _dispatch(room: Room, conn: Connection, msg: ClientMsg) -> None:
    if isinstance(msg, Act):
        await room.act(conn, msg.action, msg.v)
    elif isinstance(msg, Chat):
        await room.say(conn, msg.text)
    elif isinstance(msg, Resync):
        await room.resync(conn)
    elif isinstance(msg, Ping):
        conn.push(PONG)
    elif isinstance(msg, Sit):
        await room.sit(conn, msg.seat)
    elif isinstance(msg, Stand):
        await room.stand(conn)
    elif isinstance(msg, BotMsg):
        await room.set_bot(conn, msg.seat, msg.remove, msg.level)
    elif isinstance(msg, Start):
        await room.start(conn)
    elif isinstance(msg, Leave):
        await room.leave_table(conn.player_id)
    elif isinstance(msg, Close):
        await room.close_table(conn.player_id)
    else:
        await _dispatch_seats(room, conn, msg)


async def _prefs(app: Any, room: Room, conn: Connection, msg: Prefs) -> None:
    """The player's own settings: stored with the player, then shown at this table."""
    if conn.player_id is None:
        raise RoomError("players_only", "Only a player has settings to keep.", 403)
    try:
        await save_prefs(app, conn.player_id, msg.autoplay_forced)
    except StoreUnavailable:
        raise RoomError("unavailable", "The database is unavailable; try again shortly.", 503) from None
    await room.courtesies.set_prefs(conn.player_id, {"autoplay_forced": msg.autoplay_forced})


async def _dispatch_seats(room: Room, conn: Connection, msg: ClientMsg) -> None:
    """The messages that hand a seat over during play (or at the next game), and a player's
    courtesies at the table (take-backs, a card chosen ahead)."""
    if isinstance(msg, Undo):
        await room.courtesies.undo(conn)
    elif isinstance(msg, UndoAnswer):
        await room.courtesies.undo_answer(conn, msg.accept)
    elif isinstance(msg, Preselect):
        await room.courtesies.preselect(conn, msg.card)
    elif isinstance(msg, Reclaim):
        await room.takeover.reclaim(conn)
    elif isinstance(msg, TakeSeat):
        await room.takeover.take_seat(conn, msg.seat)
    elif isinstance(msg, AllowSeat):
        await room.takeover.allow_seat(conn, msg.player_id, msg.allow)
    elif isinstance(msg, JoinNext):
        await room.takeover.join_next(conn)
    elif isinstance(msg, Claim):
        await room.claims.claim(conn)
