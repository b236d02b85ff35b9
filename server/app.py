"""The application factory: wires settings, storage, rooms and the two edges (HTTP, WebSocket).

Only this module imports the edges (``server.edges.api``, ``server.edges.ws``).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, cast

import swagger_ui_bundle
from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from server import __version__
from server.config import Settings, get_settings
from server.edges.api import api_router
from server.edges.api.errors import ApiError, install_error_handlers
from server.edges.api.matches import replay_builder
from server.edges.api.recap_images import RecapPainters, recap_images
from server.edges.api.replays import BodyCache, Replays, ReplayWorkers
from server.edges.guard import ClientAddresses, RequestGuard
from server.edges.headers import SecurityHeaders
from server.edges.rules_pages import install_rules_pages
from server.edges.ws import RoomSockets
from server.limits import MemoryRateLimiter, OpenSockets, rates_from
from server.log_entry import WriterReports
from server.metrics import Metrics
from server.notify.outbound import Outbound
from server.notify.push import PushChannel, VapidKeys
from server.notify.webhooks import Webhooks
from server.players import DeviceSockets, on_cluster_message
from server.rooms import RoomManager
from server.storage.db import Database, DatabaseTimeout
from server.storage.dbwriter import DatabaseWriter
from server.storage.source import DatabaseTables

if TYPE_CHECKING:
    from server.cluster import Cluster

log = logging.getLogger("felt")


_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory (Linux: ``/proc/self/statm``, ~6 us), None elsewhere."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return None


class CollectorTender:
    """Keeps garbage collections off the move path.

    Every move replaces a room's views with new objects, so the collector's young
    generations fill with live, recently changed state, and each older-generation pass
    walked all of it: measured with bench/load.py (open loop, 1,000 rooms x 1 move/s), p99
    was 11-16x the bare server's with the collector on and 1.1x with it off. So every second
    the survivors are frozen (``gc.freeze`` is a list splice, it scans nothing) where
    automatic collections never look. Cyclic garbage frozen that way stays until a full pass
    (everything unfrozen and collected once), the one pause that walks the whole heap. It
    runs when the process's resident memory has grown by ``growth`` since the last one (more
    rooms, or leaked cycles, to look through; CPython's own rule for its oldest generation
    is the same quarter, counted in objects), never sooner than ``min_every_s`` after the last
    (a server filling up with tables would otherwise walk its heap again at every quarter),
    and at least every ``full_every_s``. It used to run every ten minutes whatever the heap
    did; a parked or closed table now leaves no cycle (tests/rooms/test_rooms_unit.py), so a
    steady server has little for it to find.
    Memory, not ``gc.get_freeze_count()``: counting the frozen objects walks them all (a
    first version did it every second: 19% of the server's time at 300 rooms, py-spy), so it
    is read only right after a full pass, for the metrics.
    """

    def __init__(
        self,
        every_s: float = 1.0,
        full_every_s: float = 6 * 3600.0,
        growth: float = 0.25,
        min_every_s: float = 600.0,
    ) -> None:
        self.every_s, self.full_every_s = every_s, full_every_s
        self.growth, self.min_every_s = growth, min_every_s
        self.full_passes = 0
        self.last_full_s = 0.0
        self.frozen_after_full = 0  # objects frozen right after the last full pass
        self._resident_after_full: int | None = None
        self._last_full = time.monotonic()

    def full_pass(self) -> None:
        """Collect the whole heap once, then freeze what survived."""
        gc.unfreeze()
        started = time.perf_counter()
        found = gc.collect()
        self.last_full_s = time.perf_counter() - started
        # The one pass that walks the whole heap: the loop waits for it (docs/decisions/0010).
        log.info("full garbage collection: %d unreachable objects in %.1f ms", found, self.last_full_s * 1e3)
        gc.freeze()
        self.full_passes += 1
        self.frozen_after_full = gc.get_freeze_count()
        self._resident_after_full = resident_bytes()
        self._last_full = time.monotonic()

    def due(self) -> bool:
        """True when the heap has grown enough, or long enough has passed, for a full pass."""
        since = time.monotonic() - self._last_full
        if since >= self.full_every_s:
            return True
        if since < self.min_every_s:
            return False
        resident, baseline = resident_bytes(), self._resident_after_full
        return resident is not None and baseline is not None and resident > baseline * (1 + self.growth)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            if self.due():
                self.full_pass()
            gc.freeze()


class LoopWatch:
    """The longest the event loop ran without yielding, since it was last read (the bench's figure).

    A 1 ms ticker: each gap between ticks is bounded by the loop thread's own CPU time in it,
    so the time other processes of a shared machine take is not counted as a block. That
    bound cannot see the loop waiting for the interpreter lock while another thread of the
    process runs; ``longest_wall_s`` (the gap in wall time, read with ``take_wall``) sees both,
    so it means something only on a quiet machine.
    """

    def __init__(self) -> None:
        self.longest_s = self.longest_wall_s = 0.0

    def take(self) -> float:
        longest, self.longest_s = self.longest_s, 0.0
        return longest

    def take_wall(self) -> float:
        longest, self.longest_wall_s = self.longest_wall_s, 0.0
        return longest

    async def run(self) -> None:
        last, last_cpu = time.perf_counter(), time.thread_time()
        while True:
            await asyncio.sleep(0.001)
            now, cpu = time.perf_counter(), time.thread_time()
            gap = now - last - 0.001
            self.longest_s = max(self.longest_s, min(gap, cpu - last_cpu))
            self.longest_wall_s = max(self.longest_wall_s, gap)
            last, last_cpu = now, cpu


# Collect the young generation every 50,000 allocations, not 700: a server keeps many
# long-lived views and makes thousands of short-lived action lists per second.
GC_THRESHOLDS = (50_000, 20, 100)

# How long /healthz waits for the database's answer (at most FELT_DB_TIMEOUT_S).
HEALTH_TIMEOUT_S = 2.0

# What a stopping server does before its sockets are closed (see server/__main__.py): one
# coroutine function per running app.
DRAINS: list = []


async def drain_all() -> None:
    """Every running app: refuse new changes, make every logged change durable and shown."""
    for drain in list(DRAINS):  # a copy: an app that stops meanwhile removes its drain
        await drain()


async def _prepare(db: Database, rooms: RoomManager, first_try: asyncio.Event, upgraded: asyncio.Event) -> None:
    """Bring the schema up (then set ``upgraded``) and restore the tables, retrying while the
    database is unreachable.

    The server starts serving after the first try either way (``/healthz`` answers 503 until
    this is done), so a database outage never keeps it from starting.
    """
    delay = 0.25
    while True:
        try:
            # First a question with a deadline: a database that hangs fails it, and the server
            # serves (503 until this is done) instead of waiting for it before it starts.
            if not await db.call(db.ping):
                raise DatabaseTimeout("the database does not answer")
            await asyncio.to_thread(db.upgrade)
            upgraded.set()
            await rooms.restore_all()
            return
        except Exception as exc:  # noqa: BLE001 - the start never gives up: whatever fails, it tries again
            first_try.set()
            log.warning("the database is not ready (%s); retrying in %.1f s", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def _join_cluster(app: FastAPI, settings: Settings, rooms: RoomManager) -> Cluster | None:
    """Cluster mode (``FELT_REDIS_URL``): leases, the shared lobby and limits in Redis.

    The cluster module (and with it the Redis client, ~40 ms of a ~0.85 s import) is imported
    only here, so a single node never loads it."""
    app.state.cluster = None
    if not settings.redis_url:
        return None
    from server.cluster import Cluster, SharedRateLimiter

    cluster = app.state.cluster = Cluster(settings)
    rooms.join_cluster(cluster)
    cluster.attend_players(on_cluster_message(app))
    await cluster.start()
    app.state.limiter = SharedRateLimiter(cluster.link, rates_from(settings))
    return cluster


def _start_chores(app: FastAPI, settings: Settings) -> list[asyncio.Task]:
    """The collector's tending and, for the bench, the loop monitor: tasks that run until the stop."""
    # A server keeps many long-lived views: collect the young generation less often and
    # keep the long-lived heap out of the collector's sight (see CollectorTender).
    tender = app.state.collector = CollectorTender()
    tender.full_pass()
    gc.set_threshold(*GC_THRESHOLDS)
    loop = asyncio.get_running_loop()
    chores = [loop.create_task(tender.run())]
    watch = app.state.loop_watch = LoopWatch() if settings.loop_monitor else None
    if watch is not None:
        chores.append(loop.create_task(watch.run()))
    return chores


def _writer(settings: Settings, reports: WriterReports) -> DatabaseWriter:
    """The table log's writer, reporting to the rooms; no spool in cluster mode: another node
    may take a table while this one cannot reach the database (server/storage/dbwriter.py)."""
    spool = None if settings.redis_url else settings.spool_path
    return DatabaseWriter(
        settings.database_url,
        spool,
        retry_max_s=settings.db_retry_max_s,
        timeout_s=settings.db_timeout_s,
        reports=reports,
    )


def _add_channels(
    app: FastAPI, settings: Settings, db: Database, rooms: RoomManager, node: str | None, upgraded: asyncio.Event
) -> Outbound:
    """The ways players away from a table hear of it, on the notifier: groups' webhooks. They
    send through the one guarded client for user-given URLs (server/notify/outbound.py); their
    outbox (read once the schema is ``upgraded``) is shared with the other nodes in cluster
    mode (``node``: this one's name)."""
    outbound = app.state.outbound = Outbound(
        settings.outbound_allow_private, allow_networks=settings.outbound_allow_networks
    )
    webhooks = app.state.webhooks = Webhooks(
        db,
        outbound,
        settings.public_url,
        backoff_scale=settings.webhook_backoff_scale,
        inbox=settings.webhook_queue,
        node=node,
        shared=bool(settings.redis_url),
    )
    rooms.notifier.add(webhooks)
    webhooks.start(upgraded)
    return outbound


def _start_push(app: FastAPI, settings: Settings, db: Database, rooms: RoomManager) -> Outbound:
    """Web Push to players' devices: the VAPID key (``/api/push/key``) and a channel of the
    rooms' notifier; the guarded client it sends through (closed at the stop)."""
    outbound = Outbound(
        settings.outbound_allow_private,
        timeout_s=settings.push_timeout_s,
        allow_networks=settings.outbound_allow_networks,
        deadline_s=settings.push_timeout_s,
        max_connections=settings.push_senders,
    )
    secret = settings.vapid_private_key.get_secret_value() if settings.vapid_private_key else None
    keys = app.state.vapid = VapidKeys(db, secret, settings.push_contact)
    push = app.state.push = PushChannel(
        db, outbound, keys, senders=settings.push_senders, senders_per_host=settings.push_senders_per_host
    )
    push.start()
    rooms.notifier.add(push)
    return outbound


def _start_bodies(app: FastAPI, settings: Settings) -> tuple[ReplayWorkers, RecapPainters]:
    """The bodies built out of the event loop's way: replays and a night's recap card, each
    kept, a few built at a time, in worker processes of their own (started on first use)."""
    replay_workers = ReplayWorkers(str(settings.database_url), settings.replay_builds)
    app.state.replays = Replays(
        replay_builder(replay_workers),
        builds=settings.replay_builds,
        queue=settings.replay_queue,
        cache=BodyCache(settings.replay_cache_entries, settings.replay_cache_mb * 2**20),
    )
    recap_painters = app.state.recap_painters = RecapPainters(settings.recap_renders)
    app.state.recap_images = recap_images(settings)
    return replay_workers, recap_painters


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Storage, the writer and the rooms up (the tables restored, or restoring in the
    background while the database is down), and down again in order at the stop."""
    settings: Settings = app.state.settings
    db = Database(settings.database_url, timeout_s=settings.db_timeout_s)
    source = DatabaseTables(db)
    rooms = RoomManager(settings, functools.partial(_writer, settings), source)
    writer = cast(DatabaseWriter, rooms.writer)  # the one ``_writer`` made
    await writer.start()
    cluster = await _join_cluster(app, settings, rooms)
    rooms.start()
    upgraded = asyncio.Event()
    outbound = _add_channels(app, settings, db, rooms, cluster.node if cluster is not None else None, upgraded)
    app.state.db = db
    app.state.writer = writer
    app.state.tables = source
    app.state.rooms = rooms
    push_outbound = _start_push(app, settings, db, rooms)
    replay_workers, recap_painters = _start_bodies(app, settings)
    first_try = asyncio.Event()
    prepare = asyncio.get_running_loop().create_task(_prepare(db, rooms, first_try, upgraded))
    tried = asyncio.ensure_future(first_try.wait())
    await asyncio.wait({prepare, tried}, return_when=asyncio.FIRST_COMPLETED)
    tried.cancel()

    async def drain() -> None:
        await rooms.stop()
        try:
            await writer.flush(timeout=8)
        except TimeoutError as exc:
            log.error("stopping: %s", exc)
            return
        if cluster is not None:  # everything is durable: other nodes may take the tables now
            await cluster.release_all()

    DRAINS.append(drain)
    chores = _start_chores(app, settings)
    log.info("Felt %s ready on %s", __version__, db.describe())
    try:
        yield
    finally:
        DRAINS.remove(drain)
        prepare.cancel()
        for chore in chores:
            chore.cancel()
        await rooms.stop()
        await rooms.close()  # the notifier's channels with it
        await outbound.aclose()
        await push_outbound.aclose()
        await writer.close()
        await asyncio.to_thread(replay_workers.close)
        await asyncio.to_thread(recap_painters.close)
        if cluster is not None:
            await cluster.close()
        await asyncio.to_thread(db.dispose)


async def _health(app: FastAPI) -> dict:
    """/healthz: 200 when the database answers within its own short deadline and the tables
    are restored; 503 with Retry-After otherwise (never a wait for a database that hangs)."""
    db = app.state.db
    try:
        ok = await db.call(db.ping, timeout_s=min(HEALTH_TIMEOUT_S, db.timeout_s))
    except DatabaseTimeout:
        ok = False
    if not ok:
        raise ApiError(503, "unavailable", "The database does not answer.", {"Retry-After": "5"})
    if not app.state.rooms.restored:
        raise ApiError(503, "unavailable", "The tables are still being restored.", {"Retry-After": "1"})
    answer: dict = {"ok": True}
    if app.state.cluster is not None:
        answer["node"] = app.state.cluster.node
    if app.state.loop_watch is not None:
        answer["loop_block_max_ms"] = app.state.loop_watch.take() * 1000
    return answer


def create_app(settings: Settings | None = None) -> FastAPI:
    """A Felt application; uvicorn calls this with no arguments (``factory=True``)."""
    settings = settings or get_settings()
    web_dir = Path(settings.web_dir)

    app = FastAPI(
        title="Felt",
        version=__version__,
        summary="Real-time trick-taking card games: Oh Hell, Bid Whist, Tarabish, Ribs.",
        lifespan=_lifespan,
        docs_url=None,  # served below from the swagger-ui-bundle package: no CDN, works offline
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.cluster = None  # set by the lifespan in cluster mode
    app.state.metrics = Metrics(app.state)
    app.state.addresses = ClientAddresses(settings.trusted_proxies)
    app.state.limiter = MemoryRateLimiter(rates_from(settings))
    app.state.open_sockets = OpenSockets()
    app.state.device_sockets = DeviceSockets()
    install_error_handlers(app)
    app.include_router(api_router)
    install_rules_pages(app)
    app.add_middleware(RoomSockets)  # /ws/rooms/{code}: see server.edges.ws
    app.add_middleware(SecurityHeaders)  # CSP, no framing, no referrer, no sniffing
    app.add_middleware(RequestGuard, max_body_bytes=settings.max_body_bytes, body_timeout_s=settings.body_timeout_s)

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        body, content_type = app.state.metrics.render()
        return Response(body, media_type=content_type)

    @app.get("/healthz", tags=["health"], summary="The server and its database answer")
    async def healthz() -> dict:
        return await _health(app)

    def page(name: str) -> Callable[[], Awaitable[FileResponse]]:
        path = web_dir / name

        async def serve() -> FileResponse:
            return FileResponse(path, media_type="text/html", headers={"Cache-Control": "no-cache"})

        return serve

    for path, name in (
        ("/", "index.html"),
        ("/r/{code}", "room.html"),
        ("/history", "history.html"),
        ("/matches/{match_id}", "match.html"),
        ("/groups", "group.html"),
        ("/g/{code}", "group.html"),
        ("/devices", "devices.html"),
        ("/link", "devices.html"),
    ):
        app.add_api_route(path, page(name), methods=["GET", "HEAD"], include_in_schema=False)
    _serve_service_worker(app, web_dir)
    app.mount("/static", StaticFiles(directory=web_dir), name="static")
    _serve_docs(app)
    return app


def _serve_service_worker(app: FastAPI, web_dir: Path) -> None:
    """web/sw.js at /sw.js: at the root, so that its scope is the whole site (Web Push)."""

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> FileResponse:
        return FileResponse(web_dir / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})


def _serve_docs(app: FastAPI) -> None:
    """Swagger UI at /docs, its scripts and styles from the installed package (no internet needed)."""
    app.mount("/docs-static", StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url="/docs-static/swagger-ui-bundle.js",
            swagger_css_url="/docs-static/swagger-ui.css",
            swagger_favicon_url="/docs-static/favicon-32x32.png",
        )
