"""The docker-compose topology as processes on loopback: HAProxy, three Felt nodes, the local
Redis (a key prefix per run) and PostgreSQL (a fresh database per run).

HAProxy runs the repository's deploy/haproxy.cfg with its ``server-template`` lines (Docker's
DNS) replaced by one ``server`` line per node, so the tests exercise the routing that ships.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import orjson
import psycopg
import pytest
import redis
from live_server import free_port
from netns import NetnsHost
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
LEASE_MS = 1500
LOOKUP_BURST = 4  # unknown room codes one address may try (the rate-limit test)


def missing_services() -> str | None:
    """Why the cluster tests cannot run here, or None."""
    if not os.environ.get("TEST_DATABASE_URL"):
        return "TEST_DATABASE_URL is not set"
    if shutil.which("haproxy") is None:
        return "haproxy is not installed (apt-get install haproxy)"
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at {REDIS_URL} does not answer: {exc}"
    return None


def require_services() -> None:
    """Skip the calling test (fail it with ``FELT_REQUIRE_POSTGRES=1``) when they cannot run here."""
    missing = missing_services()
    if missing:
        if os.environ.get("FELT_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"FELT_REQUIRE_POSTGRES=1 but the cluster tests cannot run: {missing}")
        pytest.skip(f"cluster tests skipped: {missing}")


def cluster_settings() -> dict[str, str]:
    """The nodes' settings in the tests: every test client comes from 127.0.0.1, so only the
    limit under test is tight."""
    return {
        "FELT_MAX_OPEN_ROOMS_PER_PLAYER": "3",
        "FELT_CHAT_PER_MINUTE": "10000",
        "FELT_RATE_PLAYERS_PER_MINUTE": "100000",
        "FELT_RATE_PLAYERS_BURST": "100000",
        "FELT_RATE_ROOMS_PER_MINUTE": "100000",
        "FELT_RATE_ROOMS_BURST": "100000",
        "FELT_RATE_LOOKUPS_PER_MINUTE": "1",
        "FELT_RATE_LOOKUPS_BURST": str(LOOKUP_BURST),
        "FELT_RATE_CONNECTS_BURST": "1000000",
        "FELT_RATE_TOKEN_CONNECTS_BURST": "1000000",
        "FELT_MAX_SOCKETS_PER_ADDRESS": "1000000",
    }


def haproxy_config(port: int, nodes: list[str], maxconn: int = 4000) -> str:
    """deploy/haproxy.cfg, listening on ``port``, with the nodes at ``nodes`` (``host:port``);
    ``maxconn`` within this machine's open-file limit (two descriptors a proxied socket)."""
    text = HAPROXY_CFG.read_text()
    text = re.sub(r"\nresolvers docker\n(?:    .*\n)+", "\n", text)
    text = text.replace("bind :8000", f"bind 127.0.0.1:{port}")
    text = re.sub(r"maxconn \d+", f"maxconn {maxconn}", text)
    text = text.replace("log stdout format raw local0 warning", "log stderr format raw local0 warning")
    servers = "".join(f"    server n{i} {address} check\n" for i, address in enumerate(nodes))
    text, count = re.subn(r"    server-template .*\n", servers, text)
    assert count == 2, "deploy/haproxy.cfg should have one server-template per backend"
    return text


def wait_healthy(base: str, proc: subprocess.Popen | None = None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{base}: the process exited with {proc.returncode}")
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{base} did not become healthy in {timeout} s")


class Node:
    """One Felt node: ``python -m server`` with its own folder, port and node id."""

    def __init__(self, cluster: Cluster, index: int, host: NetnsHost | None = None) -> None:
        self.cluster = cluster
        self.index = index
        self.id = f"n{index}"
        self.host = host  # a test host in its own network namespace, or None: loopback
        self.address = host.inside if host is not None else "127.0.0.1"
        self.port = free_port()
        self.base = f"http://{self.address}:{self.port}"
        self.ws_base = f"ws://{self.address}:{self.port}"
        self.folder = cluster.tmp / self.id
        self.folder.mkdir(exist_ok=True)
        self.proc: subprocess.Popen | None = None
        self.database_url, self.redis_url = cluster.database_url, REDIS_URL
        if host is not None:  # Redis and PostgreSQL through relays on this side of the veth pair
            db, rd = make_url(cluster.database_url), urlsplit(REDIS_URL)
            pg_relay = host.relay(free_port(), db.host or "127.0.0.1", db.port or 5432)
            self.database_url = db.set(host=pg_relay.split(":")[0], port=int(pg_relay.split(":")[1])).render_as_string(
                hide_password=False
            )
            self.redis_url = f"redis://{host.relay(free_port(), rd.hostname or '127.0.0.1', rd.port or 6379)}{rd.path}"

    def start(self) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "FELT_REDIS_URL": self.redis_url,
            "FELT_REDIS_PREFIX": self.cluster.prefix,
            "FELT_NODE_ID": self.id,
            "FELT_LEASE_MS": str(LEASE_MS),
            "FELT_LOBBY_PUBLISH_S": "0.25",
            "FELT_BOT_DELAY_MS": "0",
            "FELT_RECONNECT_GRACE_S": "30",
            "FELT_MAX_FRAMES_PER_SECOND": "1000",
            "FELT_FRAME_BURST": "1000",
            **self.cluster.env,
        }
        argv = [
            sys.executable,
            "-m",
            "server",
            "--host",
            self.address,
            "--port",
            str(self.port),
            "--log-level",
            "warning",
        ]
        with open(self.folder / "server.log", "a") as log:  # the server writes to its own copy of the file
            self.proc = subprocess.Popen(
                self.host.command(argv) if self.host is not None else argv,
                cwd=self.folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait(self) -> None:
        wait_healthy(self.base, self.proc)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL the node and its writer process (a crash: nothing is flushed or released)."""
        assert self.proc is not None
        children = _children(self.proc.pid)
        self.proc.kill()
        self.proc.wait(10)
        for pid in children:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGCONT)
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_text(self) -> str:
        return (self.folder / "server.log").read_text(errors="replace")


def _children(pid: int) -> list[int]:
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return []
    return [int(x) for x in out.split()]


class Cluster:
    """HAProxy on one address in front of ``n`` nodes sharing one Redis prefix and one database."""

    def __init__(
        self, tmp: Path, pg_server_url: str, n: int = 3, hosts: dict[int, NetnsHost] | None = None, **env: str
    ) -> None:
        self.tmp = tmp
        self.env = env
        self.prefix = f"felt-test-{secrets.token_hex(4)}:"
        self.redis = redis.Redis.from_url(REDIS_URL)
        self._pg_server_url = pg_server_url
        self.db_name = f"felt_cluster_{secrets.token_hex(6)}"
        with psycopg.connect(_libpq(pg_server_url), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{self.db_name}"')
        self.database_url = make_url(pg_server_url).set(database=self.db_name).render_as_string(hide_password=False)
        self.nodes = [Node(self, i, (hosts or {}).get(i)) for i in range(n)]
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.haproxy: subprocess.Popen | None = None

    def start(self) -> Cluster:
        first, *others = self.nodes
        first.start()  # the first node brings the schema up; the others find it done
        first.wait()
        for node in others:
            node.start()
        for node in others:
            node.wait()
        config = self.tmp / "haproxy.cfg"
        config.write_text(haproxy_config(self.port, [f"{n.address}:{n.port}" for n in self.nodes]))
        with open(self.tmp / "haproxy.log", "w") as log:
            self.haproxy = subprocess.Popen(
                [shutil.which("haproxy") or "haproxy", "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT
            )
        wait_healthy(self.base, self.haproxy)
        self.wait_all_up()
        return self

    def wait_all_up(self, timeout: float = 20) -> None:
        """Until HAProxy routes to every running node (its checks mark them up)."""
        deadline = time.monotonic() + timeout
        want = {n.id for n in self.nodes if n.proc is not None and n.proc.poll() is None}
        while time.monotonic() < deadline:
            seen = {self.node_of_request() for _ in range(3 * len(self.nodes))}
            if want <= seen:
                return
            time.sleep(0.2)
        raise RuntimeError(f"HAProxy does not reach every node: {want}")

    def node_of_request(self) -> str | None:
        """Which node answers a request HAProxy spreads round robin (``/healthz`` names it)."""
        try:
            r = httpx.get(self.base + "/healthz", timeout=2)
        except httpx.HTTPError:
            return None
        return r.json().get("node") if r.status_code == 200 else None

    def owner(self, code: str) -> str | None:
        """The node holding the table's lease (its value is the node and an acquisition's token)."""
        value = self.redis.get(f"{self.prefix}lease:{code}")
        return value.decode().rsplit(" ", 1)[0] if value else None

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def table_log(self, code: str) -> list[tuple[int, str, dict]]:
        return [(v, kind, data) for v, kind, data, _at in self.table_entries(code)]

    def table_entries(self, code: str) -> list[tuple[int, str, dict, float]]:
        """The table's log as a node reads it to rebuild the table: ``(version, kind, data, at)``."""
        with psycopg.connect(_libpq(self.database_url)) as conn:
            rows = conn.execute(
                "SELECT version, kind, data, at FROM table_log WHERE code = %s ORDER BY version", (code,)
            ).fetchall()
        return [(v, kind, orjson.loads(data), at) for v, kind, data, at in rows]

    @contextmanager
    def database_down(self) -> Iterator[None]:
        """The cluster's database refuses every connection (open ones are cut) until the block ends."""
        with psycopg.connect(_libpq(self._pg_server_url), autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{self.db_name}" WITH ALLOW_CONNECTIONS false')
            try:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (self.db_name,)
                )
                yield
            finally:
                admin.execute(f'ALTER DATABASE "{self.db_name}" WITH ALLOW_CONNECTIONS true')

    def stop(self) -> None:
        if self.haproxy is not None:
            self.haproxy.terminate()
            try:
                self.haproxy.wait(5)
            except subprocess.TimeoutExpired:
                self.haproxy.kill()
        for node in self.nodes:
            node.stop()
        keys = list(self.redis.scan_iter(match=self.prefix + "*", count=1000))
        if keys:
            self.redis.delete(*keys)
        self.redis.close()
        with psycopg.connect(_libpq(self._pg_server_url), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
