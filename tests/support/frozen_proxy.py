"""A TCP proxy on loopback that can be frozen: a database that hangs, seen from its clients.

While frozen it keeps accepting connections and reading nothing, forwarding nothing: what a
stopped database server looks like (its kernel accepts and acknowledges; no answer comes).
Thawed, it forwards again what was held, as a database that is started again would answer.
It runs in a thread of its own (with its own event loop), so that a test blocked on anything
else never freezes it by accident.
"""

from __future__ import annotations

import asyncio
import threading


class FrozenProxy:
    """``127.0.0.1:port`` forwards to ``upstream``; ``freeze()`` and ``thaw()`` from any thread."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self._loop = asyncio.new_event_loop()
        self._thawed = asyncio.Event()
        self._started = threading.Event()
        self._tasks: set[asyncio.Task] = set()
        self._thread = threading.Thread(target=self._main, name="frozen-proxy", daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the proxy did not start")

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._thawed.set()
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started.set()
        self._loop.run_forever()

    async def _handle(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._thawed.wait()  # a connection made while frozen is held, unanswered
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            await asyncio.gather(self._pump(client_reader, up_writer), self._pump(up_reader, client_writer))
        except OSError:
            pass
        finally:
            client_writer.close()
            self._tasks.discard(task)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await self._thawed.wait()
                data = await reader.read(65536)
                if not data:
                    break
                await self._thawed.wait()  # read while thawed, frozen since: held
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    def url_for(self, url: str) -> str:
        """``url`` (a SQLAlchemy URL) pointed at this proxy."""
        from sqlalchemy.engine import make_url

        return make_url(url).set(host="127.0.0.1", port=self.port).render_as_string(hide_password=False)

    def freeze(self) -> None:
        self._loop.call_soon_threadsafe(self._thawed.clear)

    def thaw(self) -> None:
        self._loop.call_soon_threadsafe(self._thawed.set)

    def close(self) -> None:
        async def stop() -> None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        self.thaw()
        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
