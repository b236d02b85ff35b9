"""The server's two socket protocols: uvicorn's, with the limits a public server needs.

uvicorn's HTTP protocol has no timeout for a request's headers (a connection that sends half
a request line is held forever: slowloris), no cap on header size (httptools has none), and
refuses WebSocket upgrades past no connection limit at all. Its WebSocket protocol buffers
frames for a client that never reads, and a socket closed with frames still buffered is
held open until they drain, which for a client that stopped reading is never.

``protocols(settings, max_connections)`` gives the two classes ``python -m server`` passes to
uvicorn (``http=``, ``ws=``):

- ``GuardedHttp``: the headers of each request must arrive within ``header_timeout_s`` and
  fit in ``max_header_bytes`` (else 431); past ``max_connections`` open connections, requests
  other than ``/healthz`` get a JSON 503 and WebSocket upgrades are refused the same way;
  past that plus a small reserve a new connection is cut at once, so descriptors stay free
  for the server's own files and database connections.
  A connection closed while its client may still be sending (an answer given before the
  request's body was all read: 413, 408, 431) is closed lingering, as nginx does: the
  answer goes out, then the server's side is shut (FIN), what still arrives is read and
  dropped for at most ``LINGER_S`` or until the client ends its side, and only then is the
  socket closed. Closed at once, the kernel would answer the unread bytes with a reset that
  destroys the answer before the client has read it.
- ``LOAD`` tells the WebSocket edge when open connections pass
  ``spectator_connections_share`` of the cap: from there on, only the players of a table
  get in, so people watching can never fill the capacity its players need.
- ``GuardedWebSocket``: each socket's kernel send buffer is bounded; a send that cannot
  proceed for ``ws_send_timeout_s`` (the client's backlog is not draining) cuts the socket,
  and a socket whose application has finished is aborted if it is still open after that
  long, so a client that stopped reading is gone within a bounded time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from typing import Any, cast

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.config import Settings

log = logging.getLogger("felt.transport")

HEALTH_PATH = b"/healthz"
# Connections past the cap still get a 503 (or /healthz its answer); past the cap plus this
# many they are cut without a word.
OVERFLOW = 256
# How long a connection refused mid-body reads and drops what its client still sends before
# it is closed (nginx's lingering_timeout is 5 s too).
LINGER_S = 5.0


def _json_response(status: int, reason: bytes, code: str, message: str, extra: bytes = b"") -> bytes:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    head = b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n" % (status, reason, len(body))
    return head + extra + b"connection: close\r\n\r\n" + body


OVERLOADED = _json_response(
    503,
    b"Service Unavailable",
    "overloaded",
    "The server has too many open connections; try again shortly.",
    b"retry-after: 5\r\n",
)
HEADERS_TOO_LARGE = _json_response(
    431, b"Request Header Fields Too Large", "headers_too_large", "The request's headers are too large."
)


async def _overloaded_app(scope: dict, receive: Any, send: Any) -> None:
    body = OVERLOADED.split(b"\r\n\r\n", 1)[1]
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"5"), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Load:
    """How full the server is, for the edges that shed the least needed sockets first.

    ``connections`` is uvicorn's set of open connections (HTTP and WebSocket), shared by
    every protocol instance; it stays None where the app runs without these protocols.
    """

    __slots__ = ("connections", "spectator_limit")

    def __init__(self) -> None:
        self.connections: set | None = None
        self.spectator_limit = 0

    def crowded(self) -> bool:
        """Past the share of the cap that sockets of people who may not sit may fill."""
        return self.connections is not None and len(self.connections) > self.spectator_limit


LOAD = Load()


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header deadline, a header size cap and a connection cap."""

    header_timeout_s = 10.0
    max_header_bytes = 16384
    max_connections = 10_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._in_headers = False
        self._lingering = False
        LOAD.connections = self.connections

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections + OVERFLOW:
            transport.abort()  # no descriptor to spare: not even an answer
            return
        self._arm()

    def _arm(self) -> None:
        self._in_headers = True
        self._header_bytes = 0
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm(self) -> None:
        self._in_headers = False
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _linger(self) -> None:
        """Close after the answer without a reset: shut our side, drop what still arrives."""
        if self._lingering or self.transport.is_closing():
            return
        self._lingering = True
        self._disarm()
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()  # sent once the answer is: the client reads it, then EOF
        self.transport.resume_reading()  # flow control may have paused reading the body
        self.loop.call_later(LINGER_S, self._end_linger)

    def _end_linger(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # the rest of a refused request: read so the answer is not reset, dropped
        if not self._in_headers and self.cycle is not None and self.cycle.response_complete:
            self._arm()  # the next request on a kept-alive connection: its headers start here
        if self._in_headers:
            end = data.find(b"\r\n\r\n")  # a body arriving with the headers is not theirs
            self._header_bytes += len(data) if end < 0 else end
            if self._header_bytes > self.max_header_bytes:
                self._disarm()
                self.transport.write(HEADERS_TOO_LARGE)
                self._linger()
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._in_headers:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        if len(self.connections) <= self.max_connections or self._is_health_check():
            super().on_headers_complete()
        else:
            app = self.app
            self.app = _overloaded_app
            try:
                super().on_headers_complete()
            finally:
                self.app = app
        if self.cycle is not None:
            # A stand-in by delegation: a Transport in all but close and is_closing.
            self.cycle.transport = cast(asyncio.Transport, _LingerOnClose(self.transport, self))

    def _is_health_check(self) -> bool:
        try:
            return httptools.parse_url(self.url).path == HEALTH_PATH
        except httptools.HttpParserInvalidURLError:
            return False

    def handle_websocket_upgrade(self) -> None:
        if len(self.connections) > self.max_connections:
            self.transport.write(OVERLOADED)
            self.transport.close()
            return
        super().handle_websocket_upgrade()
        # The WebSocket protocol has the transport now and this one is never told the
        # connection was lost, so it would keep its parser, whose callbacks are this
        # protocol's methods: a cycle, frozen with the transport until a full collection.
        self.parser = None  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


class _LingerOnClose:
    """A request's view of its connection's transport: closing it before the request's body
    has all arrived closes lingering (``GuardedHttp._linger``); anything else is the transport's."""

    def __init__(self, transport: asyncio.Transport, protocol: GuardedHttp) -> None:
        self._transport = transport
        self._protocol = protocol

    def close(self) -> None:
        cycle = self._protocol.cycle
        if cycle is not None and cycle.more_body and not self._transport.is_closing():
            self._protocol._linger()
        else:
            self._transport.close()

    def is_closing(self) -> bool:
        return self._protocol._lingering or self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol that cuts a client whose unsent backlog stops draining."""

    send_timeout_s = 10.0
    send_buffer_bytes = 262_144

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lost = False
        self._cut_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # not a TCP socket (tests, unix sockets): keep the default
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_bytes)

    async def send(self, message: Any) -> None:
        if not self.writable.is_set() and not self.disconnected:
            try:
                await asyncio.wait_for(self.writable.wait(), self.send_timeout_s)
            except TimeoutError:
                self._cut()
                raise ClientDisconnected() from None
        await super().send(message)

    def _cut(self) -> None:
        """Drop the connection now, buffered frames and all (the client is not reading).

        With a zero linger the kernel resets the connection and frees its send buffer at
        once; a plain close would leave it queued behind the unread frames (FIN-WAIT-1).
        """
        if self._lost:
            return
        log.warning("cutting a WebSocket whose client stopped reading (%s)", self.client and self.client[0])
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def on_task_complete(self, task: asyncio.Task[None]) -> None:
        super().on_task_complete(task)
        # A close sent into a full buffer waits for a reader that may never come.
        if not self._lost:
            self._cut_timer = self.loop.call_later(self.send_timeout_s, self._cut)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        # The timer's callback is this protocol's method: left armed, it would keep the
        # protocol, its transport and buffers alive for the whole timeout after a normal close.
        if self._cut_timer is not None:
            self._cut_timer.cancel()
            self._cut_timer = None
        super().connection_lost(exc)


def protocols(settings: Settings, max_connections: int) -> tuple[type[GuardedHttp], type[GuardedWebSocket]]:
    """The two protocol classes, configured from ``settings``."""
    LOAD.spectator_limit = int(max_connections * settings.spectator_connections_share)
    http = type(
        "FeltHttp",
        (GuardedHttp,),
        {
            "header_timeout_s": settings.header_timeout_s,
            "max_header_bytes": settings.max_header_bytes,
            "max_connections": max_connections,
        },
    )
    ws = type(
        "FeltWebSocket",
        (GuardedWebSocket,),
        {"send_timeout_s": settings.ws_send_timeout_s, "send_buffer_bytes": settings.ws_send_buffer_bytes},
    )
    return http, ws
