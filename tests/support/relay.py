"""A TCP relay for the network-namespace test host: ``relay.py HOST PORT TARGET_HOST TARGET_PORT``.

Listens on HOST:PORT and copies bytes both ways to TARGET for every connection; prints
``ready`` once listening. It runs on this side of the veth pair, so Redis and PostgreSQL,
which listen on loopback only, are reachable from the namespace (and not when the pair is cut).
"""

from __future__ import annotations

import asyncio
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def main(host: str, port: int, target_host: str, target_port: int) -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    server = await asyncio.start_server(serve, host, port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    h, p, th, tp = sys.argv[1:5]
    asyncio.run(main(h, int(p), th, int(tp)))
