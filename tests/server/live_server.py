"""A real Felt server on loopback: uvicorn in a subprocess with its own SQLite file."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, tmp: Path, log_level: str = "warning", preexec=None, **env: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        full_env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{tmp / 'felt.db'}",
            "FELT_BOT_DELAY_MS": "0",
            "FELT_RECONNECT_GRACE_S": "0.4",
            "FELT_MAX_OPEN_ROOMS_PER_PLAYER": "1000",
            "FELT_MAX_FRAMES_PER_SECOND": "1000",  # test clients act as fast as the server answers
            "FELT_FRAME_BURST": "1000",
            # Every test client shares one address: per-address limits only where a test sets them.
            "FELT_RATE_PLAYERS_BURST": "1000000",
            "FELT_RATE_ROOMS_BURST": "1000000",
            "FELT_RATE_LOOKUPS_BURST": "1000000",
            **env,
        }
        self.log = open(tmp / "server.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(self.port), "--log-level", log_level],
            cwd=tmp,
            env=full_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=preexec,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {(tmp / 'server.log').read_text()[-2000:]}")
            try:
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not become healthy in 30 s")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
