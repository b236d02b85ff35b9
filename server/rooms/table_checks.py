"""Who may change what at a table: the checks a room asks before it makes a log entry.

Each ``check_*`` raises ``RoomError`` with the reason, or returns what the entry needs (a seat
index, a seat, a request). They only read the table; ``Table.apply`` makes the change.
"""

from __future__ import annotations

from typing import Any

from server.rooms.errors import RoomError
from server.rooms.seats import Seat


class TableChecks:
    """The checks of ``server.rooms.table.Table``, over the attributes it keeps."""

    __slots__ = ()

    seats: list[Seat]
    status: str
    host_id: str
    follow_seats: dict[str, int]
    next_code: str | None
    next_by_host: bool
    open_bot_seats: bool
    seat_requests: dict[str, dict]
    joining: dict[str, str]
    partners: dict | None
    held_until: float
    state: Any
    match: Any

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.index
        return None

    def has_free_seat(self) -> bool:
        return any(s.player_id is None and not s.bot for s in self.seats)

    def may_sit(self, player_id: str | None) -> bool:
        """Whether ``player_id`` has a seat here or may take one now: such a player always gets
        in, past the spectator cap and a crowded server's (a waiting table's guests included)."""
        if player_id is None:
            return False
        if self.seat_of(player_id) is not None or player_id in self.follow_seats:
            return True
        return self.status == "waiting" and self.has_free_seat()

    def held_for(self, seat_index: int, now: float) -> str | None:
        """The player a seat is kept for at ``now``: at a table of rotated partners, each
        player of the table before comes to the seat the rotation gives them, and until the
        hold ends (``held_until``) nobody else sits there and no bot is put in it."""
        if self.partners is None or self.status != "waiting" or now >= self.held_until:
            return None
        for seat in self.partners["seats"]:
            if seat["seat"] == seat_index and self.seat_of(seat["player_id"]) is None:
                return str(seat["player_id"])
        return None

    def require_not_held(self, seat_index: int, player_id: str | None, now: float) -> None:
        held = self.held_for(seat_index, now)
        if held is not None and held != player_id:
            raise RoomError("seat_held", f"Seat {seat_index} is kept for its rotated partner, who is on their way.")

    def require_waiting(self) -> None:
        if self.status != "waiting":
            raise RoomError("not_waiting", "The game has already started: seats are fixed now.")

    def require_host(self, player_id: str | None, what: str) -> None:
        if player_id != self.host_id:
            raise RoomError("not_host", f"Only the host can {what}.", 403)

    def check_seat_index(self, seat: object) -> Seat:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_seat", f"There is no seat {seat!r}: seats are 0 to {len(self.seats) - 1}.")
        return self.seats[seat]

    def check_sit(self, player_id: str | None, seat_index: object, now: float = 0.0) -> None:
        self.require_waiting()
        if player_id is None:
            raise RoomError("unauthorized", "Connect with a player token to take a seat.")
        seat = self.check_seat_index(seat_index)
        if self.seat_of(player_id) == seat_index:
            raise RoomError("seat_taken", "You are already in that seat.")
        if seat.player_id is not None or seat.bot:
            raise RoomError("seat_taken", f"Seat {seat_index} is taken.")
        self.require_not_held(seat.index, player_id, now)

    def check_stand(self, player_id: str | None) -> int:
        """The seat ``player_id`` may stand up from."""
        self.require_waiting()
        current = self.seat_of(player_id)
        if current is None:
            raise RoomError("not_seated", "You are not sitting at this table.")
        return current

    def check_bot(self, player_id: str | None, seat_index: object, remove: bool, now: float = 0.0) -> None:
        self.require_host(player_id, "add or remove bots")
        self.require_waiting()
        seat = self.check_seat_index(seat_index)
        if remove and not seat.bot:
            raise RoomError("bad_seat", f"There is no bot in seat {seat_index}.")
        if not remove and (seat.player_id is not None or seat.bot):
            raise RoomError("seat_taken", f"Seat {seat_index} is taken.")
        if not remove:
            self.require_not_held(seat.index, None, now)

    def check_start(self, player_id: str | None) -> None:
        self.require_host(player_id, "start the game")
        self.require_waiting()
        empty = [s.index for s in self.seats if s.player_id is None and not s.bot]
        if empty:
            raise RoomError("not_full", f"Every seat must be filled first (empty: {', '.join(map(str, empty))}).")

    def check_leave(self, player_id: str | None) -> int:
        """The seat ``player_id`` may leave for good."""
        seat = self.seat_of(player_id)
        if seat is None:
            raise RoomError("not_seated", "You are not sitting at this table.")
        if self.status == "finished":
            raise RoomError("finished", "This match is over; there is nothing to leave.")
        return seat

    def check_act(self, player_id: str | None) -> int:
        """The seat ``player_id`` acts for."""
        if self.status != "playing":
            raise RoomError("not_playing", "There is no game in play in this room.")
        seat = self.seat_of(player_id)
        if seat is None:
            raise RoomError("not_seated", "Only the players at the table can act; you are watching.", 403)
        return seat

    def check_reclaim(self, player_id: str | None) -> int:
        """The seat ``player_id`` left during this match and may take back from its bot."""
        if self.status != "playing":
            raise RoomError("not_playing", "There is no game in play in this room.")
        if player_id is not None and self.seat_of(player_id) is None:
            for seat in self.seats:
                if seat.bot and seat.left_by == player_id:
                    return seat.index
        raise RoomError("no_seat", "You have no seat to take back at this table.")

    def check_take(self, player_id: str | None, seat_index: object) -> Seat:
        """The bot's seat ``player_id``, a spectator, may take (or ask for) during play."""
        if self.status != "playing":
            raise RoomError("not_playing", "There is no game in play in this room.")
        if player_id is None:
            raise RoomError("unauthorized", "Pick a name first: connect with a player token to take a seat.")
        if self.seat_of(player_id) is not None:
            raise RoomError("seat_taken", "You already have a seat at this table.")
        seat = self.check_seat_index(seat_index)
        if not seat.bot:
            raise RoomError("seat_taken", f"Seat {seat_index} is a person's, not a bot's.")
        return seat

    def check_allow(self, player_id: str | None, asker: str) -> dict:
        """The request of ``asker`` that the host ``player_id`` may answer."""
        self.require_host(player_id, "hand out a bot's seat")
        request = self.seat_requests.get(asker)
        if request is None:
            raise RoomError("no_request", "That player is not asking for a seat.", 404)
        return request

    def check_join_next(self, player_id: str | None) -> None:
        """Raise unless ``player_id``, a spectator, may be seated at this table's "Play again"."""
        if player_id is None:
            raise RoomError("unauthorized", "Pick a name first: connect with a player token to join.")
        if self.status == "waiting":
            raise RoomError("not_playing", "This game has not started: take a free seat instead.")
        if self.seat_of(player_id) is not None:
            raise RoomError("seat_taken", "You already play at this table.")
        if self.next_code is not None:
            raise RoomError("next_exists", "This table's next game is already set up.", 409)
        if player_id not in self.joining and len(self.joining) >= sum(1 for s in self.seats if s.bot):
            raise RoomError("no_seat", "Every seat of the next game is taken: there is no bot to replace.")

    def check_may_follow(self, player_id: str) -> None:
        """Raise unless ``player_id`` played this table's finished match and may set its next
        table ("Play again"): once, except that the host's choice replaces a non-host's."""
        if self.status != "finished":
            raise RoomError("not_finished", "The next game can be set up once this one has finished.", 409)
        if self.seat_of(player_id) is None:
            raise RoomError("not_a_player", "Only the players of this match can set up its next game.", 403)
        if self.next_code is not None and (self.next_by_host or player_id != self.host_id):
            raise RoomError("next_exists", "This table's next game is already set up: join it.", 409)

    # ---- the shared parts of the view --------------------------------------------------------
