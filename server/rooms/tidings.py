"""What a room tells its host's notifier (``server.notify.events``), built from the table as
it stands after an entry: cheap values (codes, names, ids), never a view and never a card.

Each names ``watching``, the players with a socket open at the table right now: they see what
happened on the table itself, so a channel that reaches players away from it skips them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from server.notify.events import Mentioned, TableStarted, YourTurn
from server.rooms.connection import Connection
from server.rooms.table import Table


def watching(connections: Iterable[Connection]) -> frozenset[str]:
    """The players with a socket open among ``connections`` (spectators without one left out)."""
    return frozenset(c.player_id for c in connections if c.player_id is not None)


def your_turn(table: Table, connections: list[Connection]) -> YourTurn:
    """The people to act now at ``table`` (maybe none), for whoever tells players away from it:
    the host's notifier tells each of them once a turn."""
    people = [table.seats[s] for s in table.people_to_act() if table.seats[s].player_id is not None]
    return YourTurn(
        table.code,
        table.game.name,
        table.host_name,
        tuple(s.player_id for s in people if s.player_id is not None),
        tuple(s.name or "" for s in people),
        watching(connections),
        table.clock.deadline,
        table.clock.seconds,
        table.version,
    )


def table_started(table: Table, connections: list[Connection]) -> TableStarted:
    """The match at ``table`` has started: the people seated at it (never a bot's seat)."""
    people = [s for s in table.seats if s.player_id is not None and not s.bot]
    return TableStarted(
        table.code,
        table.game.name,
        table.host_name,
        tuple(s.player_id for s in people if s.player_id is not None),
        tuple(s.name or "" for s in people),
        watching(connections),
    )


def says_name(text: str, name: str) -> bool:
    """Whether a chat line says ``name`` as a word of its own (any case, an @ before it or
    not): "ana" and "@Ana!" name Ana, "Banana" and "Anakin" do not (as web/js/attention.js)."""
    clean = name.strip()
    if not clean:
        return False
    return re.search(rf"(?:^|(?<=\W))@?{re.escape(clean)}(?!\w)", text, re.IGNORECASE) is not None


def mentioned(
    table: Table, speaker_id: str | None, speaker: str, text: str, connections: list[Connection]
) -> Iterator[Mentioned]:
    """A ``Mentioned`` for each person seated at ``table`` whose seat name ``text`` says: once
    a player however often the line names them, never the speaker, never a bot's seat."""
    told: set[str] = set()
    seen = None
    for seat in table.seats:
        player = seat.player_id
        if player is None or seat.bot or player == speaker_id or player in told or not seat.name:
            continue
        if says_name(text, seat.name):
            told.add(player)
            seen = watching(connections) if seen is None else seen
            yield Mentioned(table.code, table.game.name, speaker, player, seat.name, seen)
