"""Resource exhaustion, through a real server (issue 19, item 5): slow or oversized requests
are cut, connections are capped below the descriptor limit with /healthz still answered,
per-address limits answer 429 (HTTP) or close 1008 (WebSocket), the lobby is paged, and a
client that never reads is cut however much the kernel buffers for it."""

from __future__ import annotations

import asyncio
import base64
import resource
import select
import socket
import time
from pathlib import Path

import httpx
import orjson
import pytest
from live_server import LiveServer
from ws_client import Client, new_player, new_room

WS_KEY = base64.b64encode(b"felt-hardening16").decode()  # 16 bytes, as RFC 6455 asks


def raw_upgrade(port: int, code: str, rcvbuf: int | None = None) -> socket.socket:
    """A socket that completes a WebSocket handshake to room ``code`` and reads nothing more."""
    s = socket.socket()
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    s.sendall(
        (
            f"GET /ws/rooms/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, "the server closed the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def established(local_port: int) -> bool:
    """Whether this process's TCP socket on ``local_port`` is still ESTABLISHED (from /proc)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].split(":")[1], 16) == local_port and fields[3] == "01":
                return True
    return False


def wait_closed_by_peer(sock: socket.socket, timeout: float) -> bytes:
    """Read until the server closes the connection (b'' or a reset); what it sent before."""
    sock.settimeout(timeout)
    got = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return got
            got += chunk
    except ConnectionResetError:
        return got


def raw_request(port: int, data: bytes) -> bytes:
    """Send ``data`` on a new connection; everything the server answers before it closes."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(data)
        return wait_closed_by_peer(s, 10)


def error_code(answer: bytes) -> str:
    return orjson.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"]


async def test_a_slowloris_client_is_cut_and_healthz_still_answers(tmp_path):
    server = LiveServer(tmp_path, FELT_HEADER_TIMEOUT_S="1")
    socks: list[socket.socket] = []
    try:
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
            socks.append(s)
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.get("/healthz")).status_code == 200
        began = time.monotonic()
        for s in socks:
            remaining = max(0.5, 15 - (time.monotonic() - began))
            assert wait_closed_by_peer(s, remaining) == b"", "a half-sent request got an answer"
        # A client trickling its headers a byte at a time is cut all the same.
        trickle = socket.create_connection(("127.0.0.1", server.port))
        trickle.settimeout(0.2)
        cut = False
        for byte in b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200:
            try:
                trickle.sendall(bytes([byte]))
                if trickle.recv(1) == b"":
                    cut = True
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                cut = True
                break
        assert cut, "a trickled request line was never cut"
        trickle.close()
    finally:
        for s in socks:
            s.close()
        server.stop()


async def test_oversized_and_slow_request_bodies_get_json_errors(tmp_path):
    server = LiveServer(tmp_path, FELT_BODY_TIMEOUT_S="1", FELT_MAX_BODY_BYTES="2048")
    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            r = await http.post(
                "/api/players",
                content=b'{"name": "' + b"x" * 5000 + b'"}',
                headers={"content-type": "application/json"},
            )
            assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"

            async def chunks():
                for _ in range(10):
                    yield b" " * 1000  # no length declared: counted as it arrives

            r = await http.post("/api/players", content=chunks(), headers={"content-type": "application/json"})
            assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
            assert r.headers["connection"] == "close"  # not kept alive for the rest of that body
        # A declared 100 MB body is refused before a byte of it is read.
        answer = raw_request(
            server.port,
            b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n",
        )
        assert answer.startswith(b"HTTP/1.1 413") and error_code(answer) == "too_large", answer[:100]
        # A body that stops arriving gets 408 after the body deadline.
        answer = raw_request(
            server.port,
            b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"name": ',
        )
        assert answer.startswith(b"HTTP/1.1 408") and error_code(answer) == "timeout", answer[:100]
        assert b"\r\nconnection: close\r\n" in answer.split(b"\r\n\r\n", 1)[0].lower() + b"\r\n", answer[:300]
        # Headers over the cap: 431, in the error shape.
        answer = raw_request(server.port, b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 431") and error_code(answer) == "headers_too_large", answer[:100]
        # ... and on a kept-alive connection's second request as on its first.
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            first = b""
            while not first.endswith(b'{"ok":true}'):
                first += s.recv(4096)
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
            answer = wait_closed_by_peer(s, 10)
        assert answer.startswith(b"HTTP/1.1 431"), answer[:100]
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.get("/healthz")).status_code == 200
    finally:
        server.stop()


def send_after_the_answer(port: int, head: bytes, chunks: int = 40) -> bytes:
    """Send ``head`` and a first piece of body, wait until the answer has arrived (without
    reading it), send ``chunks`` more pieces slowly, then read: what a client still busy
    sending its body when the server answers does. A reset on the way is an empty answer."""
    piece = b" " * 16384
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(head + piece)
        readable, _, _ = select.select([s], [], [], 60)
        assert readable, "no answer within 60 s"
        try:
            for _ in range(chunks):
                s.sendall(piece)
                time.sleep(0.01)
        except OSError:  # reset by the server: what was sent to us is gone with it
            return b""
        s.settimeout(30)
        answer = b""
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except OSError:
            return b""
        return answer


async def test_a_refused_body_lets_a_client_still_sending_read_its_answer(tmp_path):
    """A body refused part way (413, declared or counted) is followed by a lingering close:
    the server ends its side after the answer, reads and drops what the client is still
    sending, then closes, so the client reads the answer instead of a connection reset."""
    server = LiveServer(tmp_path, FELT_MAX_BODY_BYTES="2048")
    try:
        declared = send_after_the_answer(
            server.port,
            b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n",
        )
        assert declared.startswith(b"HTTP/1.1 413") and error_code(declared) == "too_large", declared[:100]
        counted = send_after_the_answer(
            server.port,
            b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % 16384,
        )
        assert counted.startswith(b"HTTP/1.1 413") and error_code(counted) == "too_large", counted[:100]
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.get("/healthz")).status_code == 200
    finally:
        server.stop()


async def test_connections_past_the_cap_get_503_but_healthz_answers(tmp_path):
    server = LiveServer(tmp_path, FELT_MAX_CONNECTIONS="40", FELT_HEADER_TIMEOUT_S="60")
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(45)]
    try:
        await asyncio.sleep(0.3)
        async with httpx.AsyncClient(base_url=server.base) as http:
            r = await http.get("/api/games")
            assert r.status_code == 503 and r.json()["error"]["code"] == "overloaded"
            assert r.headers["retry-after"]
            assert (await http.get("/healthz")).status_code == 200
        p_code = "ANYCODE2"
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(
            (
                f"GET /ws/rooms/{p_code} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert wait_closed_by_peer(s, 10).startswith(b"HTTP/1.1 503")
        s.close()
    finally:
        for s in idle:
            s.close()
    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            for _ in range(100):
                if (await http.get("/api/games")).status_code == 200:
                    break
                await asyncio.sleep(0.05)
            assert (await http.get("/api/games")).status_code == 200
    finally:
        server.stop()


def test_the_server_raises_its_open_file_limit_to_the_hard_limit(tmp_path):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard <= 1024:
        pytest.skip("the hard open-file limit is too low to tell")
    server = LiveServer(tmp_path, preexec=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard)))
    try:
        limits = Path(f"/proc/{server.proc.pid}/limits").read_text()
        line = next(x for x in limits.splitlines() if x.startswith("Max open files"))
        assert line.split()[3] == str(hard), line
    finally:
        server.stop()


async def test_creating_players_and_rooms_is_limited_per_address(tmp_path):
    server = LiveServer(
        tmp_path,
        FELT_RATE_PLAYERS_BURST="3",
        FELT_RATE_PLAYERS_PER_MINUTE="0.01",
        FELT_RATE_ROOMS_BURST="2",
        FELT_RATE_ROOMS_PER_MINUTE="0.01",
        FELT_TRUSTED_PROXIES="127.0.0.1",
    )
    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            made = [await http.post("/api/players", json={"name": f"P{i}"}) for i in range(3)]
            assert [r.status_code for r in made] == [201, 201, 201]
            r = await http.post("/api/players", json={"name": "P3"})
            assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
            assert int(r.headers["retry-after"]) >= 1
            # Behind a trusted proxy, each forwarded client has its own bucket.
            r = await http.post("/api/players", json={"name": "Far"}, headers={"X-Forwarded-For": "203.0.113.9"})
            assert r.status_code == 201
            auth = {"Authorization": f"Bearer {made[0].json()['token']}"}
            rooms = [await http.post("/api/rooms", json={"game": "ribs"}, headers=auth) for _ in range(3)]
            assert [r.status_code for r in rooms] == [201, 201, 429]
            assert rooms[2].json()["error"]["code"] == "rate_limited" and rooms[2].headers["retry-after"]
    finally:
        server.stop()


async def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy(tmp_path):
    server = LiveServer(tmp_path, FELT_RATE_PLAYERS_BURST="1", FELT_RATE_PLAYERS_PER_MINUTE="0.01")
    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.post("/api/players", json={"name": "One"})).status_code == 201
            spoofed = await http.post("/api/players", json={"name": "Two"}, headers={"X-Forwarded-For": "198.51.100.1"})
            assert spoofed.status_code == 429
    finally:
        server.stop()


async def test_an_ipv6_host_has_one_budget_for_its_whole_64(tmp_path):
    """A host is handed a /64: its addresses share one budget of link-code guesses, and an
    IPv4 client reached over IPv6 (an IPv4-mapped address) shares its IPv4 address's."""
    server = LiveServer(
        tmp_path, FELT_RATE_LINKS_BURST="2", FELT_RATE_LINKS_PER_MINUTE="0.01", FELT_TRUSTED_PROXIES="127.0.0.1"
    )

    async def guess(http, address: str) -> int:
        r = await http.post("/api/players/link", json={"code": "ABCD2345"}, headers={"X-Forwarded-For": address})
        return r.status_code

    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            host = [f"2001:db8:1:2::{i:x}" for i in range(1, 5)]
            assert [await guess(http, a) for a in host] == [404, 404, 429, 429]
            assert await guess(http, "2001:db8:1:2:ffff:ffff:ffff:ffff") == 429
            assert await guess(http, "2001:db8:1:3::1") == 404, "the next /64 is another host"
            assert [await guess(http, a) for a in ("203.0.113.9", "::ffff:203.0.113.9", "::ffff:cb00:7109")] == [
                404,
                404,
                429,
            ]
    finally:
        server.stop()


async def test_guessing_room_codes_is_limited_over_http_and_websocket(tmp_path):
    server = LiveServer(tmp_path, FELT_RATE_LOOKUPS_BURST="3", FELT_RATE_LOOKUPS_PER_MINUTE="0.01")
    try:
        p = await new_player(server.base, "Guesser")
        real = await new_room(server.base, p["token"], "ribs", {"target": 1})
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.get(f"/api/rooms/{real}")).status_code == 200  # a hit costs nothing
            misses = [(await http.get(f"/api/rooms/NOPE{i:04d}")).status_code for i in range(2)]
            assert misses == [404, 404]
        miss = Client(server.ws_base, "NOPE9999", None, "guess")
        with pytest.raises(AssertionError):
            await miss.connect()
        assert miss.errors[0]["code"] == "not_found" and miss.closed[0] == 4404
        async with httpx.AsyncClient(base_url=server.base) as http:
            r = await http.get(f"/api/rooms/{real}")  # out of guesses: even a right code waits
            assert r.status_code == 429 and r.headers["retry-after"]
        blocked = Client(server.ws_base, real, None, "blocked")
        with pytest.raises(AssertionError):
            await blocked.connect()
        assert blocked.errors[0]["code"] == "rate_limited" and blocked.closed[0] == 1008
    finally:
        server.stop()


async def test_the_lobby_is_paged_newest_first(live_server):
    p = await new_player(live_server.base, "Pager")
    made = [await new_room(live_server.base, p["token"], "oh_hell", {"max_cards": 1}) for _ in range(7)]
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        codes: list[str] = []
        cursor = None
        pages = 0
        while True:
            params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
            body = (await http.get("/api/rooms", params=params)).json()
            assert len(body["rooms"]) <= 3
            codes += [r["code"] for r in body["rooms"]]
            pages += 1
            cursor = body["next"]
            if cursor is None:
                break
        assert len(codes) == len(set(codes))
        mine = [c for c in codes if c in made]
        assert mine == list(reversed(made)), "not newest first, or a room was skipped"
        assert pages >= 3
        whole = (await http.get("/api/rooms")).json()
        assert len(whole["rooms"]) <= 50 and "next" in whole
        assert (await http.get("/api/rooms", params={"limit": 201})).status_code == 422
        bad = await http.get("/api/rooms", params={"cursor": "not-a-cursor"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_cursor"


async def test_a_socket_that_never_reads_is_cut_within_a_bounded_time(tmp_path):
    # The talker chats as fast as the server answers for the seconds the cut-off takes: on a
    # quick machine that is well over the suite's 1,000 frames a second, so lift that limit too.
    server = LiveServer(
        tmp_path,
        FELT_WS_SEND_TIMEOUT_S="2",
        FELT_CHAT_PER_MINUTE="1000000",
        FELT_MAX_FRAMES_PER_SECOND="1000000",
        FELT_FRAME_BURST="1000000",
    )
    try:
        p = await new_player(server.base, "Talker")
        code = await new_room(server.base, p["token"], "ribs", {"target": 1})
        talker = await Client(server.ws_base, code, p["token"], "talker").connect()
        stalled = raw_upgrade(server.port, code, rcvbuf=4096)
        port = stalled.getsockname()[1]
        line = "x" * 290
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        sent = 0
        while established(port):
            assert loop.time() < deadline, f"a socket that never reads was still open after {sent} chat lines"
            target = talker.v + 20
            for _ in range(20):
                await talker.send({"type": "chat", "text": f"{sent} {line}"})
                sent += 1
            await talker.wait(lambda c, target=target: c.v >= target, what="the chat lines")
        assert talker.closed is None, "the reading client was cut too"
        await talker.send({"type": "ping"})
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.get("/healthz")).status_code == 200
        stalled.close()
        await talker.close()
    finally:
        server.stop()
