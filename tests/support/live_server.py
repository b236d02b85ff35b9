"""A real Felt server on loopback: uvicorn in a subprocess with its own SQLite file.

It can be stopped (SIGTERM), killed (SIGKILL) and started again on the same port and the
same database, as a deploy or a crash would do.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, tmp: Path, healthy: bool = True, log_level: str = "warning", preexec=None, **env: str) -> None:
        self.tmp = tmp
        self.log_level = log_level
        self.preexec = preexec
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.env = {
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
            "FELT_RATE_CONNECTS_BURST": "1000000",
            "FELT_RATE_TOKEN_CONNECTS_BURST": "1000000",
            "FELT_MAX_SOCKETS_PER_ADDRESS": "1000000",
            **env,
        }
        self.proc: subprocess.Popen | None = None
        self.log = open(tmp / "server.log", "a")  # noqa: SIM115 (restarts append to it; closed by stop())
        self.start(healthy)

    def start(self, healthy: bool = True) -> None:
        """Start the server; with ``healthy`` wait until ``/healthz`` says 200, else until it answers."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(self.port), "--log-level", self.log_level],
            cwd=self.tmp,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=self.preexec,
        )
        # Generous: on a shared 2-core machine under heavy load a start has taken over 30 s.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {(self.tmp / 'server.log').read_text()[-2000:]}")
            try:
                status = httpx.get(self.base + "/healthz", timeout=1).status_code
                if status == 200 or not healthy:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the server did not become healthy in 120 s")

    def kill(self) -> None:
        """SIGKILL: the process ends at once, as in a crash (its writer worker goes with it)."""
        assert self.proc is not None
        children = _children(self.proc.pid)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        _wait_gone(children)

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, and wait for a clean exit; returns the exit code."""
        assert self.proc is not None
        self.proc.terminate()
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


def _children(parent_pid: int) -> list[Path]:
    return [p for p in Path("/proc").iterdir() if p.name.isdigit() and _ppid(p) == parent_pid]


def _wait_gone(procs: list[Path]) -> None:
    """The writer's worker of a killed server sees its pipe close and exits: wait for that."""
    deadline = time.monotonic() + 10
    while any(p.exists() and _state(p) not in ("Z", None) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.02)


def _state(proc: Path) -> str | None:
    try:
        return (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _ppid(proc: Path) -> int | None:
    try:
        stat = (proc / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


@contextmanager
def served_on(
    database: str, tmp_path_factory, label: str, log_level: str = "warning", **extra: str
) -> Iterator[LiveServer]:
    """A live server on SQLite (``database="sqlite"``) or on a PostgreSQL database of its own,
    made for it in TEST_DATABASE_URL's server and dropped after (skipped without one, unless
    FELT_REQUIRE_POSTGRES=1 makes that a failure); ``extra``: more of its environment."""
    import secrets

    import psycopg
    import pytest
    from sqlalchemy.engine import make_url

    from server.config import normalize_database_url

    env, dropped, admin = dict(extra), None, ""
    if database == "postgres":
        given = os.environ.get("TEST_DATABASE_URL")
        if not given:
            if os.environ.get("FELT_REQUIRE_POSTGRES") == "1":
                pytest.fail("FELT_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set")
            pytest.skip("TEST_DATABASE_URL is not set: PostgreSQL tests skipped")
        url = make_url(normalize_database_url(given))
        admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
        dropped = f"felt_test_{label}_{secrets.token_hex(5)}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dropped}"')
        env["DATABASE_URL"] = url.set(database=dropped).render_as_string(hide_password=False)
    live = LiveServer(tmp_path_factory.mktemp(label), log_level=log_level, **env)
    try:
        yield live
    finally:
        live.stop()
        if dropped:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{dropped}" WITH (FORCE)')
