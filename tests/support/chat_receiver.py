"""A group chat's webhook as a test runs it: a bare HTTP/1.1 server on a loopback address that
records every request and answers as the test scripts it (a status list, then a default),
or never answers at all (``hang``)."""

from __future__ import annotations

import asyncio
from collections import deque

import orjson


class ChatReceiver:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """``port``: 0 for any free one; a given one stands for a chat that was down and is back."""
        self.host, self.port = host, port
        self.answers: deque[tuple[int, dict[str, str]]] = deque()  # used first, one a request
        self.default: tuple[int, dict[str, str]] = (204, {})
        self.hang = False
        self.requests: list[dict] = []
        self._arrived = asyncio.Condition()
        self._stop = asyncio.Event()
        self._writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.base_events.Server | None = None

    async def __aenter__(self) -> ChatReceiver:
        self.server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self._stop.set()
        for writer in self._writers:
            writer.close()
        assert self.server is not None
        self.server.close()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def bodies(self) -> list[dict]:
        return [orjson.loads(r["body"]) for r in self.requests]

    async def until(self, predicate, timeout: float = 60, what: str = "the chat's requests") -> list[dict]:
        """Wait until ``predicate(requests)`` holds; the requests then."""
        async with self._arrived:
            try:
                await asyncio.wait_for(self._arrived.wait_for(lambda: predicate(self.requests)), timeout)
            except TimeoutError:
                raise AssertionError(f"{what} never came: {self.requests!r}") from None
        return self.requests

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        try:
            while not self._stop.is_set():
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                method, path, _ = head[0].split(" ", 2)
                headers = {k.lower(): v for k, _, v in (h.partition(": ") for h in head[1:] if h)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                async with self._arrived:
                    self.requests.append({"method": method, "path": path, "headers": headers, "body": body})
                    self._arrived.notify_all()
                if self.hang:
                    await self._stop.wait()
                    return
                status, extra = self.answers.popleft() if self.answers else self.default
                lines = [f"HTTP/1.1 {status} Answer", "Content-Length: 0", *(f"{k}: {v}" for k, v in extra.items())]
                writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
