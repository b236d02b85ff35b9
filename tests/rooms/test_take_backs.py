"""Take-backs and cards chosen ahead in the pure table: folds of plain lists of log entries."""

from __future__ import annotations

import random

from test_table import Log

from server.rooms.table import Table
from server.rules.replay import replay_iter

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
    assert Table.fold(log.entries).preselected == {}


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
    again = Table.fold(log.entries)
    assert again.state == table.state and again.record == table.record
    actions = table.record["actions"]
    assert actions[1] == {"seat": seat, "action": {"type": "take_back"}}
    states = list(replay_iter(table.record))  # checks the scores at its end
    assert len(states) == len(actions) + 1 and states[2] == states[0]
