"""Fuzzing a real server (issue 19): hypothesis over WebSocket frames and schemathesis over
``/openapi.json``. Each is bounded by a fixed number of examples drawn from a fixed seed
(``derandomize``: the same cases every run), and must produce no 5xx answer, no ``internal``
error frame, no 1011 close, and no traceback in the server's log.

Marked ``slow``: ``make test`` runs them; ``-m "not slow"`` is the fast lane.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import orjson
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from live_server import LiveServer
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.slow

KNOWN_TYPES = ["sit", "stand", "bot", "start", "act", "chat", "resync", "ping"]
FIXED = dict(
    derandomize=True,  # a fixed seed: the same examples every run
    database=None,
    deadline=None,
    phases=[Phase.generate],  # no shrinking: a failure is reported as found
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LiveServer]:
    # No frame-rate limit here (the limit has its own tests): a fuzz socket sends two frames a
    # round trip, faster than the default test server's 1,000 a second once the burst is
    # spent, and a refused ping never gets the pong its exchange waits for.
    server = LiveServer(
        tmp_path_factory.mktemp("fuzz"), FELT_MAX_FRAMES_PER_SECOND="1000000", FELT_FRAME_BURST="1000000"
    )
    yield server
    server.stop()


def _player(server: LiveServer, name: str) -> dict:
    r = httpx.post(server.base + "/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()


def assert_no_traceback(server: LiveServer) -> None:
    server.log.flush()
    log = Path(server.log.name).read_text()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-4000:]


# ---- WebSocket frames ---------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
typed = st.fixed_dictionaries(
    {"type": st.sampled_from(KNOWN_TYPES)},
    optional={
        "seat": json_values,
        "remove": json_values,
        "text": json_values,
        "v": json_values,
        "action": st.fixed_dictionaries(
            {"type": st.sampled_from(["bid", "play", "pass", "pair", "ribs", "x"])},
            optional={"value": json_values, "card": json_values, "cards": json_values},
        ),
        "extra": json_values,
    },
).map(json.dumps)
frames = st.one_of(
    typed,
    st.text(max_size=200),  # not JSON, mostly
    json_values.map(json.dumps),  # JSON, rarely an object with a type
    st.integers(1, 3000).map(lambda n: '{"type":"act","v":0,"action":' + "[" * n + "]" * n + "}"),  # deep
    st.integers(1, 3000).map(lambda n: '{"type":"chat","text":' + "[" * n + '"x"' + "]" * n + "}"),
    st.integers(10**18, 10**300).map(lambda n: f'{{"type":"sit","seat":{n}}}'),  # huge numbers
    st.sampled_from(
        [
            '{"type":"sit","seat":1e400}',
            '{"type":"act","v":-0.0,"action":{"type":"bid","value":NaN}}',
            '{"type":"chat","text":"\\ud800"}',
            '{"type":"ping"',
            "\x00",
            "{" * 5000,
        ]
    ),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=300).map(
        lambda t: json.dumps({"type": "chat", "text": t}, ensure_ascii=False)
    ),  # unicode
    st.binary(max_size=200),
)


class Socket:
    """One room socket that reconnects when the server closes it, checking every frame it reads."""

    def __init__(self, server: LiveServer, code: str, token: str) -> None:
        self.url = f"{server.ws_base}/ws/rooms/{code}?token={token}"
        self.ws: ClientConnection | None = None
        self.opened = ExitStack()

    def _open(self) -> ClientConnection:
        if self.ws is None:
            self.ws = self.opened.enter_context(connect(self.url, max_size=2**22, compression=None, open_timeout=10))
        return self.ws

    def close(self) -> None:
        self.opened.close()

    def exchange(self, frame: str | bytes) -> None:
        """Send ``frame`` then a ping, and read up to the pong (or the close)."""
        ws = self._open()
        try:
            ws.send(frame)
            ws.send('{"type":"ping"}')
            while True:
                reply = orjson.loads(ws.recv(timeout=10))
                assert not (reply["type"] == "error" and reply["code"] == "internal"), (frame, reply)
                if reply["type"] == "pong":
                    return
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            assert code in (1000, 1008, 1009), (frame, code)
            self.ws = None


def test_random_and_malformed_websocket_frames_never_hurt_the_server(server):
    host = _player(server, "Fuzzer")
    r = httpx.post(
        server.base + "/api/rooms",
        json={"game": "oh_hell", "options": {"max_cards": 2}, "seats": 3},
        headers={"Authorization": f"Bearer {host['token']}"},
    )
    sock = Socket(server, r.json()["code"], host["token"])

    @settings(max_examples=400, **FIXED)
    @given(batch=st.lists(frames, min_size=1, max_size=4))
    def fuzz(batch: list) -> None:
        for frame in batch:
            sock.exchange(frame)

    try:
        fuzz()
    finally:
        sock.close()
    assert httpx.get(server.base + "/healthz").status_code == 200
    assert_no_traceback(server)


# ---- HTTP, from the OpenAPI document ---------------------------------------------------------


def test_schemathesis_finds_no_5xx_in_the_http_api(server):
    token = _player(server, "Schema")["token"]
    schema = schemathesis.openapi.from_url(server.base + "/openapi.json")
    failures: list[str] = []
    auth = {"Authorization": f"Bearer {token}"}
    with requests.Session() as session:
        for result in schema.get_all_operations():
            operation = result.ok()
            for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):

                @settings(max_examples=60, **FIXED)
                @given(case=operation.as_strategy(generation_mode=mode))
                def fuzz(case) -> None:
                    r = case.call(base_url=server.base, session=session, headers=auth, timeout=30)
                    if r.status_code >= 500:
                        failures.append(f"{case.method} {case.formatted_path} -> {r.status_code} {r.text[:200]}")

                try:
                    fuzz()
                except Unsatisfiable:  # nothing to make invalid (no parameters, no body)
                    continue
    assert not failures, failures[:10]
    assert httpx.get(server.base + "/healthz").status_code == 200
    assert_no_traceback(server)
