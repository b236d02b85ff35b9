"""A real Felt server on loopback for the room and WebSocket tests (uvicorn in a subprocess):
one for the session, and one per module on each database (``server``)."""

from __future__ import annotations

import pytest
from live_server import LiveServer, served_on


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """A server for the module's tests, on SQLite and on a PostgreSQL database of its own."""
    label = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_").removesuffix("_live")
    with served_on(request.param, tmp_path_factory, label) as live:
        yield live


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("live"))
    yield server
    server.stop()
