"""The application: settings, health that asks the database, pages, and a clean SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from server.app import create_app
from server.config import Settings, normalize_database_url


def test_plain_database_urls_get_their_driver():
    assert normalize_database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_database_url("postgresql+asyncpg://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert normalize_database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://x@y/z")
    monkeypatch.setenv("FELT_BOT_DELAY_MS", "0")
    monkeypatch.setenv("PORT", "9123")
    s = Settings()
    assert (s.database_url, s.bot_delay_ms, s.port) == ("postgresql+psycopg://x@y/z", 0, 9123)


@pytest.fixture
async def client(tmp_path):
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'felt.db'}"))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c,
    ):
        yield c, app


async def test_health_asks_the_database(client):
    c, app = client
    assert (await c.get("/healthz")).json() == {"ok": True}
    app.state.db.dispose()
    app.state.db.ping = lambda: False  # the database stops answering
    r = await c.get("/healthz")
    assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"


async def test_the_client_pages_and_static_files_are_served(client):
    c, _ = client
    for path in ("/", "/r/ABCDEFGH", "/history", "/matches/abc"):
        r = await c.get(path)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"], path
        assert "<html" in r.text.lower()


async def test_an_unknown_address_is_a_page_for_browsers_and_json_for_the_api(client):
    c, _ = client
    page = await c.get("/no/such/page", headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 404 and "text/html" in page.headers["content-type"]
    assert 'data-i18n="missing.title"' in page.text and "/static/js/notfound.js" in page.text
    for path, accept in (
        ("/api/nowhere", "text/html"),
        ("/no/such/page", "application/json"),
        ("/no/such/page", "*/*"),
    ):
        r = await c.get(path, headers={"Accept": accept})
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", (path, accept)


async def test_docs_load_swagger_ui_from_this_server_not_a_cdn(client):
    c, _ = client
    docs = await c.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and "https://" not in docs.text
    for asset in ("/docs-static/swagger-ui-bundle.js", "/docs-static/swagger-ui.css"):
        r = await c.get(asset)
        assert r.status_code == 200 and len(r.content) > 10_000, asset
    assert (await c.get("/redoc")).status_code == 404  # ReDoc would need a CDN: not offered


async def test_the_openapi_document_describes_every_route(client):
    c, _ = client
    paths = (await c.get("/openapi.json")).json()["paths"]
    for p in (
        "/api/players",
        "/api/games",
        "/api/rooms",
        "/api/rooms/{code}",
        "/api/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/replay",
        "/healthz",
    ):
        assert any(k.replace("{id}", "{match_id}") == p for k in paths), p


def test_the_server_stops_cleanly_on_sigterm(tmp_path):
    port = 18000 + os.getpid() % 1000
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", str(port)],
        cwd=tmp_path,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'felt.db'}"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(300):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            pytest.fail("the server never answered")
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    # uvicorn finishes its shutdown, then re-raises the signal it caught: -SIGTERM is clean.
    assert proc.returncode in (0, -signal.SIGTERM), out.decode()[-2000:]
    assert b"Application shutdown complete" in out and b"Traceback" not in out
    assert (tmp_path / "felt.db").exists()


_SINGLE_NODE = """
import asyncio, sys
import httpx
from server.app import create_app
from server.config import Settings

async def main():
    app = create_app(Settings(database_url=sys.argv[1], redis_url=None))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            assert (await c.get("/healthz")).json() == {"ok": True}
            token = (await c.post("/api/players", json={"name": "Ana"})).json()["token"]
            r = await c.post("/api/rooms", json={"game": "oh_hell"}, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 201, r.text
    print(sorted(m for m in sys.modules if m == "redis" or m.startswith(("redis.", "server.cluster"))))

asyncio.run(main())
"""


def test_a_single_node_never_loads_the_redis_client(tmp_path):
    """Cluster mode alone needs Redis: a single node starts, serves and stops without importing
    the client (about 40 ms of every start, and of every restart in the durability tests)."""
    out = subprocess.run(
        [sys.executable, "-c", _SINGLE_NODE, f"sqlite:///{tmp_path / 'felt.db'}"],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if "REDIS" not in k},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


async def test_the_full_collection_runs_when_memory_grows_not_by_the_clock(caplog):
    import asyncio
    import logging

    from server.app import CollectorTender, resident_bytes

    def passes() -> int:
        return sum(r.getMessage().startswith("full garbage collection:") for r in caplog.records)

    caplog.set_level(logging.INFO, logger="felt")
    tender = CollectorTender(every_s=0.01, full_every_s=3600, min_every_s=0)
    tender.full_pass()
    running = asyncio.get_running_loop().create_task(tender.run())
    try:
        await asyncio.sleep(0.1)
        assert passes() == 1 and tender.full_passes == 1, "a heap that does not grow is not walked"
        live = bytearray(resident_bytes() // 2)  # the process grows by half
        for _ in range(50):
            await asyncio.sleep(0.02)
            if passes() > 1:
                break
        assert passes() == 2 and tender.full_passes == 2 and len(live) > 0
        await asyncio.sleep(0.1)
        assert passes() == 2, "the grown process is the new baseline"
        assert tender.frozen_after_full > 0 and tender.last_full_s > 0
    finally:
        running.cancel()
        import gc

        gc.unfreeze()


async def test_the_collector_tender_freezes_survivors_and_still_reclaims_cycles(caplog):
    import asyncio
    import gc
    import logging
    import weakref

    from server.app import CollectorTender

    class Node:
        pass

    gc.unfreeze()
    caplog.set_level(logging.INFO, logger="felt")
    tender = asyncio.get_running_loop().create_task(
        CollectorTender(every_s=0.01, full_every_s=0.1, min_every_s=0).run()
    )
    try:
        await asyncio.sleep(0.05)
        assert gc.get_freeze_count() > 0, "survivors are moved out of the collector's sight"
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle that only a full collection can free
        gone = weakref.ref(a)
        del a, b
        for _ in range(50):
            await asyncio.sleep(0.02)
            if gone() is None:
                break
        assert gone() is None, "the periodic full collection reclaims cyclic garbage"
        # Operators see what each full pass cost the loop.
        assert any(
            r.getMessage().startswith("full garbage collection:") and " ms" in r.getMessage() for r in caplog.records
        )
    finally:
        tender.cancel()
        gc.unfreeze()


async def test_a_stop_right_after_the_start_ends(tmp_path):
    """The stop cancels the notifier's tasks while their first database calls end: each must
    stop then (a cancellation lost at that moment kept a stop waiting forever)."""
    for attempt in range(5):
        app = create_app(Settings(database_url=f"sqlite:///{tmp_path / f'felt{attempt}.db'}"))
        lifespan = app.router.lifespan_context(app)
        await lifespan.__aenter__()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            assert (await c.get("/docs")).status_code == 200
        stop = asyncio.ensure_future(lifespan.__aexit__(None, None, None))
        done, _ = await asyncio.wait({stop}, timeout=60)
        assert done, f"stop {attempt} never ended"
        await stop
