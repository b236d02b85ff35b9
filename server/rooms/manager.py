"""The directory of rooms in this process: create, find, list, sweep the idle ones."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from server.bots.pool import BotPool
from server.config import Settings
from server.rooms.errors import RoomError
from server.rooms.room import Room, new_room_code, normalize_code
from server.rules.games import get_game

log = logging.getLogger("felt.rooms")


class RoomManager:
    """The directory of rooms in this process: create, find, list (a small interface, so a
    shared directory such as Redis can replace it without touching the rooms)."""

    def __init__(self, settings: Settings, recorder: Any) -> None:
        self.settings = settings
        self.recorder = recorder
        self.rooms: dict[str, Room] = {}
        self.bot_pool = BotPool(settings.bot_workers, settings.bot_think_ms)
        self._janitor: asyncio.Task | None = None

    def start(self) -> None:
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())

    def create(
        self,
        game_name: str,
        options: dict | None,
        seats: int | None,
        private: bool,
        host_id: str,
        host_name: str,
    ) -> Room:
        """Open a room; the host is seated at seat 0."""
        try:
            game = get_game(game_name)
        except ValueError as err:
            raise RoomError("unknown_game", str(err), 422) from None
        seats = game.default_players if seats is None else seats
        try:
            game.check_players(seats)
            parsed = game.parse_options(options or {})
        except ValueError as err:
            raise RoomError("bad_options", str(err), 422) from None
        hosted = sum(
            1 for r in self.rooms.values() if r.host_id == host_id and r.status != "finished" and not r.closed
        )
        if hosted >= self.settings.max_open_rooms_per_player:
            raise RoomError(
                "too_many_rooms",
                f"You already host {hosted} open rooms; finish or leave one first.",
                429,
            )
        code = new_room_code()
        while code in self.rooms:
            code = new_room_code()
        room = Room(self, code, game, parsed.model_dump(mode="json"), seats, private, host_id, host_name)
        room.seats[0].player_id = host_id
        room.seats[0].name = host_name
        room._rebuild_seats_part()
        self.rooms[code] = room
        return room

    def get(self, code: str) -> Room | None:
        room = self.rooms.get(normalize_code(code)) if isinstance(code, str) else None
        return room if room is not None and not room.closed else None

    def list_public(self) -> list[dict]:
        """Public rooms that wait for players, newest first."""
        waiting = [
            r for r in self.rooms.values() if not r.private and r.status == "waiting" and not r.closed
        ]
        waiting.sort(key=lambda r: r.created_at, reverse=True)
        return [r.summary() for r in waiting if any(s.player_id is None and not s.bot for s in r.seats)]

    async def sweep(self) -> int:
        """Close rooms nobody has been connected to for a while."""
        now = time.monotonic()
        stale = [r for r in self.rooms.values() if r.is_idle(now)]
        for room in stale:
            await room.close()
            self.rooms.pop(room.code, None)
        return len(stale)

    async def _sweep_forever(self) -> None:
        interval = max(1.0, min(60.0, self.settings.room_idle_close_s / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep()
            except Exception:  # the janitor must never die
                log.exception("room sweep failed")

    async def close(self) -> None:
        if self._janitor:
            self._janitor.cancel()
        for room in list(self.rooms.values()):
            await room.close(1001, "server shutting down")
        self.rooms.clear()
        self.bot_pool.close()
