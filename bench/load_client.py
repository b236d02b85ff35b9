"""The load generator: many WebSocket clients in ONE asyncio process, driven over stdin/stdout.

``python -m bench.load_client --target felt|bare --port P`` reads one JSON command per line
and answers one JSON line each:

- ``{"cmd": "grow", "rooms": N, "start": true}``: open rooms until there are N (Felt: create
  the room over HTTP, connect its 4 players, sit them, optionally start; bare: 4 sockets);
- ``{"cmd": "start"}``: start every room not started yet (Felt);
- ``{"cmd": "run", "mode": "closed"|"open", "rooms": N, "seconds": S, "warmup": W}``: drive the
  first N rooms, then report actions, patches, latencies and frame-order errors (open loop:
  ``"period": P, "jitter": J`` for one action a room every P seconds, each moved by up to J of
  a period; by default 1 s and none);
- ``{"cmd": "quit"}``.

Closed loop: the seat that must act acts as soon as its connection has the patch that makes
it its turn. Open loop: each room acts once a period (1 s unless told) at its own offset
within it. Latency of an action: from just before its frame is written to the moment the
room's LAST connection has parsed the patch of the version it produced (all four sockets
live in this process, so one clock measures both ends). Every connection checks that the
versions it sees go up by exactly one (Felt: ``v``; bare: the sequence number in the frame).
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import random
import resource
import sys
import time
from typing import ClassVar

import orjson

from bench.wsclient import http_json, ws_connect

HOST = "127.0.0.1"
perf = time.perf_counter
dumps = orjson.dumps
loads = orjson.loads


# ---- a minimal RFC 6902 applier for the client's copy of its view ------------------------


def _unesc(s: str) -> str:
    return s.replace("~1", "/").replace("~0", "~") if "~" in s else s


def apply_patch(doc, ops):
    for op in ops:
        kind = op["op"]
        path = op["path"]
        if path == "":
            doc = None if kind == "remove" else op["value"]
            continue
        parts = path.split("/")
        target = doc
        for p in parts[1:-1]:
            target = target[int(p)] if type(target) is list else target[_unesc(p)]
        last = parts[-1]
        if type(target) is list:
            if kind == "add":
                if last == "-":
                    target.append(op["value"])
                else:
                    target.insert(int(last), op["value"])
            elif kind == "remove":
                del target[int(last)]
            elif kind == "replace":
                target[int(last)] = op["value"]
            else:
                raise ValueError(f"unsupported op {kind}")
        else:
            key = _unesc(last)
            if kind == "add" or kind == "replace":
                target[key] = op["value"]
            elif kind == "remove":
                del target[key]
            else:
                raise ValueError(f"unsupported op {kind}")
    return doc


# ---- state ---------------------------------------------------------------------------------


class D:
    """The driver's global counters (one process, one loop)."""

    target = "felt"
    port = 0
    mode: str | None = None
    ws = 0.0  # measurement window start/end (perf_counter)
    we = -1.0
    rooms: ClassVar[list] = []
    players: ClassVar[list] = []
    games: ClassVar[list] = []
    replace = True
    # counters of the current run
    actions = 0
    actions_total = 0
    patches = 0
    frames_total = 0
    lat: ClassVar[list] = []
    lost = 0
    ooo = 0
    patch_fail = 0
    errors: ClassVar[dict] = {}
    skipped = 0
    finished = 0
    replaced = 0
    retries = 0
    create_retries = 0  # rooms asked for again after a 503, since the client started


def reset_counters() -> None:
    D.actions = D.actions_total = D.patches = D.frames_total = 0
    D.lat = []
    D.lost = D.ooo = D.patch_fail = D.skipped = D.finished = D.replaced = D.retries = 0
    D.errors = {}


class CRoom:
    __slots__ = (
        "active",
        "code",
        "conns",
        "finished",
        "game",
        "idx",
        "pending",
        "retired",
        "rng",
        "seq",
        "started",
        "vmax",
    )

    def __init__(self, idx: int, code: str, game: str) -> None:
        self.idx = idx
        self.code = code
        self.game = game
        self.conns: list[CConn] = []
        self.pending: dict[int, list] = {}  # version or seq -> [t_sent, receipts, in_window]
        self.active = False
        self.finished = False
        self.retired = False
        self.started = False
        self.seq = 0
        self.vmax = 0
        self.rng = random.Random(f"bench:{idx}:{code}")


class CConn:
    __slots__ = ("acted_v", "room", "seat", "seen", "token", "tries", "v", "view", "waiter", "ws")

    def __init__(self, room: CRoom, seat: int, token: str | None = None) -> None:
        self.room = room
        self.seat = seat
        self.ws = None
        self.view = None
        self.v = -1
        self.acted_v = -1
        self.seen = 0
        self.waiter: asyncio.Future | None = None
        self.token = token
        self.tries = 0

    async def wait(self, pred, timeout: float = 15.0) -> None:
        deadline = perf() + timeout
        loop = asyncio.get_running_loop()
        while not pred():
            left = deadline - perf()
            if left <= 0:
                raise TimeoutError(f"room {self.room.code} seat {self.seat}: condition not met")
            self.waiter = loop.create_future()
            try:
                await asyncio.wait_for(self.waiter, left)
            except TimeoutError:
                pass
            finally:
                self.waiter = None


def _wake(conn: CConn) -> None:
    w = conn.waiter
    if w is not None and not w.done():
        w.set_result(None)


# ---- Felt ----------------------------------------------------------------------------------


def felt_act(conn: CConn) -> bool:
    """Send an action if it is this connection's seat's turn at its current version."""
    view = conn.view
    if view is None or conn.acted_v == conn.v:
        return False
    g = view.get("game")
    if not g or view["room"]["status"] != "playing":
        return False
    if conn.seat not in g["to_act"]:
        return False
    legal = g.get("legal")
    if not legal:
        return False
    room = conn.room
    action = room.rng.choice(legal)
    if action.get("type") == "discard" and "count" in action:
        action = {"type": "discard", "cards": room.rng.sample(g["hand"], action["count"])}
    conn.acted_v = conn.v
    t = perf()
    inwin = D.ws <= t <= D.we
    room.pending[conn.v + 1] = [t, 0, inwin]
    conn.ws.send(dumps({"type": "act", "action": action, "v": conn.v}))
    D.actions_total += 1
    if inwin:
        D.actions += 1
    return True


def arrived(handler):
    """Stamp each frame as it is read, and handle it after the loop's current reads.

    Handled inline, the parsing and patching of the first sockets' frames would be counted
    in the latency of a room's last socket whenever several arrive in one read pass: that
    is this client's work, not the server's. Both servers' clients are measured this way.
    """
    call_soon = asyncio.get_running_loop().call_soon

    def on_message(ws, payload: bytes) -> None:
        call_soon(handler, ws, payload, perf())

    return on_message


def on_felt(ws, payload: bytes, t: float) -> None:
    conn: CConn = ws.owner
    room = conn.room
    if room.retired:
        return
    msg = loads(payload)
    kind = msg["type"]
    D.frames_total += 1
    if kind == "patch":
        v = msg["v"]
        if v != conn.v + 1:
            if v <= conn.v:
                D.ooo += 1
            else:
                D.lost += v - conn.v - 1
        conn.v = v
        if v > room.vmax:
            room.vmax = v
        try:
            conn.view = apply_patch(conn.view, msg["ops"])
        except Exception:
            D.patch_fail += 1
        if D.ws <= t <= D.we:
            D.patches += 1
        p = room.pending.get(v)
        if p is not None:
            p[1] += 1
            if p[1] == len(room.conns):
                del room.pending[v]
                if p[2]:
                    D.lat.append(t - p[0])
        view = conn.view
        if view is not None and view["room"]["status"] == "finished" and not room.finished:
            room.finished = True
            D.finished += 1
            if D.replace and room.started:
                asyncio.get_running_loop().create_task(replace_room(room))
        elif D.mode == "closed" and room.active:
            conn.tries = 0
            felt_act(conn)
    elif kind == "snapshot":
        conn.view = msg["state"]
        conn.v = msg["v"]
        if conn.v > room.vmax:
            room.vmax = conn.v
    elif kind == "error":
        code = msg.get("code", "?")
        D.errors[code] = D.errors.get(code, 0) + 1
        # A refused action produces no version: forget it and (closed loop) choose again.
        p = room.pending.get(conn.acted_v + 1)
        if conn.acted_v == conn.v and p is not None and p[1] == 0:
            del room.pending[conn.acted_v + 1]
            conn.acted_v = -1
            if D.mode == "closed" and room.active and conn.tries < 3:
                conn.tries += 1
                D.retries += 1
                felt_act(conn)
    _wake(conn)


async def make_felt_room(idx: int) -> CRoom:
    game = D.games[idx % len(D.games)]
    base = (4 * idx) % len(D.players)
    toks = D.players[base : base + 4]
    for attempt in range(8):  # 503 says "try again in a moment" (a cluster node short of Redis)
        status, body = await http_json(
            HOST, D.port, "POST", "/api/rooms", {"game": game, "options": {}, "seats": 4}, toks[0]
        )
        if status != 503:
            break
        D.create_retries += 1
        await asyncio.sleep(0.25 * (attempt + 1))
    if status != 201:
        raise RuntimeError(f"create room: {status} {body}")
    room = CRoom(idx, body["code"], game)
    for seat in range(4):
        conn = CConn(room, seat, toks[seat])
        room.conns.append(conn)
        conn.ws = await ws_connect(HOST, D.port, f"/ws/rooms/{room.code}?token={toks[seat]}", arrived(on_felt), conn)
    for conn in room.conns:
        await conn.wait(lambda c=conn: c.view is not None)
    for conn in room.conns[1:]:
        conn.ws.send(dumps({"type": "sit", "seat": conn.seat}))
        await conn.wait(lambda c=conn: c.view["you"] == c.seat)
    return room


async def start_felt_room(room: CRoom) -> None:
    host = room.conns[0]
    host.ws.send(b'{"type":"start"}')
    for conn in room.conns:
        await conn.wait(lambda c=conn: c.view["room"]["status"] == "playing" and c.v == room.vmax)
    room.started = True


async def replace_room(old: CRoom) -> None:
    """A finished match is replaced by a new room of the same game (as 'Play again' would)."""
    try:
        new = await make_felt_room(old.idx)
        await start_felt_room(new)
    except Exception as err:  # counted, never fatal
        D.errors["replace_failed"] = D.errors.get("replace_failed", 0) + 1
        print(f"replace failed: {err!r}", file=sys.stderr)
        return
    new.active = old.active
    old.retired = True
    for c in old.conns:
        c.ws.close()
    if old.idx < len(D.rooms) and D.rooms[old.idx] is old:
        D.rooms[old.idx] = new
    D.replaced += 1
    if D.mode == "closed" and new.active:
        for c in new.conns:
            felt_act(c)


# ---- bare ----------------------------------------------------------------------------------

BARE_ACTION = b'"action":{"type":"play","card":"10H"}'


def bare_act(conn: CConn) -> bool:
    room = conn.room
    s = conn.seen + 1
    if (s - 1) % 4 != conn.seat:
        return False
    conn.seen = s
    room.seq = s
    t = perf()
    inwin = D.ws <= t <= D.we
    room.pending[s] = [t, 0, inwin]
    conn.ws.send(b'{"type":"act","s":%d,%s,"v":%d}' % (s, BARE_ACTION, s))
    D.actions_total += 1
    if inwin:
        D.actions += 1
    return True


def on_bare(ws, payload: bytes, t: float) -> None:
    conn: CConn = ws.owner
    room = conn.room
    msg = loads(payload)
    D.frames_total += 1
    s = msg.get("s")
    if s is None:  # the registration snapshot
        conn.view = msg
        _wake(conn)
        return
    if s != conn.seen + 1:
        if s <= conn.seen:
            D.ooo += 1
        else:
            D.lost += s - conn.seen - 1
    conn.seen = s
    if D.ws <= t <= D.we:
        D.patches += 1
    p = room.pending.get(s)
    if p is not None:
        p[1] += 1
        if p[1] == len(room.conns) - 1:
            del room.pending[s]
            if p[2]:
                D.lat.append(t - p[0])
    if D.mode == "closed" and room.active and s % 4 == conn.seat:
        bare_act(conn)


async def make_bare_room(idx: int) -> CRoom:
    room = CRoom(idx, f"b{idx}", "bare")
    for seat in range(4):
        conn = CConn(room, seat)
        room.conns.append(conn)
        conn.ws = await ws_connect(HOST, D.port, f"/ws/bare/{room.code}", arrived(on_bare), conn)
        await conn.wait(lambda c=conn: c.view is not None)
    room.started = True
    return room


# ---- commands ----------------------------------------------------------------------------


async def _bounded(coros, limit: int = 24) -> list:
    sem = asyncio.Semaphore(limit)

    async def one(c):
        async with sem:
            return await c

    return await asyncio.gather(*(one(c) for c in coros))


async def cmd_grow(n: int, start: bool) -> dict:
    t0 = perf()
    if D.target == "felt" and not D.players:
        for i in range(64):
            status, body = await http_json(HOST, D.port, "POST", "/api/players", {"name": f"Bench {i}"})
            if status != 201:
                raise RuntimeError(f"create player: {status} {body}")
            D.players.append(body["token"])
    first = len(D.rooms)
    maker = make_felt_room if D.target == "felt" else make_bare_room
    new = await _bounded([maker(i) for i in range(first, n)])
    D.rooms.extend(new)
    if start and D.target == "felt":
        await _bounded([start_felt_room(r) for r in D.rooms if not r.started])
    return {"rooms": len(D.rooms), "added": len(new), "seconds": perf() - t0, "create_retries": D.create_retries}


async def cmd_start() -> dict:
    t0 = perf()
    todo = [r for r in D.rooms if not r.started]
    await _bounded([start_felt_room(r) for r in todo])
    return {"started": len(todo), "seconds": perf() - t0}


def _actor(room: CRoom) -> bool:
    if room.pending or room.finished:
        return False
    if D.target == "felt":
        return any(c.v == room.vmax and felt_act(c) for c in room.conns)
    s = room.seq
    conn = room.conns[s % 4]
    if conn.seen != s:
        return False
    return bare_act(conn)


async def cmd_run(
    mode: str,
    n: int,
    seconds: float,
    warmup: float,
    seed: int = 1,
    drain: float = 5.0,
    period: float = 1.0,
    jitter: float = 0.0,
) -> dict:
    reset_counters()
    rooms = D.rooms[:n]
    for r in D.rooms:
        r.active = False
    for r in rooms:
        r.active = True
    cpu0 = time.process_time()
    t0 = perf()
    D.ws = t0 + warmup
    D.we = D.ws + seconds
    D.mode = mode
    if mode == "closed":
        for r in rooms:
            if D.target == "felt":
                for c in r.conns:
                    felt_act(c)
            else:
                _actor(r)
        await asyncio.sleep(D.we - perf())
    else:
        # Each room acts once a period at its own offset within it, each turn moved by up to
        # ``jitter`` of a period either way; the next turn is due a period after this one's
        # unjittered time, so a room's rate stays one action a period.
        rng = random.Random(seed)

        def turn(nominal: float, idx: int) -> tuple[float, float, int]:
            return (nominal + rng.uniform(-jitter, jitter) * period if jitter else nominal), nominal, idx

        due = [turn(t0 + rng.random() * period, idx) for idx in range(len(rooms))]
        heapq.heapify(due)
        while due:
            now = perf()
            if now >= D.we:
                break
            at, nominal, idx = due[0]
            if at > now:
                await asyncio.sleep(min(at - now, D.we - now))
                continue
            room = D.rooms[idx]  # may have been replaced
            if not _actor(room):
                D.skipped += 1
            heapq.heapreplace(due, turn(nominal + period, idx))
    D.mode = None
    t_end = perf()
    # Drain: let every action already sent reach all its receivers (bounded).
    deadline = t_end + drain
    while perf() < deadline and any(r.pending for r in D.rooms[:n]):
        await asyncio.sleep(0.01)
    undelivered = sum(len(r.pending) for r in D.rooms[:n])
    diverged = 0
    if D.target == "felt":  # rooms with nothing in flight must have all four sockets at one version
        for r in D.rooms[:n]:
            if not r.pending and len({c.v for c in r.conns}) != 1:
                diverged += 1
    for r in D.rooms[:n]:
        r.pending.clear()
        r.active = False
    cpu = time.process_time() - cpu0
    wall = perf() - t0
    lat = sorted(D.lat)

    def q(p: float):
        if not lat:
            return None
        return lat[min(len(lat) - 1, round(p / 100 * (len(lat) - 1)))] * 1000

    return {
        "mode": mode,
        "rooms": n,
        "seconds": seconds,
        "actions": D.actions,
        "actions_total": D.actions_total,
        "patches": D.patches,
        "actions_per_s": D.actions / seconds,
        "patches_per_s": D.patches / seconds,
        "samples": len(lat),
        "p50_ms": q(50),
        "p99_ms": q(99),
        "max_ms": lat[-1] * 1000 if lat else None,
        "lost": D.lost,  # gaps in the versions a socket saw
        "late": undelivered,  # actions whose patches had not all arrived `drain` seconds after the run
        "out_of_order": D.ooo,
        "undelivered": undelivered,
        "diverged_rooms": diverged,
        "patch_failures": D.patch_fail,
        "errors": D.errors,
        "skipped_ticks": D.skipped,
        "finished_rooms": D.finished,
        "replaced_rooms": D.replaced,
        "retries": D.retries,
        "client_cpu_s": cpu,
        "client_wall_s": wall,
        "client_cpu_util": cpu / wall if wall else None,
    }


async def main_async(args) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        raw = await reader.readline()
        if not raw:
            break
        cmd = orjson.loads(raw)
        try:
            if cmd["cmd"] == "grow":
                out = await cmd_grow(cmd["rooms"], cmd.get("start", True))
            elif cmd["cmd"] == "start":
                out = await cmd_start()
            elif cmd["cmd"] == "run":
                out = await cmd_run(
                    cmd["mode"],
                    cmd["rooms"],
                    cmd["seconds"],
                    cmd.get("warmup", 0.5),
                    cmd.get("seed", 1),
                    cmd.get("drain", 5.0),
                    cmd.get("period", 1.0),
                    cmd.get("jitter", 0.0),
                )
            elif cmd["cmd"] == "quit":
                for r in D.rooms:
                    for c in r.conns:
                        if c.ws is not None:
                            c.ws.close()
                await asyncio.sleep(0.2)
                sys.stdout.write('{"ok":true}\n')
                sys.stdout.flush()
                return
            else:
                out = {"error": f"unknown command {cmd!r}"}
            out["ok"] = True
        except Exception as err:
            out = {"ok": False, "error": repr(err)}
        sys.stdout.write(orjson.dumps(out).decode() + "\n")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load_client")
    parser.add_argument("--target", choices=["felt", "bare"], required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--games", default="oh_hell,bid_whist,tarbish,ribs")
    args = parser.parse_args()
    D.target = args.target
    D.port = args.port
    D.games = args.games.split(",")
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        import uvloop
    except ImportError:
        asyncio.run(main_async(args))
    else:
        uvloop.run(main_async(args))


if __name__ == "__main__":
    main()
