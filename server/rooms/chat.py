"""Chat limits of one room: per player and, for everyone not seated, per room.

The limits are the room's, not a connection's: reconnecting starts no new allowance, all
tokenless sockets share one, and spectators together may say only so much a minute, so
neither a reconnect loop nor a crowd of sockets can flood a table or scroll its chat away.
"""

from __future__ import annotations

from collections import deque

from server.rooms.errors import RoomError

WINDOW_S = 60.0
_SPECTATORS = ("spectators",)  # the room-wide allowance of everyone not seated


class ChatLimits:
    """Sliding one-minute windows of chat lines, keyed by player (tokenless: one key)."""

    __slots__ = ("_said", "per_player", "per_spectators")

    def __init__(self, per_player: int, per_spectators: int) -> None:
        self.per_player = per_player
        self.per_spectators = per_spectators
        self._said: dict[object, deque[float]] = {}

    def _window(self, key: object, now: float) -> deque[float]:
        said = self._said.get(key)
        if said is None:
            if len(self._said) > 256:  # forget who has been quiet for a minute
                for old in [k for k, d in self._said.items() if not d or now - d[-1] > WINDOW_S]:
                    del self._said[old]
            said = self._said[key] = deque()
        while said and now - said[0] > WINDOW_S:
            said.popleft()
        return said

    def take(self, player_id: str | None, seated: bool, now: float) -> None:
        """Count one line, or raise ``rate_limited`` (429) and count nothing."""
        mine = self._window(player_id, now)
        if len(mine) >= self.per_player:
            raise RoomError("rate_limited", "You are sending chat too fast; wait a moment.", 429)
        crowd = None if seated else self._window(_SPECTATORS, now)
        if crowd is not None and len(crowd) >= self.per_spectators:
            raise RoomError("rate_limited", "Spectators have said a lot here this minute; wait a moment.", 429)
        mine.append(now)
        if crowd is not None:
            crowd.append(now)
