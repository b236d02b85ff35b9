"""What happens at a table that a player away from it may want to hear of.

Events are plain values made by a room (under its lock, so they are cheap: codes, names and
ids, never a view and never a card). They name the table, not its group: a channel that speaks
to a group (its webhook) asks storage which group a table belongs to. The one event about a
group rather than a table, its house rules changed, names the group.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class YourTurn:
    """``players`` must decide now at table ``table``: people only, never a bot's seat.

    ``watching``: the players with a socket open at this table right now (they see the turn
    on the table itself, so nothing else tells them). ``deadline``: the turn clock's deadline
    in Unix milliseconds, or None without a clock; ``clock_s``: the table's seconds a decision.
    """

    table: str
    game: str
    host_name: str
    players: tuple[str, ...]
    names: tuple[str, ...]
    watching: frozenset[str]
    deadline: int | None
    clock_s: int
    version: int


@dataclass(frozen=True, slots=True)
class ClockRanOut:
    """The turn clock ran out for ``player_id`` at ``table``: a bot made that one decision."""

    table: str
    game: str
    player_id: str
    name: str
    clock_s: int
    away: bool  # the misses in a row marked the seat away
    watching: frozenset[str]  # the players with a socket open at this table (see YourTurn)


@dataclass(frozen=True, slots=True)
class TableStarted:
    """A match started at ``table``: ``players`` (people only, never a bot's seat) sit at it,
    ``names`` their seats' names; ``watching`` as in ``YourTurn``."""

    table: str
    game: str
    host_name: str
    players: tuple[str, ...]
    names: tuple[str, ...]
    watching: frozenset[str]


@dataclass(frozen=True, slots=True)
class Mentioned:
    """``speaker`` said the seat name ``name`` of ``player_id`` (seated at ``table``) in a
    chat line. The line itself is not part of the event: it stays at the table."""

    table: str
    game: str
    speaker: str
    player_id: str
    name: str
    watching: frozenset[str]


@dataclass(frozen=True, slots=True)
class TableOpened:
    """A table was opened (its host is seated, the others may sit)."""

    table: str
    game: str
    host_name: str


@dataclass(frozen=True, slots=True)
class MatchFinished:
    """A match ended: ``record`` is the finished match as storage keeps it (its players,
    final scores and winners)."""

    table: str
    game: str
    record: dict


@dataclass(frozen=True, slots=True)
class RulesChanged:
    """``name`` changed group ``group``'s house rules for ``game``: ``changes`` in players'
    words, one per option ("Jokers: both jokers")."""

    group: str
    game: str
    name: str
    changes: tuple[str, ...]


Event = YourTurn | ClockRanOut | TableStarted | Mentioned | TableOpened | MatchFinished
