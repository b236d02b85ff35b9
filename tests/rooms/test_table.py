"""The pure table: a fold over plain lists of log entries, with no event loop, socket or database."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from server.log_entry import LogEntry
from server.rooms.errors import RoomError
from server.rooms.table import FINISHED, ROW, SEATED, TURN, fold, open_table
from server.rules.game import GameError

CODE = "TESTCODE"
CREATED = {
    "game": "oh_hell",
    "options": {"max_cards": 1, "rebound": False},
    "seats": 3,
    "private": False,
    "host_id": "p0",
    "host_name": "Ann",
    "turn_timer": 30,
}
START = {"match_id": "m1", "seed": "12345", "dealer": 0, "started_at": "2026-01-01T00:00:00+00:00"}


class Log:
    """A table and the plain list of entries applied to it, as a room makes them."""

    def __init__(self, created: dict = CREATED) -> None:
        self.table = open_table(CODE, created)
        self.entries: list[LogEntry] = []
        self.add("created", created)

    def add(self, kind: str, data: dict) -> list:
        entry = LogEntry(CODE, self.table.version + 1, kind, data, 1_700_000_000.0 + len(self.entries))
        effects = self.table.apply(entry)
        self.entries.append(entry)
        return effects


def _seated_and_started() -> Log:
    log = Log()
    log.add("sit", {"seat": 1, "player_id": "p1", "name": "Ben"})
    log.add("bot", {"seat": 2, "remove": False, "level": "easy"})
    log.add("start", START)
    return log


def _play_out(log: Log, rng: random.Random) -> None:
    table = log.table
    while table.status == "playing":
        seat = table.game.to_act(table.state)[0]
        action = rng.choice(table.game.legal_actions(table.state, seat))
        log.add("act", {"seat": seat, "action": action})


def test_the_live_table_and_the_fold_of_its_log_are_the_same_table():
    log = _seated_and_started()
    log.add("chat", {"seat": 1, "name": "Ben", "text": "hi", "at": "2026-01-01T00:00:01"})
    _play_out(log, random.Random(7))
    log.add("seen", {})
    log.add("park", {})
    again = fold(log.entries)
    live = log.table
    assert again.version == live.version == len(log.entries)
    assert again.status == live.status == "finished"
    assert again.state == live.state and again.result == live.result
    assert again.match.actions() == live.match.actions()
    assert again.chat == live.chat and again.seats_part == live.seats_part
    assert again.room_part == live.room_part and again.record == live.record


def test_each_entry_says_what_must_follow_it():
    log = Log()
    assert log.entries[0].version == 1 and log.table.version == 1
    effects = log.add("sit", {"seat": 1, "player_id": "p1", "name": "Ben"})
    assert [e for e, _ in effects] == [SEATED, ROW] and effects[0][1] == 1
    assert effects[1][1]["players"] == ["p0", "p1"] and effects[1][1]["status"] == "waiting"
    assert log.add("chat", {"seat": 0, "name": "Ann", "text": "x", "at": "t"}) == []
    log.add("bot", {"seat": 2, "remove": False})
    effects = log.add("start", START)
    assert [e for e, _ in effects] == [TURN, ROW] and effects[1][1]["status"] == "playing"
    table = log.table
    seat = table.game.to_act(table.state)[0]
    assert log.add("act", {"seat": seat, "action": table.game.legal_actions(table.state, seat)[0]}) == [(TURN, None)]
    rng = random.Random(3)
    while True:
        seat = table.game.to_act(table.state)[0]
        effects = log.add("act", {"seat": seat, "action": rng.choice(table.game.legal_actions(table.state, seat))})
        if table.status == "finished":
            break
    kinds = dict(effects)
    assert kinds[FINISHED] is table.record and kinds[FINISHED]["id"] == "m1"
    assert kinds[ROW]["status"] == "finished"
    assert log.add("park", {}) == [(ROW, {**kinds[ROW], "status": "parked"})]


def test_an_action_the_game_refuses_changes_nothing():
    log = _seated_and_started()
    table = log.table
    before = (table.version, table.state, table.room_part, table.match.actions())
    seat = table.game.to_act(table.state)[0]
    with pytest.raises(GameError):
        table.apply(
            LogEntry(CODE, table.version + 1, "act", {"seat": seat, "action": {"type": "bid", "value": 99}}, 0.0)
        )
    assert (table.version, table.state, table.room_part, table.match.actions()) == before


def test_an_action_the_clock_played_is_shown_until_the_next_action():
    log = _seated_and_started()
    table = log.table
    assert table.room_part["clock_played"] is None
    seat = table.game.to_act(table.state)[0]
    action = table.game.legal_actions(table.state, seat)[0]
    log.add("act", {"seat": seat, "action": action, "clock": True})
    assert table.room_part["clock_played"] == {"seat": seat, "action": action}
    assert table.match.actions()[-1] == {"seat": seat, "action": action}  # the match keeps the move only
    assert fold(log.entries).room_part["clock_played"] == {"seat": seat, "action": action}
    seat = table.game.to_act(table.state)[0]
    log.add("act", {"seat": seat, "action": table.game.legal_actions(table.state, seat)[0]})
    assert table.room_part["clock_played"] is None


def test_the_clock_deadline_comes_from_the_time_given_for_the_people_to_act_only():
    log = _seated_and_started()
    table = log.table
    assert table.arm_clock(1000.0)
    people = table.people_to_act()
    if people:
        assert table.clock.deadline == 1_030_000 and table.room_part["deadline"] == 1_030_000
    table.seats[0].away = table.seats[1].away = True  # bots play every seat now
    assert table.people_to_act() == [] and table.bots_to_act() == table.game.to_act(table.state)
    table.arm_clock(2000.0)
    assert table.clock.deadline is None and table.room_part["deadline"] is None


def test_the_checks_refuse_before_any_entry_is_made():
    log = Log()
    table = log.table
    with pytest.raises(RoomError) as err:
        table.check_sit("p9", 0)
    assert err.value.code == "seat_taken"
    with pytest.raises(RoomError) as err:
        table.check_start("p0")
    assert err.value.code == "not_full"
    with pytest.raises(RoomError) as err:
        table.check_bot("p1", 1, remove=False)
    assert err.value.code == "not_host"
    with pytest.raises(RoomError) as err:
        table.check_act("p0")
    assert err.value.code == "not_playing"
    assert table.check_stand("p0") == 0 and table.version == 1


def test_a_log_must_begin_with_its_created_entry():
    with pytest.raises(ValueError):
        fold([LogEntry(CODE, 1, "sit", {"seat": 0, "player_id": "p", "name": "P"}, 0.0)])


def test_a_log_the_earlier_room_wrote_folds_into_the_table_it_had():
    """A whole match (seats, a chat line, bots added and removed, a clock, a park) as the room
    before the table split logged it: entries in the database's shape, (version, kind, data, at)."""
    old = json.loads((Path(__file__).parent / "data" / "oh_hell_old_log.json").read_text())
    entries = [LogEntry(old["code"], v, kind, data, at) for v, kind, data, at in old["entries"]]
    table = fold(entries)
    assert table.version == old["version"] and table.status == old["status"]
    assert table.match.actions() == old["actions"]
    assert table.result == old["result"]
    assert table.chat == old["chat"]
    assert [[s.player_id, s.name, s.bot, s.level] for s in table.seats] == old["seats"]
