"""Taking an action back, and a card chosen before one's turn: the table's part of both.

Both are table history, folded from the log like everything else at a table:

- ``undo_ask`` (``seat``: who is asked, ``by``: who asks; no data: the request ended) and
  ``undo`` (``seat``: whose last action is taken back). The table keeps the game's state from
  before its last action (states are never changed, so that is one reference) and whose action
  it was; ``undo`` puts that state back. The taken-back action stays in the match's action log,
  followed by a ``{"type": "take_back"}`` of the same seat, so the record and its replay show
  both (server/rules/replay.py steps back over it). One action can be taken back, the last:
  after a take-back there is nothing more to take back until someone acts again.
- ``preselect`` (``seat``, ``card`` or null): a seat's card chosen before its turn, kept with
  the hand it was chosen in. After every action the cards chosen in an earlier hand are
  dropped, and so is the card of a seat now to act that may not play it; the room plays a card
  that may be played (``preselect_due``) as that seat's own action.

The room's ``undo`` option (``created`` data): ``"ask"`` (the next seat to act agrees),
``"free"`` (taken back at once) or ``"off"``.
"""

from __future__ import annotations

from typing import Any

from server.rooms.errors import RoomError
from server.rooms.seats import Seat
from server.rules.game import Game

UNDO_CHOICES = ("ask", "off", "free")


def undo_rule(undo: str | None, follow: Any = None) -> str:
    """A new table's take-back rule: the one asked for, else the table it follows' ("Play
    again"), else ``"ask"``; RoomError ``bad_options`` for anything else."""
    if undo is None:
        undo = getattr(getattr(follow, "table", None), "undo", None) or "ask"
    if undo not in UNDO_CHOICES:
        raise RoomError("bad_options", f"Taking back ('undo') is one of {', '.join(UNDO_CHOICES)}.", 422)
    return undo


def refused(message: str) -> RoomError:
    return RoomError("undo_refused", message)


class TakeBacks:
    """The take-backs and pre-selected cards of ``server.rooms.table.Table``."""

    __slots__ = ("before", "last_seat", "preselected", "undo", "undo_asked", "undoable")

    game: Game
    seats: list[Seat]
    state: Any
    status: str
    match: Any
    undo: str
    before: Any  # the game's state before the last action, while it may still be taken back
    last_seat: int | None  # whose action that was
    undo_asked: dict | None  # {"seat": asked, "by": asker} while a request waits
    undoable: int | None  # the seat that may ask to take the last action back now (the view's)
    preselected: dict[int, tuple[str, Any]]  # seat -> (card, the hand it was chosen in)

    def no_take_backs(self) -> None:
        """The table as it opens: nothing to take back, asked or chosen."""
        self.undo = "ask"  # the room's ``undo`` option, set from the ``created`` entry
        self.before, self.last_seat, self.undo_asked, self.undoable = None, None, None, None
        self.preselected = {}

    def seat_of(self, player_id: str | None) -> int | None: ...

    def rebuild_room_part(self) -> None: ...

    def room_part_changed(self, **changed: Any) -> None: ...

    # ---- the fold ---------------------------------------------------------------------------

    def acted(self, seat: int, before: Any, clock: bool) -> None:
        """An action of ``seat`` was applied to ``before``: it may be taken back (not the
        clock's), any request ends, the seat's chosen card is spent and the others looked at."""
        self.before, self.last_seat = (None, None) if clock else (before, seat)
        self.preselected.pop(seat, None)
        undoable = seat if self._may_ask_back(seat) else None
        if self.undo_asked is not None or undoable != self.undoable:
            self.undo_asked, self.undoable = None, undoable
            self.room_part_changed(undo_asked=None, undoable=undoable)
        self.settle_preselected()

    def _may_ask_back(self, seat: int) -> bool:
        """Whether a person's last action (just made) may be asked back: what the view's
        ``undoable`` says, so that a client offers it only when it would be allowed."""
        if self.before is None or self.undo == "off" or self.seats[seat].is_botted:
            return False
        return self.game.may_take_back(self.before, self.state, seat)

    def _undo_ask(self, entry: Any) -> list:
        data = entry.data
        self.undo_asked = {"seat": data["seat"], "by": data["by"]} if "by" in data else None
        self.rebuild_room_part()
        return []

    def take_back(self, seat: int) -> None:
        """``seat``'s last action is taken back: the state before it is the table's again."""
        self.state, self.before, self.last_seat, self.undo_asked, self.undoable = self.before, None, None, None, None
        self.match.log_action(seat, b'{"type":"take_back"}')
        self.rebuild_room_part()
        self.settle_preselected()

    def _preselect(self, entry: Any) -> list:
        seat, card = entry.data["seat"], entry.data["card"]
        if card is None:
            self.preselected.pop(seat, None)
        else:
            self.preselected[seat] = (card, self.hand_number())
            self.settle_preselected()  # chosen on one's own turn: judged at once
        return []

    def hand_number(self) -> Any:
        view = self.game.view(self.state, None) if self.state is not None else {}
        return view.get("hand_number")

    def settle_preselected(self) -> None:
        """Drop the cards chosen in an earlier hand, and those of the seats to act that may
        not play them now."""
        if not self.preselected:
            return
        if self.status != "playing":
            self.preselected.clear()
            return
        hand = self.hand_number()
        to_act = self.game.to_act(self.state)
        for seat, (card, chosen_in) in list(self.preselected.items()):
            if chosen_in != hand or (seat in to_act and not self._may_play(seat, card)):
                del self.preselected[seat]

    def _may_play(self, seat: int, card: str) -> bool:
        return any(a.get("type") == "play" and a.get("card") == card for a in self.game.legal_actions(self.state, seat))

    def preselect_due(self) -> tuple[int, dict] | None:
        """A seat to act now whose chosen card may be played, and that play (or None)."""
        if not self.preselected or self.status != "playing":
            return None
        for seat in self.game.to_act(self.state):
            chosen = self.preselected.get(seat)
            if chosen is not None and self._may_play(seat, chosen[0]):
                return seat, {"type": "play", "card": chosen[0]}
        return None

    def preselected_card(self, seat: int | None) -> str | None:
        chosen = self.preselected.get(seat) if seat is not None else None
        return None if chosen is None else chosen[0]

    # ---- the checks -------------------------------------------------------------------------

    def check_preselect(self, player_id: str | None, card: str | None) -> int:
        """The seat choosing ``card`` (None: clearing), or RoomError: only a seated player
        while the match is played, and only a card in their hand."""
        seat = self.seat_of(player_id)
        if seat is None or self.status != "playing":
            raise RoomError("not_playing", "Only a player of a match in play can choose a card ahead.")
        if "play" not in self.game.action_fields:
            raise RoomError("not_supported", "This game plays no single card to choose ahead.", 400)
        if card is not None and card not in (self.game.view(self.state, seat).get("hand") or ()):
            raise RoomError("not_in_hand", f"{card[:8]!r} is not in your hand.", 422)
        return seat

    def check_undo(self, player_id: str | None) -> int:
        """The seat asking to take its last action back, or ``undo_refused`` saying why not."""
        seat = self.seat_of(player_id)
        if seat is None or self.status != "playing":
            raise refused("Only a player of a match in play can take an action back.")
        if self.undo == "off":
            raise refused("Taking actions back is off at this table.")
        if self.before is None or self.last_seat != seat:
            raise refused("Only the last action of the table can be taken back, by the seat that made it.")
        if self.undo_asked is not None:
            raise refused("A request to take an action back is waiting for its answer.")
        if self.undoable != seat:
            raise refused("That action showed you something that was hidden: it cannot be taken back.")
        return seat

    def undo_answerer(self, seat: int) -> int | None:
        """Who must agree to take ``seat``'s last action back with the ``"ask"`` option: the
        next seat to act, or None when none must (a bot agrees, nobody asks themselves)."""
        if self.undo != "ask":
            return None
        for other in self.game.to_act(self.state):
            if other != seat:
                return None if self.seats[other].is_botted else other
        return None

    def check_undo_answer(self, player_id: str | None) -> dict:
        """The waiting request that ``player_id``'s seat was asked, or RoomError."""
        asked = self.undo_asked
        if asked is None or self.seat_of(player_id) != asked["seat"]:
            raise RoomError("not_asked", "Nobody asked you to let an action be taken back.")
        return asked
