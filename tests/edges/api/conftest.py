"""A tiny app per test: only the module's router (``ROUTER``), the error shape and a SQLite file."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from server.edges.api.errors import install_error_handlers
from server.edges.api.matches import replay_builder
from server.edges.api.replays import BodyCache, Replays, ReplayWorkers
from server.storage.db import Database


@pytest.fixture
def db(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'api.db'}")
    db.upgrade()
    yield db
    db.dispose()


@pytest.fixture
async def client(db, request):
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(request.module.ROUTER, prefix="/api")
    app.state.db = db
    workers = ReplayWorkers(db.url.render_as_string(hide_password=False), 1)  # started on a first replay
    app.state.replays = Replays(replay_builder(workers), builds=1, queue=4, cache=BodyCache(4, 2**24))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://felt") as client:
        yield client
    workers.close()
