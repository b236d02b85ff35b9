"""What every HTTP request passes first: a body size cap and deadline, and who the client is.

``RequestGuard`` (plain ASGI) answers 413 at once when a request declares a body over
``max_body_bytes``, and 413 or 408 (JSON, in the one error shape) when a body turns out
larger than that or does not arrive within ``body_timeout_s``, so neither memory nor a
connection can be held by a body. A response to a body cut short says ``Connection: close``
and the connection ends with it (as RFC 9110 asks of a 408), instead of being kept alive
for the rest of a body nobody will read. ``client_address`` names the client: the
socket's peer, or, when that peer is a trusted proxy (``FELT_TRUSTED_PROXIES``), the nearest
address in ``X-Forwarded-For`` that is not one.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import orjson
from starlette.exceptions import HTTPException

from server.edges.api.errors import error_body

_NO_BODY_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})


def _header(scope: dict, name: bytes) -> bytes | None:
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
        if scope["type"] != "http" or not self._may_have_body(scope):
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
            if started or exc.status_code not in (408, 413):
                raise
            await _answer(send, exc.status_code, "too_large" if exc.status_code == 413 else "timeout", exc.detail)

    @staticmethod
    def _may_have_body(scope: dict) -> bool:
        if scope.get("method") not in _NO_BODY_METHODS:
            return True
        return _header(scope, b"content-length") is not None or _header(scope, b"transfer-encoding") is not None

    def _too_large(self) -> str:
        return f"Request bodies are limited to {self.max_body_bytes} bytes."

    def _guarded(self, receive: Any, cut: list[bool]) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout_s
        received = 0
        done = False

        async def guarded_receive() -> dict:
            nonlocal received, done
            if done:  # the body is in: later calls wait for a disconnect, without a deadline
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                cut[0] = True
                raise HTTPException(408, f"The request body did not arrive within {self.body_timeout_s:g} s.") from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    cut[0] = True
                    raise HTTPException(413, self._too_large())
                done = not message.get("more_body", False)
            return message

        return guarded_receive


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
