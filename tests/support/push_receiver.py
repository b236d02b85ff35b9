"""A push service of the tests' own on loopback: it records every request it gets and answers
each path as told (a status code; "hang": it never answers; "drip": it answers its headers,
then a byte every ``DRIP_EVERY_S`` for as long as the sender reads, and notes when the sender
gave up). It listens on ``host`` (any 127.x.y.z address is this machine). With it, a
subscription made in a test (a P-256 key pair and an auth secret) whose payloads the test
decrypts.
``ThreadedReceiver`` runs one on an event loop of its own thread, for tests that are not
coroutines (a browser driven through Playwright's sync API)."""

from __future__ import annotations

import asyncio
import base64
import os
import threading
import time
from dataclasses import dataclass, field

import http_ece
import orjson
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

DRIP_EVERY_S = 2.0


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Drip:
    """A request answered a byte at a time: when it came and when its sender closed it."""

    path: str
    started: float
    ended: float | None = None


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
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.got: list[Received] = []
        self.drips: list[Drip] = []
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
        site = web.TCPSite(self.runner, self.host, 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    def url(self, name: str) -> str:
        return f"http://{self.host}:{self.port}/{name}"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        body = await request.read()
        async with self._arrived:
            self.got.append(Received(name, dict(request.headers), body))
            self._arrived.notify_all()
        reply = self.replies.get(name, 201)
        if isinstance(reply, list):
            reply = reply.pop(0) if reply else 201
        if reply == "drip":
            return await self._drip(request, name)
        if reply == "hang":
            self.hanging.append(request)
            await self._release.wait()
            reply = 201
        return web.Response(status=int(reply))

    async def _drip(self, request: web.Request, name: str) -> web.StreamResponse:
        drip = Drip(name, time.monotonic())
        self.drips.append(drip)
        answer = web.StreamResponse(status=201, headers={"Content-Length": str(1 << 20)})
        await answer.prepare(request)
        next_byte = drip.started
        try:
            while request.transport is not None and not request.transport.is_closing():
                if time.monotonic() >= next_byte:
                    await answer.write(b"x")
                    next_byte += DRIP_EVERY_S
                await asyncio.sleep(0.05)
        except (ConnectionError, RuntimeError):  # the sender closed it between two bytes
            pass
        finally:
            drip.ended = time.monotonic()
        return answer

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
