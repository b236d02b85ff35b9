"""``python -m server [--host H] [--port P]``: serve Felt (HTTP, WebSocket and the web client)."""

from __future__ import annotations

import argparse
import socket

import uvicorn

from server.config import get_settings


class FeltServer(uvicorn.Server):
    """uvicorn, with one step added to a stop: before the sockets are closed (with 1012), stop
    accepting, refuse new changes and make every logged change durable and shown, so that
    what a client was told is exactly what the next start restores."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        from server.app import drain_all

        for server in self.servers:
            server.close()
        await drain_all()
        await super().shutdown(sockets)


def main(argv: list[str] | None = None) -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m server", description="Serve Felt.")
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=settings.port)
    parser.add_argument("--log-level", default=settings.log_level)
    args = parser.parse_args(argv)
    config = uvicorn.Config(
        "server.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_per_message_deflate=False,  # measured: costs memory and CPU for frames this small
        ws_max_size=max(65536, settings.max_frame_bytes * 16),  # larger frames get an error frame from ws.py
        timeout_graceful_shutdown=10,
    )
    FeltServer(config).run()


if __name__ == "__main__":
    main()
