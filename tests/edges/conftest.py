"""A real Felt server on loopback for the room and WebSocket tests (uvicorn in a subprocess)."""

from __future__ import annotations

import pytest
from live_server import LiveServer


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("live"))
    yield server
    server.stop()
