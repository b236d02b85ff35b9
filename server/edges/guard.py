"""What every HTTP request passes first: a body size cap and deadline, text a database can
store, and who the client is.

``RequestGuard`` (plain ASGI) answers 413 at once when a request declares a body over
``max_body_bytes``, and 413 or 408 (JSON, in the one error shape) when a body turns out
larger than that or does not arrive within ``body_timeout_s``, so neither memory nor a
connection can be held by a body. A response to a body cut short says ``Connection: close``
and the connection ends with it (as RFC 9110 asks of a 408), instead of being kept alive
for the rest of a body nobody will read. It answers 400 ``bad_text`` to a path, query or
JSON body (any string in it, a key too) holding what no column stores: a NUL character
(PostgreSQL refuses it in text) or an unpaired surrogate (no UTF-8 spells it), so that no
route meets either. ``client_address`` names the client: the socket's peer, or, when that
peer is a trusted proxy (``FELT_TRUSTED_PROXIES``), the nearest address in
``X-Forwarded-For`` that is not one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive

from server.edges.api.errors import error_body

_NO_BODY_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})
BAD_TEXT = "Text in a request may not hold a NUL character (U+0000) or an unpaired surrogate."


class BadText(HTTPException):
    """A request whose text no database column would store (answered 400 ``bad_text``)."""

    code = "bad_text"

    def __init__(self) -> None:
        super().__init__(400, BAD_TEXT)


def storable(text: str) -> bool:
    """Whether a database column can hold ``text``: no NUL, and UTF-8 can spell all of it."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # an unpaired surrogate, as JSON's "\ud800" escape makes
        return False
    return True


def _all_storable(value: Any) -> bool:
    """Whether every string in a JSON value (keys too) is storable; a loop, for any depth."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not storable(item):
                return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


def _storable_body(body: bytes) -> bool:
    """Whether a JSON body's strings are all storable. Only an escape (``\\u0000``,
    ``\\ud800``) spells either in valid JSON, so a body without one is not parsed here; a
    body that is not JSON is the route's to refuse."""
    if b"\\u" not in body:
        return True
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return True
    return _all_storable(parsed)


def _storable_target(scope: dict) -> bool:
    """Whether the request's path and query (escapes decoded) are free of NUL characters.
    (Their other escapes decode leniently: an invalid one becomes U+FFFD, never a surrogate.)"""
    return "\x00" not in scope.get("path", "") and b"\x00" not in unquote_to_bytes(scope.get("query_string", b""))


def _header(scope: dict, name: bytes) -> bytes | None:
    value: bytes  # ASGI headers are pairs of bytes
    for key, value in scope.get("headers") or ():
        if key == name:
            return value
    return None


def _networks(proxies: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(p, strict=False) for p in proxies]


def _trusted(address: str, networks: list) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


class ClientAddresses:
    """Tells a request's client address, trusting ``X-Forwarded-For`` only from listed proxies."""

    def __init__(self, trusted_proxies: list[str]) -> None:
        self.networks = _networks(trusted_proxies)

    def of(self, scope: dict) -> str:
        client = scope.get("client")
        peer = client[0] if client else "unknown"
        if not self.networks or not _trusted(peer, self.networks):
            return peer
        forwarded = _header(scope, b"x-forwarded-for")
        if not forwarded:
            return peer
        hops = [h.strip() for h in forwarded.decode("latin-1").split(",") if h.strip()]
        for hop in reversed(hops):  # the rightmost hop not ours is the one a proxy of ours saw
            if not _trusted(hop, self.networks):
                return hop
        return hops[0] if hops else peer


class RequestGuard:
    """ASGI middleware: cap each request body's size and the time it may take to arrive."""

    def __init__(self, app: Any, max_body_bytes: int, body_timeout_s: float) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not _storable_target(scope):
            await _answer(send, 400, BadText.code, BAD_TEXT)
            return
        if not self._may_have_body(scope):
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await _answer(send, 413, "too_large", self._too_large())
            return
        started = False
        cut = [False]  # set by the guarded receive when it gives up on the body

        async def watched_send(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cut[0]:
                    headers = [(k, v) for k, v in message.get("headers") or () if k.lower() != b"connection"]
                    message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        try:
            await self.app(scope, self._guarded(receive, cut), watched_send)
        except HTTPException as exc:  # raised by the guarded receive outside a route
            if started or exc.status_code not in (400, 408, 413):
                raise
            await _answer(send, exc.status_code, _code(exc), exc.detail)

    @staticmethod
    def _may_have_body(scope: dict) -> bool:
        if scope.get("method") not in _NO_BODY_METHODS:
            return True
        return _header(scope, b"content-length") is not None or _header(scope, b"transfer-encoding") is not None

    def _too_large(self) -> str:
        return f"Request bodies are limited to {self.max_body_bytes} bytes."

    def _guarded(self, receive: Receive, cut: list[bool]) -> Receive:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout_s
        received = 0
        body = bytearray()
        done = False

        async def guarded_receive() -> Message:
            nonlocal received, done
            if done:  # the body is in: later calls wait for a disconnect, without a deadline
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                cut[0] = True
                raise HTTPException(408, f"The request body did not arrive within {self.body_timeout_s:g} s.") from None
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                received += len(chunk)
                if received > self.max_body_bytes:
                    cut[0] = True
                    raise HTTPException(413, self._too_large())
                done = not message.get("more_body", False)
                if done and not _storable_body(bytes(body) + chunk if body else chunk):
                    raise BadText()
                if not done:
                    body.extend(chunk)
            return message

        return guarded_receive


def _code(exc: HTTPException) -> str:
    return getattr(exc, "code", None) or {400: "bad_request", 408: "timeout", 413: "too_large"}[exc.status_code]


async def _answer(send: Any, status: int, code: str, message: str) -> None:
    body = orjson.dumps(error_body(code, message))
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
