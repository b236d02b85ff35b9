"""A real Felt server on loopback for the room and WebSocket tests (uvicorn in a subprocess)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests' helpers: live_server, ws_client

from live_server import LiveServer  # noqa: E402


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("live"))
    yield server
    server.stop()
