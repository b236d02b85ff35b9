"""Take-backs and cards chosen ahead in the pure table: folds of plain lists of log entries."""

from __future__ import annotations

import random

from test_rooms_unit import connection
from test_table import Log

from server.config import Settings
from server.rooms import RoomManager
from server.rooms.table import fold, room_part
from server.rules.replay import replay_iter
from server.storage.writer import MemoryWriter

START = {"match_id": "m1", "seed": "4242", "dealer": 0, "started_at": "2026-01-01T00:00:00+00:00"}


def _table(game: str, options: dict, undo: str = "free") -> Log:
    created = {
        "game": game,
        "options": options,
        "seats": 4,
        "private": False,
        "host_id": "p0",
        "host_name": "Ann",
        "undo": undo,
    }
    log = Log(created)
    for seat in (1, 2, 3):
        log.add("sit", {"seat": seat, "player_id": f"p{seat}", "name": f"P{seat}"})
    log.add("start", START)
    return log


def test_a_card_chosen_in_a_hand_that_is_thrown_in_is_dropped_with_it():
    log = _table("tarbish", {"dealer_forced": False})
    table = log.table
    eldest = table.game.to_act(table.state)[0]
    log.add("act", {"seat": eldest, "action": {"type": "pass"}})
    card = table.game.view(table.state, eldest)["hand"][0]
    log.add("preselect", {"seat": eldest, "card": card})
    assert table.preselected_card(eldest) == card
    hand = table.hand_number()
    while table.hand_number() == hand:  # everyone else passes: the hand is thrown in
        seat = table.game.to_act(table.state)[0]
        log.add("act", {"seat": seat, "action": {"type": "pass"}})
    assert table.preselected_card(eldest) is None
    assert fold(log.entries).preselected == {}


def test_a_take_back_is_folded_alike_and_the_record_replays_over_it():
    log = _table("oh_hell", {"max_cards": 1, "rebound": False})
    table = log.table
    rng = random.Random(5)
    seat = table.game.to_act(table.state)[0]
    before = table.state
    log.add("act", {"seat": seat, "action": table.game.legal_actions(table.state, seat)[0]})
    assert table.check_undo(f"p{seat}") == seat
    log.add("undo", {"seat": seat})
    assert table.state is before and table.before is None
    while table.status == "playing":
        mover = table.game.to_act(table.state)[0]
        log.add("act", {"seat": mover, "action": rng.choice(table.game.legal_actions(table.state, mover))})
    again = fold(log.entries)
    assert again.state == table.state and again.record == table.record
    actions = table.record["actions"]
    assert actions[1] == {"seat": seat, "action": {"type": "take_back"}}
    states = list(replay_iter(table.record))  # checks the scores at its end
    assert len(states) == len(actions) + 1 and states[2] == states[0]


async def test_a_chosen_card_played_at_its_turn_wakes_nobody_at_a_slow_table():
    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    room = manager.create("oh_hell", {"max_cards": 3, "rebound": False}, 3, False, "p0", "Ann", turn_timer=86400)
    conns = [connection(f"p{i}", name)[0] for i, name in enumerate(("Ann", "Ben", "Cy"))]
    for conn in conns:
        await room.join(conn)
    for seat in (1, 2):
        await room.sit(conns[seat], seat)
    await room.start(conns[0])
    told: list = []
    manager.notify = told.append  # what would wake a player away from the table
    table, game = room.table, room.table.game

    async def play_first() -> int:
        seat = game.to_act(table.state)[0]
        await room.act(conns[seat], game.legal_actions(table.state, seat)[0], room.version)
        return seat

    while table.public_view()["phase"] == "bidding":
        await play_first()
    leader = await play_first()
    following = game.to_act(table.state)[0]
    chooser = next(s for s in range(3) if s not in (leader, following))
    lead = table.public_view()["trick"][0]["card"][-1]
    hand = game.view(table.state, chooser)["hand"]
    card = next((c for c in hand if c[-1] == lead), hand[0])
    await room.courtesies.preselect(conns[chooser], card)
    assert room.table.preselected_card(chooser) == card
    told.clear()
    await play_first()  # the seat before the chooser: the chooser's card follows at once
    assert card not in game.view(table.state, chooser)["hand"]
    turns = [event for event in told if type(event).__name__ == "YourTurn"]
    # The follower's act gave the chooser the turn (version v - 1), played at once (version v):
    # nobody was told of the turn at v - 1; the turn after the chooser's card is told as ever.
    assert [event.version for event in turns] == [room.version]
    assert all(f"p{chooser}" not in event.players or not table.public_view()["trick"] for event in turns)


def test_the_room_part_kept_after_each_action_is_the_one_rebuilt_from_the_table():
    log = _table("bid_whist", {}, undo="ask")
    table = log.table
    rng = random.Random(3)
    undoable = set()
    while table.status == "playing":
        seat = table.game.to_act(table.state)[0]
        log.add("act", {"seat": seat, "action": rng.choice(table.game.legal_actions(table.state, seat))})
        assert table.room_part == room_part(table)
        assert table.room_outside == {**room_part(table), "next": None, "next_rotated": False}
        undoable.add(table.room_part["undoable"])
    assert None in undoable and len(undoable) > 1
