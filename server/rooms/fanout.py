"""The fan-out: what each connection keeps of its last view, and the patch frames to its next.

A room broadcasts a change by building each seat's view once, then diffing it against what
each connection kept of its last view. The parts every connection shares are diffed and
encoded once per broadcast; only a connection's own parts are diffed per connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import orjson

from server.rooms.diff import diff, diff_except, diff_keys

if TYPE_CHECKING:
    from server.rooms.table import Table

NO_CHAT: list = []  # shared and never changed: the chat a finished table's spectators see


# A connection's whole view is {room, seats, you, me, is_host, preselect, prefs, game, chat,
# result}: these parts are the same objects for every connection of a room, the others are its own.
SHARED_PARTS = ("room", "seats", "chat", "result")
OWN_PARTS = ("you", "me", "is_host", "preselect", "prefs")


class Kept:
    """What a connection keeps of the last view it was sent: just enough to diff the next.

    The parts every connection shares and its own ``you``, ``me`` and ``is_host`` (all the
    very objects of the view), the game's public view that view was built beside, and of
    its game view only the seat keys when the game names them (the rest is the public
    view's), else the whole game view. A room holds thousands of these: slots, no dict.
    """

    __slots__ = ("chat", "game", "is_host", "me", "prefs", "preselect", "public", "result", "room", "seats", "you")

    def __init__(self, view: dict, public: dict | None, seat_keys: tuple[str, ...] | None) -> None:
        self.room = view["room"]
        self.seats = view["seats"]
        self.chat = view["chat"]
        self.result = view["result"]
        self.you = view["you"]
        self.me = view["me"]
        self.is_host = view["is_host"]
        self.preselect = view["preselect"]
        self.prefs = view["prefs"]
        game = view["game"]
        if seat_keys is not None and type(game) is dict and public is not None:
            game = {k: game[k] for k in seat_keys if k in game}
        self.game = game
        self.public = public

    def whole(self, seat_keys: tuple[str, ...] | None) -> dict:
        """The whole view this was kept from (rebuilt: for tests and tools)."""
        game = self.game
        if seat_keys is not None and type(game) is dict and self.public is not None:
            game = {k: v for k, v in self.public.items() if k not in seat_keys}
            game.update(self.game)
        return {
            "room": self.room,
            "seats": self.seats,
            "you": self.you,
            "me": self.me,
            "is_host": self.is_host,
            "preselect": self.preselect,
            "prefs": self.prefs,
            "game": game,
            "chat": self.chat,
            "result": self.result,
        }


class PatchFrames:
    """The patch frames of one broadcast: each connection's kept view to its new one.

    When the game says which keys of its view differ between seats (``Game.seat_keys``),
    the operations on everything else (the room, seats, chat and result, and the public keys
    of the game view, diffed between the old and the new *public* view) are the same for
    every connection: they are found and encoded once per broadcast and spliced, as bytes,
    in front of the few operations that are a connection's own (``you``, ``me``,
    ``is_host`` and the seat keys; the whole game view when the game names no seat keys or
    has just begun). The two sets touch disjoint paths, so their order does not matter. The
    shared part is reused only while a connection's kept view and its new view hold the very
    same shared parts as the ones it was found for (a finished room shows spectators its own
    room part and no chat); otherwise it is found again.
    """

    __slots__ = ("_base", "_common", "_plain", "head", "public", "seat_keys", "skip")

    def __init__(self, v: int, public: dict | None, seat_keys: tuple[str, ...] | None) -> None:
        self.head = b'{"type":"patch","v":%d,"ops":' % v
        self.public = public
        self.seat_keys = seat_keys
        self.skip = frozenset(seat_keys or ())
        self._base: tuple | None = None  # the old shared parts ``_common`` was found for
        self._common = b"[]"  # the shared operations, encoded
        self._plain = ""  # the whole frame of a connection with no operations of its own

    def frame(self, old: Kept, new: dict) -> str:
        """The patch frame that turns the view ``old`` was kept from into ``new`` (a whole view)."""
        seat_keys = self.seat_keys
        old_game = old.game
        new_game = new["game"]
        split = (
            seat_keys is not None
            and type(old_game) is dict
            and type(new_game) is dict
            and old.public is not None
            and self.public is not None
        )
        base = self._base
        if not (
            base is not None
            and base[0] is (old.public if split else None)
            and base[1] is old.room
            and base[2] is old.seats
            and base[3] is old.chat
            and base[4] is old.result
            and base[5] is new["room"]
            and base[6] is new["chat"]
        ):
            self._diff_shared(old, new, split)
        own: list | None = None
        if (
            old.you != new["you"]
            or old.me is not new["me"]
            or old.is_host != new["is_host"]
            or old.preselect != new["preselect"]
            or old.prefs is not new["prefs"]
        ):
            own = []
            for name in OWN_PARTS:
                before, after = getattr(old, name), new[name]
                if before is not after and before != after:
                    _diff_part(before, after, f"/{name}", own)
        if split:
            for key in seat_keys:  # type: ignore[union-attr]
                if old_game.get(key) is not new_game.get(key) or (key in old_game) != (key in new_game):
                    if own is None:
                        own = []
                    diff_keys(old_game, new_game, seat_keys, "/game", own)  # type: ignore[arg-type]
                    break
        elif old_game is not new_game and old_game != new_game:
            if own is None:
                own = []
            _diff_part(old_game, new_game, "/game", own)
        if not own:
            return self._plain
        own_ops = orjson.dumps(own)
        common = self._common
        if common == b"[]":
            return (self.head + own_ops + b"}").decode()
        return (self.head + common[:-1] + b"," + own_ops[1:] + b"}").decode()

    def _diff_shared(self, old: Kept, new: dict, split: bool) -> None:
        """Diff and encode the parts every connection shares (once per action: ``frame``
        reuses them while ``old`` was kept from the same shared parts)."""
        ops: list = []
        for name in SHARED_PARTS:
            before, after = getattr(old, name), new[name]
            if before is not after and before != after:
                _diff_part(before, after, f"/{name}", ops)
        if split:  # both public views are there: ``frame`` splits only then
            assert old.public is not None and self.public is not None
            diff_except(old.public, self.public, self.skip, "/game", ops)
        self._base = (
            old.public if split else None,
            old.room,
            old.seats,
            old.chat,
            old.result,
            new["room"],
            new["chat"],
        )
        self._common = orjson.dumps(ops)
        self._plain = (self.head + self._common + b"}").decode()


def _diff_part(before: Any, after: Any, path: str, ops: list) -> None:
    """Append the operations that turn ``before`` into ``after`` at ``path`` (they differ)."""
    for op in diff(before, after):
        op["path"] = path + op["path"]
        ops.append(op)


class Viewer(Protocol):
    """A connection as the fan-out sees it (``server.rooms.connection.Connection``)."""

    player_id: str | None
    me: dict | None
    prefs: dict | None
    view: Kept | None


def compose(table: Table, conn: Viewer, cache: dict) -> dict:
    """``conn``'s whole view of ``table``; ``cache`` shares views between tabs of one player."""
    view: dict | None = cache.get(conn.player_id)
    if view is not None:
        return view
    seat = table.seat_of(conn.player_id)
    delayed = seat is None and table.watching.delays(table.status)  # server/rooms/watching.py
    game_view = cache.get(("seat", seat))
    if game_view is None and table.state is not None:
        if seat is not None:
            game_view = table.game.view(table.state, seat)
        else:
            game_view = table.watching.game_view(table.game) if delayed else table.public_view()
        cache[("seat", seat)] = game_view
    # A finished table's chat and "Play again" table are its players' alone (and the next
    # table is also shown to the spectators who asked to join it).
    outside = seat is None and table.status == "finished" and conn.player_id not in table.joining
    room = table.room_outside if outside else table.room_part
    view = cache[conn.player_id] = {
        "room": table.watching.room_part(room) if delayed else room,
        "seats": table.seats_part,
        "you": seat,
        "me": conn.me,
        "is_host": conn.player_id == table.host_id,
        "preselect": table.preselected_card(seat),
        "prefs": conn.prefs,
        "game": game_view,
        "chat": NO_CHAT if outside else table.chat,
        "result": table.result,
    }
    return view


def kept_of(table: Table, view: dict, memo: dict) -> Kept:
    """What a connection keeps of ``view``; ``memo`` shares it between tabs of one player."""
    kept = memo.get(id(view))
    if kept is None:
        if view["you"] is None and table.watching.delays(table.status):
            kept = memo[id(view)] = Kept(view, None, None)  # a delayed watcher: its whole game view
        else:
            kept = memo[id(view)] = Kept(view, table.public_view(), table.seat_keys)
    return kept


def fan_out(table: Table, connections: list[Any]) -> list[tuple[Any, str]]:
    """Every connection's own patch frame to the table's current version; each connection
    keeps its new view. Views are built per seat before any diff, once for a player's tabs;
    watchers kept behind (server/rooms/watching.py) are diffed whole against their delayed view."""
    patches = PatchFrames(table.version, table.public_view(), table.seat_keys)
    watchers = PatchFrames(table.version, None, None) if table.watching.delays(table.status) else None
    cache: dict = {}
    kept: dict = {}
    frames: dict[int, str] = {}
    out: list[tuple[Any, str]] = []
    for conn in list(connections):
        new = compose(table, conn, cache)
        if watchers is not None and new["you"] is None and conn.view is not None and conn.view.public is not None:
            conn.view = _kept_whole(table, conn.view, kept)  # a watcher from now on: kept whole
        key = id(conn.view)  # tabs of one player hold the same view: one diff for all
        frame = frames.get(key)
        if frame is None:
            through = watchers if watchers is not None and new["you"] is None else patches
            frame = frames[key] = through.frame(conn.view, new)
        conn.view = kept_of(table, new, kept)
        out.append((conn, frame))
    return out


def _kept_whole(table: Table, old: Kept, memo: dict) -> Kept:
    """``old`` kept whole (its game view not split from the public one), once for a player's
    tabs; ``memo`` holds it for the whole broadcast, so no other Kept takes its id meanwhile."""
    whole = memo.get(("whole", id(old)))
    if whole is None:
        whole = memo[("whole", id(old))] = Kept(old.whole(table.seat_keys), None, None)
        memo[("old", id(old))] = old
    return whole
