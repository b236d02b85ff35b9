"""Rate limits: token buckets behind a small interface, most of them per client address.

``RateLimiter`` is what the edges use: ``take(kind, key)`` spends one token of the bucket
``kind`` for ``key`` (a client address's ``budget_key``, or what the kind names: a player, a
group) and answers how long to wait when there was none; ``wait(kind, key)`` only looks.
``MemoryRateLimiter`` keeps the buckets in this process; a shared backend (Redis, for a
cluster) implements the same two methods.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from server.config import Settings


@dataclass(frozen=True, slots=True)
class Rate:
    """A sustained rate (tokens a second) and a burst (the bucket's size)."""

    per_second: float
    burst: int


def budget_key(address: str) -> str:
    """Whose budgets an address spends: an IPv4 address its own; an IPv6 address its /64's
    (one host is handed a whole /64, so that each of its 2^64 addresses does not get budgets
    of its own); an IPv4-mapped IPv6 address its IPv4 address's. Anything else is itself."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # without an IPv6 zone ("%eth0")
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


# What each kind of bucket limits, per client address (an IPv6 client: per /64).
PLAYERS = "players"  # POST /api/players
LINKS = "links"  # POST /api/players/link: codes tried
ROOMS = "rooms"  # POST /api/rooms
LOOKUPS = "lookups"  # unknown room codes, over HTTP and WebSocket
CONNECTS = "connects"  # room WebSockets opened
TOKEN_CONNECTS = "token_connects"  # room WebSockets opened with one player token (keyed by its digest)
RECAP_IMAGES = "recap_images"  # GET /api/groups/{code}/recap.png, keyed by the player
WEBHOOK_TESTS = "webhook_tests"  # POST /api/groups/{code}/webhook/test (keyed by the group's code)


def rates_from(settings: Settings) -> dict[str, Rate]:
    return {
        PLAYERS: Rate(settings.rate_players_per_minute / 60, settings.rate_players_burst),
        LINKS: Rate(settings.rate_links_per_minute / 60, settings.rate_links_burst),
        ROOMS: Rate(settings.rate_rooms_per_minute / 60, settings.rate_rooms_burst),
        LOOKUPS: Rate(settings.rate_lookups_per_minute / 60, settings.rate_lookups_burst),
        CONNECTS: Rate(settings.rate_connects_per_minute / 60, settings.rate_connects_burst),
        TOKEN_CONNECTS: Rate(settings.rate_token_connects_per_minute / 60, settings.rate_token_connects_burst),
        RECAP_IMAGES: Rate(settings.rate_recap_images_per_minute / 60, settings.rate_recap_images_burst),
        WEBHOOK_TESTS: Rate(settings.rate_webhook_tests_per_minute / 60, settings.rate_webhook_tests_burst),
    }


class OpenSockets:
    """How many room sockets each address (its ``budget_key``) holds open now (an address at
    none is forgotten)."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

    def open(self, key: str, cap: int) -> bool:
        """Count one more socket for ``key``; False (nothing counted) when it holds ``cap`` already."""
        held = self._open.get(key, 0)
        if held >= cap:
            return False
        self._open[key] = held + 1
        return True

    def close(self, key: str) -> None:
        held = self._open.get(key, 0) - 1
        if held > 0:
            self._open[key] = held
        else:
            self._open.pop(key, None)


class RateLimiter(Protocol):
    def take(self, kind: str, key: str) -> float:
        """Spend a token: 0 when there was one, else the seconds until there is."""

    def wait(self, kind: str, key: str) -> float:
        """The seconds until a token is free (0 when one is), spending nothing."""


class MemoryRateLimiter:
    """Token buckets in this process's memory, kept only while they are not full."""

    # Buckets that have refilled are forgotten: an address seen once costs nothing for long.
    SWEEP_EVERY = 10_000

    def __init__(self, rates: dict[str, Rate], clock: Callable[[], float] = time.monotonic) -> None:
        self.rates = rates
        self.clock = clock
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}  # (tokens, stamp)
        self._ops = 0

    def _level(self, kind: str, key: str, now: float) -> float:
        rate = self.rates[kind]
        tokens, stamp = self._buckets.get((kind, key), (float(rate.burst), now))
        return min(float(rate.burst), tokens + (now - stamp) * rate.per_second)

    def wait(self, kind: str, key: str) -> float:
        tokens = self._level(kind, key, self.clock())
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rates[kind].per_second

    def take(self, kind: str, key: str) -> float:
        now = self.clock()
        tokens = self._level(kind, key, now)
        self._ops += 1
        if self._ops % self.SWEEP_EVERY == 0:
            self._sweep(now)
        if tokens < 1:
            self._buckets[(kind, key)] = (tokens, now)
            return (1 - tokens) / self.rates[kind].per_second
        self._buckets[(kind, key)] = (tokens - 1, now)
        return 0.0

    def _sweep(self, now: float) -> None:
        full = [k for k in self._buckets if self._level(k[0], k[1], now) >= self.rates[k[0]].burst]
        for k in full:
            del self._buckets[k]
