"""Telling players of a table while they are away from it, without ever slowing the table.

A room hands its events (``server.notify.events``) to its host, which publishes them here.
``Notifier.publish`` never blocks and never raises: every channel (Web Push to a player's
devices, a group's webhook...) offers the event to itself, typically onto a bounded queue that
its own task drains, so a dead or slow receiver costs a table nothing.

Turns are told once: a room publishes ``YourTurn`` after every change that may move the turn
(with nobody in it when bots or nobody are to act), and it goes out for the players newly
awaited at that table only: a player still awaited after a change that did not move the turn,
such as someone connecting, is not told again; one awaited again after the others played is.
"""

from __future__ import annotations

import logging
from typing import Protocol

from server.notify.events import Event, YourTurn

log = logging.getLogger("felt.notify")

_AWAITED_MAX = 100_000  # tables remembered for coalescing; forgotten wholesale past it


class Channel(Protocol):
    """A way to tell players (Web Push, a webhook...)."""

    def offer(self, event: Event) -> None:
        """Take ``event`` without blocking (queue it, drop it, or ignore it)."""

    async def close(self) -> None:
        """Stop delivering (the server stops)."""


class Notifier:
    """The channels events go to, and who was last told of a turn at each table."""

    def __init__(self) -> None:
        self.channels: list[Channel] = []
        self._awaited: dict[str, frozenset[str]] = {}

    def add(self, channel: Channel) -> None:
        self.channels.append(channel)

    def publish(self, event: Event) -> None:
        if isinstance(event, YourTurn):
            event = self._newly_awaited(event)
            if not event.players:
                return
        for channel in self.channels:
            try:
                channel.offer(event)
            except Exception:  # a channel's fault never reaches the table
                log.exception("notify: %s refused an event", type(channel).__name__)

    def _newly_awaited(self, turn: YourTurn) -> YourTurn:
        """``turn`` narrowed to the players who were not awaited at its table already."""
        before = self._awaited.get(turn.table, frozenset())
        now = frozenset(turn.players)
        if len(self._awaited) >= _AWAITED_MAX and turn.table not in self._awaited:
            self._awaited.clear()
        self._awaited[turn.table] = now
        keep = [i for i, player in enumerate(turn.players) if player not in before]
        if len(keep) == len(turn.players):
            return turn
        return YourTurn(
            turn.table,
            turn.game,
            turn.host_name,
            tuple(turn.players[i] for i in keep),
            tuple(turn.names[i] for i in keep),
            turn.watching,
            turn.deadline,
            turn.clock_s,
            turn.version,
        )

    def forget(self, table: str) -> None:
        """``table`` left this process (parked, closed or handed over)."""
        self._awaited.pop(table, None)

    async def close(self) -> None:
        for channel in self.channels:
            try:
                await channel.close()
            except Exception:
                log.exception("notify: closing %s failed", type(channel).__name__)
