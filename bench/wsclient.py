"""A small, fast WebSocket client (RFC 6455, text frames) and an HTTP/1.1 JSON helper.

The load generator must cost less per frame than the server it measures, so this client is
an ``asyncio.Protocol`` that parses frames straight out of the receive buffer (no reader task,
no per-frame future) and hands each message's payload to a callback. It answers pings, masks
what it sends (with the ``websockets`` C speedup when present) and never compresses. Only
127.0.0.1 is ever used by the benchmarks.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable
from typing import Any

import orjson

try:  # the websockets package ships a C masker
    from websockets.speedups import apply_mask as _apply_mask
except ImportError:  # pragma: no cover - pure Python fallback

    def _apply_mask(data: bytes, mask: bytes) -> bytes:
        n = len(data)
        m = (mask * (n // 4 + 1))[:n]
        return (int.from_bytes(data, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big")


class WSClosed(Exception):
    pass


class WSProtocol(asyncio.Protocol):
    """One client socket. ``on_message(self, payload: bytes)`` is called for each text frame."""

    __slots__ = ("_frag", "_request", "buf", "closed", "on_message", "open", "owner", "ready", "transport")

    def __init__(self, request: bytes, on_message: Callable[[Any, bytes], None], owner: Any = None) -> None:
        self._request = request
        self.on_message = on_message
        self.owner = owner
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.open = False
        self.closed = False
        self.ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._frag: bytearray | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(self._request)  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.ready.done():
            self.ready.set_exception(WSClosed(f"closed during handshake: {exc}"))

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.open:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end])
            del buf[: end + 4]
            if b" 101 " not in head.split(b"\r\n", 1)[0]:
                if not self.ready.done():
                    self.ready.set_exception(WSClosed(head.split(b"\r\n", 1)[0].decode(errors="replace")))
                self.transport.close()
                return
            self.open = True
            if not self.ready.done():
                self.ready.set_result(None)
        pos = 0
        n = len(buf)
        while n - pos >= 2:
            b0 = buf[pos]
            ln = buf[pos + 1] & 0x7F
            off = pos + 2
            if ln == 126:
                if n - pos < 4:
                    break
                ln = (buf[pos + 2] << 8) | buf[pos + 3]
                off = pos + 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln = struct.unpack_from(">Q", buf, pos + 2)[0]
                off = pos + 10
            end = off + ln
            if end > n:
                break
            payload = bytes(buf[off:end])
            pos = end
            op = b0 & 0x0F
            fin = b0 & 0x80
            if op == 1 or op == 2:
                if fin:
                    self.on_message(self, payload)
                else:
                    self._frag = bytearray(payload)
            elif op == 0:
                if self._frag is not None:
                    self._frag += payload
                    if fin:
                        whole = bytes(self._frag)
                        self._frag = None
                        self.on_message(self, whole)
            elif op == 9:  # ping -> pong
                self._send_frame(0xA, payload)
            elif op == 8:
                self.closed = True
                self.transport.close()
                return
        if pos:
            del buf[:pos]

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        if self.closed or self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        self.transport.write(head + mask + _apply_mask(payload, mask))

    def send(self, payload: bytes) -> None:
        """Send one text frame (payload: UTF-8 bytes)."""
        self._send_frame(0x1, payload)

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            try:
                self._send_frame(0x8, struct.pack(">H", 1000))
            finally:
                self.closed = True
                self.transport.close()


async def ws_connect(
    host: str, port: int, path: str, on_message, owner: Any = None, timeout: float = 10.0
) -> WSProtocol:
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    _, proto = await asyncio.wait_for(
        loop.create_connection(lambda: WSProtocol(request, on_message, owner), host, port), timeout
    )
    await asyncio.wait_for(proto.ready, timeout)
    return proto


async def http_json(
    host: str, port: int, method: str, path: str, body: Any = None, token: str | None = None, timeout: float = 10.0
) -> tuple[int, Any]:
    """One HTTP/1.1 request with a JSON body; returns (status, decoded JSON or None)."""
    data = orjson.dumps(body) if body is not None else b""
    headers = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close", f"Content-Length: {len(data)}"]
    if body is not None:
        headers.append("Content-Type: application/json")
    if token:
        headers.append(f"Authorization: Bearer {token}")
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + data)
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    head, _, rest = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"chunked" in head.lower():
        body_bytes = b""
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            body_bytes += rest[:size]
            rest = rest[size + 2 :]
        rest = body_bytes
    try:
        return status, orjson.loads(rest) if rest else None
    except orjson.JSONDecodeError:
        return status, rest.decode(errors="replace")
