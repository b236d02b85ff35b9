"""This node's leases: a table runs on the node that holds its lease in Redis, and only while
that node trusts it (docs/scaling.md)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

from redis.exceptions import NoScriptError

from server.cluster.link import Link

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

TRUST = 0.8  # a lease is trusted for this share of its length after the renewal was sent
RENEW_CHUNK = 500  # leases per script call when renewing (see Leases.renew)


class Leases:
    """Take, renew, trust and release this node's table leases.

    A lease is the key ``<prefix>lease:<code>`` whose value is the node id and a token drawn
    for that one acquisition, set with ``SET NX PX`` and renewed (one round trip for all of the
    node's tables: a script call per 500 of them, pipelined) every third of its life. The node
    trusts a lease only until the moment its last successful renewal *was sent* plus the
    lease's length, minus a margin: a node that was paused or cut off stops applying changes
    on its own clock before any other node can take the table. The table log's unique (table,
    version) key is the fence behind that: a node taking a table logs an ``owner`` entry
    first, so a write of the old owner at that version is refused by the database and the old
    owner drops the table. Renewing and releasing compare the whole value, token included: a
    release that was decided for one acquisition (a parked table let go once its last entry is
    durable) can never drop the lease of a later one, not even the same node's re-opened copy.
    """

    def __init__(self, link: Link, lease_ms: int, ask_handover: Callable[[str, str], Awaitable[None]]) -> None:
        self.link = link
        self.redis = link.redis
        self.lease_ms = lease_ms
        self.ask_handover = ask_handover  # (holder node, code): the bus asks the holder
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._retake = self.redis.register_script(RETAKE)
        self.trusted: dict[str, float] = {}  # table code -> monotonic time its lease is trusted until
        self.tokens: dict[str, str] = {}  # table code -> the token of this node's acquisition of it
        self.on_lost: Callable[[str], None] | None = None  # the rooms' ``lost``

    def key(self, code: str) -> str:
        return f"{self.link.prefix}lease:{code}"

    def value(self, token: str) -> str:
        """A lease's value: this node (whom to ask for a handover) and the acquisition's token."""
        return f"{self.link.node} {token}"

    async def load_script(self) -> None:
        await self.redis.script_load(RENEW)

    def owns(self, code: str) -> bool:
        """True while this node may change table ``code`` (by its own clock; see the docstring)."""
        return self.trusted.get(code, 0.0) > time.monotonic()

    def _trust(self, code: str, sent_at: float) -> None:
        self.trusted[code] = sent_at + self.lease_ms / 1000 * TRUST

    def _hold(self, code: str, token: str, sent_at: float) -> None:
        self.tokens[code] = token
        self._trust(code, sent_at)

    def lease_value(self, code: str) -> str | None:
        """What table ``code``'s lease holds while this node's acquisition of it lasts."""
        token = self.tokens.get(code)
        return None if token is None else self.value(token)

    def token(self, code: str) -> str | None:
        """The token of this node's acquisition of ``code`` (what a later release must name)."""
        return self.tokens.get(code)

    async def claim(self, code: str) -> bool:
        """Take the lease of ``code`` if nobody holds it, or if this node's own earlier
        acquisition does: then a new token replaces that one's, so a release still pending
        for the earlier acquisition (a parked copy's) finds the lease no longer its own."""
        token, sent = secrets.token_hex(8), time.monotonic()
        self.link.ops += 1
        if await self.redis.set(self.key(code), self.value(token), nx=True, px=self.lease_ms):
            self._hold(code, token, sent)
            return True
        earlier = self.tokens.get(code)
        if earlier is None:
            return False
        self.link.ops += 1
        if await self._retake(keys=[self.key(code)], args=[self.value(earlier), self.value(token), self.lease_ms]):
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
            holder = await self.redis.get(self.key(code))
            if holder is not None and (holder != asked or time.monotonic() - asked_at > 1.0):
                asked, asked_at = holder, time.monotonic()
                node = holder.decode().rsplit(" ", 1)[0]  # type: ignore[union-attr]  # bytes: never decoded
                await self.ask_handover(node, code)
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)

    async def unheld(self, codes: list[str], chunk: int = 1000) -> list[str]:
        """The codes among ``codes`` whose lease nobody holds (one MGET per ``chunk`` codes)."""
        out = []
        for start in range(0, len(codes), chunk):
            part = codes[start : start + chunk]
            self.link.ops += 1
            holders = await self.redis.mget([self.key(c) for c in part])
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
        self.link.ops += 1
        await self._release(keys=[self.key(code)], args=[self.value(token)])

    async def release_all(self) -> None:
        """Let go of every table at once, so others need not wait for expiry."""
        held = list(self.tokens.items())
        self.trusted.clear()
        for code, token in held:
            await self.release(code, token)

    def forget(self, code: str) -> None:
        """Stop renewing ``code`` (the table left memory); the lease is not ours any more."""
        self.trusted.pop(code, None)
        self.tokens.pop(code, None)

    def let_go(self, code: str, token: str | None) -> None:
        """Release the acquisition ``token`` of ``code`` in the background (its last entry is
        durable); None: nothing to release."""
        if token is not None:
            self.link.spawn(self.release(code, token))

    async def renew(self) -> list[str]:
        """Renew every lease of this node in one round trip; the codes whose lease was lost
        (and forgotten). The script runs once per ``RENEW_CHUNK`` leases, all in one pipeline:
        Redis runs a script alone, and 500 leases keep it busy ~2 ms (bench/leases.py), so
        other clients wait at most that long between two of them."""
        held = [(code, token) for code, token in self.tokens.items() if code in self.trusted]
        if not held:
            return []
        sent = time.monotonic()
        self.link.ops += 1
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
                keys = [self.key(code) for code, _ in part]
                values = [self.value(token) for _, token in part]
                pipe.evalsha(self._renew.sha, len(keys), *keys, self.lease_ms, *values)
            return [ok for chunk in await pipe.execute() for ok in chunk]

    async def renew_forever(self) -> None:
        every = self.lease_ms / 1000 / 3
        while not self.link.closing:
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
                if self.on_lost is not None:
                    self.on_lost(code)
