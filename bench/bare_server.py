"""The baseline: a bare FastAPI WebSocket broadcast server, no game.

``python -m bench.bare_server --port P``. A client joins ``/ws/bare/{room}`` and gets one
``{"type":"snapshot"}`` frame once it is registered; after that every text frame it sends is
fanned out, unchanged and unparsed, to the room's other connections. It runs under the same
uvicorn settings as ``python -m server`` (uvloop and httptools when installed, the websockets
implementation, per-message deflate off), so the difference to Felt is Felt's own work.
"""

from __future__ import annotations

import argparse

import uvicorn
from fastapi import FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

SNAPSHOT = '{"type":"snapshot","v":0}'


def create_app() -> FastAPI:
    app = FastAPI(title="bare broadcast")
    rooms: dict[str, list[WebSocket]] = {}

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"ok": True, "rooms": len(rooms), "sockets": sum(len(r) for r in rooms.values())}

    @app.websocket("/ws/bare/{code}")
    async def bare(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        members = rooms.setdefault(code, [])
        members.append(websocket)
        await websocket.send_text(SNAPSHOT)
        try:
            while True:
                text = await websocket.receive_text()
                for other in members:
                    if other is not websocket:
                        await other.send_text(text)
        except WebSocketDisconnect:
            pass
        finally:
            members.remove(websocket)
            if not members:
                rooms.pop(code, None)

    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bare_server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    uvicorn.run(
        "bench.bare_server:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_per_message_deflate=False,  # the same settings as server/__main__.py
        ws_max_size=65536,
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
