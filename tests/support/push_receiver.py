"""A push service of the tests' own on loopback: it records every request it gets and answers
each path as told (a status code, or "hang": it never answers). With it, a subscription made
in a test (a P-256 key pair and an auth secret) whose payloads the test decrypts.
``ThreadedReceiver`` runs one on an event loop of its own thread, for tests that are not
coroutines (a browser driven through Playwright's sync API)."""

from __future__ import annotations

import asyncio
import base64
import os
import threading
from dataclasses import dataclass, field

import http_ece
import orjson
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Keys:
    """A browser's side of a subscription: its private key and auth secret."""

    private: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def subscription(self, endpoint: str, lang: str = "en") -> dict:
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)}, "lang": lang}

    def decrypt(self, body: bytes) -> dict:
        plain = http_ece.decrypt(body, private_key=self.private, auth_secret=self.auth, version="aes128gcm")
        return orjson.loads(plain)


class PushReceiver:
    def __init__(self) -> None:
        self.got: list[Received] = []
        # How each path answers: a status, "hang", or a list of those taken one per request
        # (201 once it is used up).
        self.replies: dict[str, int | str | list] = {}
        self.hanging: list[web.Request] = []
        self._arrived = asyncio.Condition()
        self._release = asyncio.Event()
        self.runner: web.AppRunner | None = None
        self.port = 0

    async def start(self) -> PushReceiver:
        app = web.Application()
        app.router.add_post("/{name}", self._handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"

    async def _handle(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        body = await request.read()
        async with self._arrived:
            self.got.append(Received(name, dict(request.headers), body))
            self._arrived.notify_all()
        reply = self.replies.get(name, 201)
        if isinstance(reply, list):
            reply = reply.pop(0) if reply else 201
        if reply == "hang":
            self.hanging.append(request)
            await self._release.wait()
            reply = 201
        return web.Response(status=int(reply))

    def at(self, name: str) -> list[Received]:
        return [r for r in self.got if r.path == name]

    async def wait_for(self, name: str, count: int = 1, timeout: float = 60) -> list[Received]:
        async def enough() -> None:
            async with self._arrived:
                await self._arrived.wait_for(lambda: len(self.at(name)) >= count)

        await asyncio.wait_for(enough(), timeout)
        return self.at(name)

    async def stop(self) -> None:
        self._release.set()
        if self.runner is not None:
            await self.runner.cleanup()


class ThreadedReceiver:
    """A ``PushReceiver`` served from a thread of its own, answered to synchronously."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="push-receiver", daemon=True)
        self.thread.start()
        self.receiver: PushReceiver = self._run(self._started())

    async def _started(self) -> PushReceiver:
        return await PushReceiver().start()  # made on its own loop, where it waits

    def _run(self, coroutine, timeout: float | None = None):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def url(self, name: str) -> str:
        return self.receiver.url(name)

    def at(self, name: str) -> list[Received]:
        async def read() -> list[Received]:
            return self.receiver.at(name)

        return self._run(read())

    def wait_for(self, name: str, count: int = 1, timeout: float = 60) -> list[Received]:
        return self._run(self.receiver.wait_for(name, count, timeout))

    def stop(self) -> None:
        self._run(self.receiver.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
