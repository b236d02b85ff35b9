"""``python -m server [--host H] [--port P]``: serve Felt (HTTP, WebSocket and the web client).

Before serving it raises the process's open-file limit to the hard limit and caps open
connections below it (``server.edges.transport``), so sockets can never take the
descriptors the server needs for itself.
"""

from __future__ import annotations

import argparse
import resource
import socket

import uvicorn

from server.config import Settings, get_settings
from server.edges.transport import protocols
from server.logs import log_config


def raise_fd_limit() -> int:
    """Raise the soft open-file limit to the hard one; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # a platform that refuses: keep what we have
            pass
    return soft


def connection_cap(settings: Settings, fd_limit: int) -> int:
    """Open connections allowed: the setting, but never more than the descriptors we can spare."""
    return max(16, min(settings.max_connections, fd_limit - settings.fd_reserve))


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
    fd_limit = raise_fd_limit()
    cap = connection_cap(settings, fd_limit)
    http, ws = protocols(settings, cap)
    config = uvicorn.Config(
        "server.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        log_config=log_config(settings.log_format, args.log_level),
        access_log=settings.access_log,
        http=http,
        ws=ws,
        ws_per_message_deflate=False,  # measured: costs memory and CPU for frames this small
        ws_max_size=max(65536, settings.max_frame_bytes * 16),  # larger frames get an error frame from ws.py
        timeout_keep_alive=settings.keep_alive_s,  # type: ignore[arg-type]  # typed int, used as a float delay
        backlog=settings.backlog,
        server_header=False,
        # uvicorn would take X-Forwarded-For from any loopback peer; FELT_TRUSTED_PROXIES decides instead.
        proxy_headers=False,
        timeout_graceful_shutdown=10,
    )
    FeltServer(config).run()


if __name__ == "__main__":
    main()
