"""Cluster mode: this node's share of what Redis keeps for every node (docs/scaling.md).

With ``FELT_REDIS_URL`` set, several Felt nodes share one PostgreSQL and one Redis:

- **Leases.** A node runs a table only while it holds the table's lease, a Redis key
  ``<prefix>lease:<code>`` whose value is the node id and a token drawn for that one
  acquisition, set with ``SET NX PX`` and renewed (one
  round trip for all of the node's tables: a script call per 500 of them, pipelined) every
  third of its life. The node trusts a lease
  only until the moment its last successful renewal *was sent* plus the lease's length, minus
  a margin: a node that was paused or cut off stops applying changes on its own clock before
  any other node can take the table. The table log's unique (table, version) key is the fence
  behind that: a node taking a table logs an ``owner`` entry first, so a write of the old
  owner at that version is refused by the database and the old owner drops the table.
  Renewing and releasing compare the whole value, token included: a release that was
  decided for one acquisition (a parked table let go once its last entry is durable) can
  never drop the lease of a later one, not even the same node's re-opened copy.
- **Handover.** The balancer sends every socket of a table to one node (consistent hashing of
  the code). A node asked for a table another live node holds publishes ``handover`` on that
  node's channel; the holder parks the table (logged, durable), closes its sockets with 1012
  (the clients reconnect through the balancer) and releases the lease; the asking node then
  takes the lease and restores the table from its log. A dead holder's lease simply expires.
- **Lobby.** Every node publishes its public waiting tables under ``<prefix>lobby:<node>``
  (expiring, refreshed every ``lobby_publish_s``); any node lists all of them.
- **Players.** Every node listens on ``<prefix>players``: a revoked device (``revoke <device>
  <token hash>``) is forgotten and its sockets closed on every node, and a renamed player
  (``renamed <player>``) is looked up again (server/players.py).
- **Presence.** Every node keeps who has a socket open at one of its tables in a hash
  ``<prefix>seated:<node>`` (player -> table; expiring, its changes written with the lobby),
  and a group page's visit sets ``<prefix>seen:<player>`` for the page's online window, so a
  group page asked through any node shows who is online on every node.
- **Limits.** A host's open tables are a hash ``<prefix>hosting:<player>`` (table -> node),
  checked and added to in one script, so the per-player cap holds across nodes. A seat asked
  for at a slow table is held in ``<prefix>slow:<player>`` (a sorted set: table -> expiry on
  Redis's clock) from the count until the seat is in the store, counted with the store's
  rows in one script (docs/decisions/0026-slow-cap-held-in-redis.md).
- **Turns.** The node holding a fast table marks in ``<prefix>turns:<player>`` (table -> its
  lease value and the turn's deadline) the tables awaiting that player, written only when the
  turn changes hands; a mark counts while the lease holds that value, so "Your tables" asked
  through any node shows the turn (server/rooms/turn_marks.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

import orjson
from redis import asyncio as aioredis
from redis.exceptions import NoScriptError, RedisError

from server.config import Settings
from server.limits import MemoryRateLimiter, Rate

log = logging.getLogger("felt.cluster")

# Renew every lease whose value is still the one this node set (ARGV[i + 1] for KEYS[i]);
# 1 per lease kept, 0 per lost.
RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
# Delete a lease only if it is still the one acquisition's (node and token) that asks.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Replace this node's earlier acquisition of a lease (ARGV[1]) by a new one (ARGV[2]).
RETAKE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""
# Add a table to a host's open tables unless the host already has ``cap`` of them.
RESERVE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# A player's slow seats held until the store has them (KEYS[1]: table -> expiry in ms on
# Redis's clock) and the count of the holds given back (KEYS[2]). Hold ARGV[1] for ARGV[3] ms
# unless the tables the store and the asking node count (ARGV[5]...) and the live holds
# together make ARGV[2]: 1 held, 0 full, -1 a hold was given back since the caller read the
# count ARGV[4] (its reading of the store may predate that seat's row: count again).
HOLD_SLOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[4] then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local ttl = tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
local seen, n = {}, 0
for i = 5, #ARGV do
  if not seen[ARGV[i]] then seen[ARGV[i]] = true; n = n + 1 end
end
for _, code in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if not seen[code] then seen[code] = true; n = n + 1 end
end
if n >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""
# Keep a hold ARGV[1] for ARGV[2] ms more (only if it is still there).
KEEP_SLOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local kept = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return kept
"""
# Give a hold back, and count it given back (``HOLD_SLOW`` then asks for a fresh count).
UNHOLD_SLOW = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
"""

# One token bucket shared by every node, on Redis's own clock: spend ARGV[3] tokens if there
# are that many; the tokens left.
BUCKET = """
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local v = redis.call('HMGET', KEYS[1], 't', 's')
local tokens = tonumber(v[1]) or burst
local stamp = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
if tokens >= cost then tokens = tokens - cost end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 's', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(tokens)
"""

TRUST = 0.8  # a lease is trusted for this share of its length after the renewal was sent
RENEW_CHUNK = 500  # leases per script call when renewing (see Cluster.renew)
ACTIVE = ("waiting", "playing")


def default_node_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class ClusterMember(Protocol):
    """What the cluster tells this node's rooms (``server.rooms.directory.ClusterDirectory``)."""

    def lost(self, code: str) -> None:
        """This node lost the lease of table ``code``."""

    async def hand_over(self, code: str) -> None:
        """Another node was asked for table ``code``: let it go."""

    def lobby_rows(self) -> list[dict]:
        """This node's public waiting tables, with their creation's wall-clock time."""

    def seated(self) -> dict[str, str]:
        """Who has a socket open at one of this node's tables: ``{player_id: table code}``."""


class Cluster:
    """This node's leases, its part of the lobby and the shared limits, all in Redis."""

    def __init__(self, settings: Settings, client: aioredis.Redis | None = None) -> None:
        assert settings.redis_url, "cluster mode needs FELT_REDIS_URL"
        self.settings = settings
        self.node = settings.node_id or default_node_id()
        self.prefix = settings.redis_prefix
        self.lease_ms = settings.lease_ms
        self.redis = client or aioredis.from_url(settings.redis_url)
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._retake = self.redis.register_script(RETAKE)
        self._reserve = self.redis.register_script(RESERVE)
        self.slow = SlowSeatHolds(self)
        self.trusted: dict[str, float] = {}  # table code -> monotonic time its lease is trusted until
        self.tokens: dict[str, str] = {}  # table code -> the token of this node's acquisition of it
        self.member: ClusterMember | None = None  # this node's rooms (``attach``)
        self.on_players: Callable[[str, list[str]], Awaitable[None]] | None = None  # ``attend_players``
        self._tasks: list[asyncio.Task] = []
        self._background: set[asyncio.Task] = set()
        self._closing = False
        self.ops = 0  # Redis commands sent (for the benchmark: operations per move)
        self._seated: dict[str, str] = {}  # this node's seated players as last written to Redis
        self._seated_lock = asyncio.Lock()

    def attach(self, member: ClusterMember) -> None:
        """The rooms this node serves: told of lost leases and handovers, asked for the lobby."""
        self.member = member

    def attend_players(self, handler: Callable[[str, list[str]], Awaitable[None]]) -> None:
        """Who hears of a player's revoked device or new name (server/players.py)."""
        self.on_players = handler

    # ---- keys ----------------------------------------------------------------------------

    def _lease(self, code: str) -> str:
        return f"{self.prefix}lease:{code}"

    def _channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    def _players_channel(self) -> str:
        return f"{self.prefix}players"

    def _value(self, token: str) -> str:
        """A lease's value: this node (whom to ask for a handover) and the acquisition's token."""
        return f"{self.node} {token}"

    # ---- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()
        await self.redis.script_load(RENEW)
        loop = asyncio.get_running_loop()
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self._channel(self.node), self._players_channel())
        self._tasks = [
            loop.create_task(self._renew_forever()),
            loop.create_task(self._publish_lobby_forever()),
            loop.create_task(self._listen()),
        ]
        log.warning("cluster node %s: leases of %d ms in Redis (prefix %r)", self.node, self.lease_ms, self.prefix)

    async def release_all(self) -> None:
        """A stopping node lets go of every table at once, so others need not wait for expiry."""
        held = list(self.tokens.items())
        self.trusted.clear()
        for code, token in held:
            await self.release(code, token)
        await self.redis.delete(f"{self.prefix}lobby:{self.node}", f"{self.prefix}seated:{self.node}")

    async def close(self) -> None:
        self._closing = True
        await _cancel_all([*self._tasks, *self._background])
        try:
            async with asyncio.timeout(10):  # a stop never waits on Redis for longer
                await self.release_all()
                await self._pubsub.aclose()
        except (RedisError, OSError, TimeoutError):  # Redis gone or stuck: the leases expire by themselves
            log.warning("could not release this node's leases; they expire in %d ms", self.lease_ms)
        await self.redis.aclose()

    def spawn(self, coro: Awaitable) -> None:
        """Run ``coro`` in the background (cancelled when the node closes)."""
        self._spawn(coro)

    def _spawn(self, coro: Awaitable) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- leases --------------------------------------------------------------------------

    def owns(self, code: str) -> bool:
        """True while this node may change table ``code`` (by its own clock; see the docstring)."""
        return self.trusted.get(code, 0.0) > time.monotonic()

    def _trust(self, code: str, sent_at: float) -> None:
        self.trusted[code] = sent_at + self.lease_ms / 1000 * TRUST

    def _hold(self, code: str, token: str, sent_at: float) -> None:
        self.tokens[code] = token
        self._trust(code, sent_at)

    def lease_key(self, code: str) -> str:
        return self._lease(code)

    def lease_value(self, code: str) -> str | None:
        """What table ``code``'s lease holds while this node's acquisition of it lasts."""
        token = self.tokens.get(code)
        return None if token is None else self._value(token)

    def token(self, code: str) -> str | None:
        """The token of this node's acquisition of ``code`` (what a later release must name)."""
        return self.tokens.get(code)

    async def claim(self, code: str) -> bool:
        """Take the lease of ``code`` if nobody holds it, or if this node's own earlier
        acquisition does: then a new token replaces that one's, so a release still pending
        for the earlier acquisition (a parked copy's) finds the lease no longer its own."""
        token, sent = secrets.token_hex(8), time.monotonic()
        self.ops += 1
        if await self.redis.set(self._lease(code), self._value(token), nx=True, px=self.lease_ms):
            self._hold(code, token, sent)
            return True
        earlier = self.tokens.get(code)
        if earlier is None:
            return False
        self.ops += 1
        if await self._retake(keys=[self._lease(code)], args=[self._value(earlier), self._value(token), self.lease_ms]):
            self._hold(code, token, sent)
            return True
        return False

    async def acquire(self, code: str) -> bool:
        """Take the lease of ``code``, asking its holder to hand it over; False if that takes
        longer than a lease's life and a second (the caller tells the client to retry)."""
        deadline = time.monotonic() + self.lease_ms / 1000 + 1.0
        asked, asked_at = None, 0.0
        while True:
            if await self.claim(code):
                return True
            holder = await self.redis.get(self._lease(code))
            if holder is not None and (holder != asked or time.monotonic() - asked_at > 1.0):
                asked, asked_at = holder, time.monotonic()
                node = holder.decode().rsplit(" ", 1)[0]  # type: ignore[union-attr]  # bytes: never decoded
                self.ops += 1
                await self.redis.publish(self._channel(node), b"handover " + code.encode())
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)

    async def unheld(self, codes: list[str], chunk: int = 1000) -> list[str]:
        """The codes among ``codes`` whose lease nobody holds (one MGET per ``chunk`` codes)."""
        out = []
        for start in range(0, len(codes), chunk):
            part = codes[start : start + chunk]
            self.ops += 1
            holders = await self.redis.mget([self._lease(c) for c in part])
            out += [code for code, holder in zip(part, holders, strict=True) if holder is None]
        return out

    async def release(self, code: str, token: str | None = None) -> None:
        """Release the acquisition ``token`` of ``code`` (by default the current one). Only
        that acquisition's lease is deleted, and only its trust forgotten: a later one, of
        another node or of this one, stays."""
        token = token or self.tokens.get(code)
        if token is None:
            return
        if self.tokens.get(code) == token:
            self.forget(code)
        self.ops += 1
        await self._release(keys=[self._lease(code)], args=[self._value(token)])

    def forget(self, code: str) -> None:
        """Stop renewing ``code`` (the table left memory); the lease is not ours any more."""
        self.trusted.pop(code, None)
        self.tokens.pop(code, None)

    def let_go(self, code: str, token: str | None) -> None:
        """Release the acquisition ``token`` of ``code`` in the background (its last entry is
        durable); None: nothing to release."""
        if token is not None:
            self._spawn(self.release(code, token))

    async def renew(self) -> list[str]:
        """Renew every lease of this node in one round trip; the codes whose lease was lost
        (and forgotten). The script runs once per ``RENEW_CHUNK`` leases, all in one pipeline:
        Redis runs a script alone, and 500 leases keep it busy ~2 ms (bench/leases.py), so
        other clients wait at most that long between two of them."""
        held = [(code, token) for code, token in self.tokens.items() if code in self.trusted]
        if not held:
            return []
        sent = time.monotonic()
        self.ops += 1
        kept = await self._renew_chunks(held)
        lost = []
        for (code, token), ok in zip(held, kept, strict=True):
            if self.tokens.get(code) != token:
                continue  # released or taken again meanwhile
            if ok:
                self._trust(code, sent)
            else:
                lost.append(code)
                self.forget(code)
        return lost

    async def _renew_chunks(self, held: list[tuple[str, str]]) -> list[int]:
        """``RENEW`` over ``held`` (code, token), one script call per chunk, all sent at once:
        1 or 0 per code."""
        try:
            return await self._send_renewals(held)
        except NoScriptError:  # Redis restarted or its scripts were flushed: load it again
            await self.redis.script_load(RENEW)
            return await self._send_renewals(held)

    async def _send_renewals(self, held: list[tuple[str, str]]) -> list[int]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for start in range(0, len(held), RENEW_CHUNK):
                part = held[start : start + RENEW_CHUNK]
                keys = [self._lease(code) for code, _ in part]
                values = [self._value(token) for _, token in part]
                pipe.evalsha(self._renew.sha, len(keys), *keys, self.lease_ms, *values)
            return [ok for chunk in await pipe.execute() for ok in chunk]

    async def _renew_forever(self) -> None:
        every = self.lease_ms / 1000 / 3
        while not self._closing:
            await asyncio.sleep(every)
            try:
                lost = await self.renew()
            except Exception as exc:  # noqa: BLE001 - the renewal never dies; Redis unreachable: trust runs out
                log.warning("could not renew this node's leases: %s", exc)
                lost = [c for c in list(self.trusted) if not self.owns(c)]
                for code in lost:
                    self.forget(code)
            for code in lost:
                log.error("table %s: this node lost its lease; it lets go of the table", code)
                if self.member is not None:
                    self.member.lost(code)

    async def _listen(self) -> None:
        while not self._closing:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the listener never dies: it listens again
                log.warning("the cluster channel failed (%s); listening again", exc)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message.get("channel")
            if channel is not None and channel.decode() == self._players_channel():
                verb, *args = message["data"].decode().split(" ")
                if self.on_players is not None:
                    self._spawn(self.on_players(verb, args))
                continue
            verb, _, code = message["data"].decode().partition(" ")
            if verb == "handover" and code and self.member is not None:
                self._spawn(self.member.hand_over(code))

    async def publish_players(self, verb: str, *args: str) -> None:
        """Tell every node (this one too) about a player's device or name (server/players.py)."""
        self.ops += 1
        await self.redis.publish(self._players_channel(), " ".join((verb, *args)).encode())

    # ---- the shared lobby ----------------------------------------------------------------

    async def publish_lobby(self) -> None:
        payload = orjson.dumps({"node": self.node, "rooms": self._local_lobby()})
        self.ops += 1
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(f"{self.prefix}lobby:{self.node}", payload, px=self._publish_ttl_ms())
            pipe.sadd(f"{self.prefix}nodes", self.node)
            await pipe.execute()

    async def _publish_lobby_forever(self) -> None:
        while not self._closing:
            try:
                await self.publish_lobby()
                await self.publish_seated()
            except Exception as exc:  # noqa: BLE001 - the publisher never dies: it tries on the next round
                log.warning("could not publish this node's lobby: %s", exc)
            await asyncio.sleep(self.settings.lobby_publish_s)

    def _local_lobby(self) -> list[dict]:
        return [] if self.member is None else list(self.member.lobby_rows())

    async def lobby(self) -> list[dict]:
        """Every node's public waiting tables (this node's as they are now), newest first."""
        nodes = sorted(
            n.decode()  # type: ignore[union-attr]  # bytes: the client never decodes responses
            for n in await self.redis.smembers(f"{self.prefix}nodes")
        )
        others = [n for n in nodes if n != self.node]
        rooms = self._local_lobby()
        if others:
            blobs = await self.redis.mget([f"{self.prefix}lobby:{n}" for n in others])
            gone = [n for n, blob in zip(others, blobs, strict=True) if blob is None]
            if gone:
                await self.redis.srem(f"{self.prefix}nodes", *gone)
            seen = {r["code"] for r in rooms}
            for blob in blobs:
                for room in orjson.loads(blob)["rooms"] if blob else ():
                    if room["code"] not in seen:  # a table moving between nodes: listed once
                        seen.add(room["code"])
                        rooms.append(room)
        rooms.sort(key=lambda r: r.get("created", 0), reverse=True)
        return rooms

    # ---- presence: who sits where, who had a group page open ------------------------------

    def _publish_ttl_ms(self) -> int:
        return max(1000, int(self.settings.lobby_publish_s * 4000))

    async def publish_seated(self) -> None:
        """Write what changed in this node's seated players since the last time (all of them
        again when the hash had expired, e.g. after a pause longer than its life). One write
        at a time: each one goes by what the one before it wrote."""
        async with self._seated_lock:
            now = {} if self.member is None else dict(self.member.seated())
            key, had = f"{self.prefix}seated:{self.node}", self._seated
            gone = [p for p in had if p not in now]
            changed = {p: c for p, c in now.items() if had.get(p) != c}
            self.ops += 1
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.pexpire(key, self._publish_ttl_ms())
                if gone:
                    pipe.hdel(key, *gone)
                if changed:
                    pipe.hset(key, mapping=changed)  # type: ignore[arg-type]  # str keys and values
                    pipe.pexpire(key, self._publish_ttl_ms())
                kept = (await pipe.execute())[0]
            self._seated = now if kept or not had else {}  # an expired hash: all of it again next time

    async def saw(self, player_id: str, for_ms: int) -> None:
        """``player_id`` has a group page open: they count as online for ``for_ms``."""
        self.ops += 1
        try:
            await self.redis.set(f"{self.prefix}seen:{player_id}", b"1", px=for_ms)
        except RedisError as exc:  # the page still answers; the visit is simply not shared
            log.warning("could not record a group page visit: %s", exc)

    async def presence(self, player_ids: list[str]) -> tuple[dict[str, str], set[str]]:
        """Of ``player_ids``: who sits at a table on any node (``{player: table}``, this node's
        as they are now) and who had a group page open lately."""
        if not player_ids:
            return {}, set()
        try:
            return await self._presence(player_ids)
        except RedisError as exc:  # the page still answers, with nobody shown online
            log.warning("could not read who is online: %s", exc)
            return {}, set()

    async def _presence(self, player_ids: list[str]) -> tuple[dict[str, str], set[str]]:
        nodes = sorted(n.decode() for n in await self.redis.smembers(f"{self.prefix}nodes"))  # type: ignore[union-attr]
        others = [n for n in nodes if n != self.node]
        self.ops += 1
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.mget([f"{self.prefix}seen:{p}" for p in player_ids])
            for node in others:
                pipe.hmget(f"{self.prefix}seated:{node}", player_ids)
            seen, *tables = await pipe.execute()
        mine = {} if self.member is None else self.member.seated()
        seated = {p: mine[p] for p in player_ids if p in mine}
        for found in tables:
            for player_id, code in zip(player_ids, found, strict=True):
                if code is not None:
                    seated.setdefault(player_id, code.decode())
        return seated, {p for p, v in zip(player_ids, seen, strict=True) if v is not None}

    # ---- shared limits -------------------------------------------------------------------

    def _hosting(self, player_id: str) -> str:
        return f"{self.prefix}hosting:{player_id}"

    async def reserve_host(self, player_id: str, code: str, cap: int) -> bool:
        """Count ``code`` among ``player_id``'s open tables unless they have ``cap`` already."""
        self.ops += 1
        return bool(await self._reserve(keys=[self._hosting(player_id)], args=[code, self.node, cap]))

    async def hosted(self, player_id: str) -> int:
        return int(await self.redis.hlen(self._hosting(player_id)))

    def table_changed(self, code: str, host_id: str | None, status: str) -> None:
        """A table's status changed: it counts against its host's cap while waiting or playing."""
        if not host_id:
            return
        self.ops += 1
        if status in ACTIVE:
            self._spawn(self.redis.hset(self._hosting(host_id), code, self.node))
        else:
            self._spawn(self.redis.hdel(self._hosting(host_id), code))


class SlowSeatHolds:
    """A player's slow seats held across nodes until the store has them (the scripts above;
    server/rooms/slow_seats.py holds and gives them back)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._hold = cluster.redis.register_script(HOLD_SLOW)
        self._keep = cluster.redis.register_script(KEEP_SLOW)
        self._unhold = cluster.redis.register_script(UNHOLD_SLOW)

    def keys(self, player_id: str) -> list[str]:
        """The player's holds (a sorted set) and the count of those given back."""
        prefix = self.cluster.prefix
        return [f"{prefix}slow:{player_id}", f"{prefix}slow-given:{player_id}"]

    async def given_back(self, player_id: str) -> str:
        """How many of ``player_id``'s holds were given back: read before counting their seats
        in the store, and handed to ``hold``."""
        self.cluster.ops += 1
        count = await self.cluster.redis.get(self.keys(player_id)[1])
        return "0" if count is None else count.decode()  # type: ignore[union-attr]  # bytes: never decoded

    async def hold(self, player_id: str, code: str, cap: int, counted: set[str], given_back: str, ttl_ms: int) -> int:
        """Hold a slow seat of ``player_id`` at ``code`` for ``ttl_ms`` unless ``counted`` (their
        slow tables as the store and this node see them) and their live holds make ``cap``
        already: 1 held, 0 full, -1 count again (a hold was given back since ``given_back``)."""
        self.cluster.ops += 1
        args: list[str | int] = [code, cap, ttl_ms, given_back, *sorted(counted)]
        return int(await self._hold(keys=self.keys(player_id), args=args))

    async def keep(self, player_id: str, code: str, ttl_ms: int) -> bool:
        """Keep the hold at ``code`` ``ttl_ms`` more; False if it is gone (it ran out)."""
        self.cluster.ops += 1
        return bool(await self._keep(keys=self.keys(player_id)[:1], args=[code, ttl_ms]))

    async def give_back(self, player_id: str, code: str, ttl_ms: int) -> None:
        """Give back the hold at ``code`` (the seat is in the store, or was not taken)."""
        self.cluster.ops += 1
        await self._unhold(keys=self.keys(player_id), args=[code, ttl_ms])


class SharedRateLimiter:
    """The per-address rate limits of server/limits.py, shared by every node through Redis.

    The edges ask synchronously, so each node answers from its own copy of the buckets
    (a ``MemoryRateLimiter``) and every token it grants is also spent in the shared bucket
    in Redis, whose answer (the tokens left across the cluster) replaces the local level.
    A node therefore learns what the others spent with its next grant: across N nodes an
    address gets at most N-1 tokens more than its burst, never a higher sustained rate.
    """

    def __init__(self, cluster: Cluster, rates: dict[str, Rate]) -> None:
        self.cluster = cluster
        self.rates = rates
        self.local = MemoryRateLimiter(rates)
        self._bucket = cluster.redis.register_script(BUCKET)

    def wait(self, kind: str, key: str) -> float:
        return self.local.wait(kind, key)

    def take(self, kind: str, key: str) -> float:
        wait_s = self.local.take(kind, key)
        if wait_s == 0:
            self.cluster._spawn(self._share(kind, key))
        return wait_s

    async def _share(self, kind: str, key: str) -> None:
        rate = self.rates[kind]
        self.cluster.ops += 1
        try:
            left = await self._bucket(
                keys=[f"{self.cluster.prefix}rate:{kind}:{key}"], args=[rate.per_second, rate.burst, 1]
            )
        except (RedisError, OSError) as exc:  # Redis unreachable: this node's own buckets still hold
            log.warning("could not share a rate-limit token: %s", exc)
            return
        self.local._buckets[(kind, key)] = (float(left), self.local.clock())


async def _cancel_all(tasks: list[asyncio.Task]) -> None:
    """Cancel ``tasks`` and wait until every one has ended, cancelling again while any runs
    on: redis-py's ``get_message(timeout=...)`` can take a cancellation that comes as its own
    timeout runs out for that timeout, and return None as if no message had come (a stop then
    waited for the listener forever, seen once in CI)."""
    while pending := [task for task in tasks if not task.done()]:
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=1.0)
