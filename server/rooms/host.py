"""What a room asks of the world around it, as narrow interfaces: the directory that holds it
(``Host``: ``server.rooms.manager.RoomManager``) and the pool its Strong bots think in
(``BotPool``: ``server.bots.pool.BotPool``). A room never imports either."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Protocol

from server.log_entry import EntrySink
from server.notify.events import Event
from server.rooms.errors import RoomError

if TYPE_CHECKING:
    from server.config import Settings


class BotPool(Protocol):
    """Where Strong bots think (worker processes)."""

    async def choose(
        self,
        game: str,
        options: dict[str, Any],
        seed: str,
        view: dict[str, Any],
        legal: list[dict],
        easy_seats: list[int] | None = None,
    ) -> dict[str, Any]: ...


class Host(Protocol):
    """What a room asks of the directory that holds it."""

    @property
    def settings(self) -> Settings: ...

    @property
    def writer(self) -> EntrySink: ...

    @property
    def bot_pool(self) -> BotPool: ...

    @property
    def stopping(self) -> bool:
        """True once the server is stopping: nothing more is played."""

    def change_refused(self, code: str) -> RoomError | None:
        """Why the table may not change now (the server stops, its lease is gone...), or None."""

    def letting_go(self, code: str) -> bool:
        """True when the table must log nothing more here (not even who left)."""

    def table_changed(self, code: str, row: dict) -> None:
        """The table's lobby row changed."""

    def action_applied(self) -> None:
        """One more action was applied (the metrics count them)."""

    def notify(self, event: Event) -> None:
        """Something players away from the table may hear of (never blocks, never raises)."""

    def slow_seat(self, player_id: str, code: str) -> AbstractAsyncContextManager[None]:
        """Raise the RoomError that refuses one more slow table to a player at the most they
        may; else their seat at table ``code`` is counted until the body (which seats them) is
        done, one request of theirs after the other, and on every node."""

    def retiring(self, room: Any) -> None:
        """The room logged its last entry (park or close): it leaves the directory once durable."""
