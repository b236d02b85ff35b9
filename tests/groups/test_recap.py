"""The night's recap on hand-made matches: winners, best hand, biggest comeback, nets per game, text."""

from __future__ import annotations

from datetime import UTC, datetime

from server.groups.recap import recap, recap_text

MEMBERS = {"ana": "Ana", "rui": "Rui"}
AT = datetime(2026, 12, 3, 22, 0, tzinfo=UTC)


def seat(s, pid, score, winner):
    return {
        "seat": s,
        "player_id": pid,
        "name": MEMBERS.get(pid, "Bot"),
        "bot": pid is None,
        "score": score,
        "winner": winner,
    }


OH_HELL = {
    "id": "m1",
    "game": "oh_hell",
    "finished_at": AT,
    "seats": [seat(0, "ana", 30, False), seat(1, "rui", 32, True), seat(2, None, 10, False)],
    # Rui trails Ana by 12 after the first hand, then wins.
    "hands": [[14, 2, 5], [16, 30, 5]],
}
WHIST = {
    "id": "m2",
    "game": "bid_whist",
    "finished_at": AT,
    "seats": [seat(0, "ana", 21, True), seat(1, "rui", 7, False), seat(2, None, 21, True), seat(3, None, 7, False)],
    "hands": [[0, 7, 0, 7], [21, 0, 21, 0]],
}


def test_the_recap_names_the_winners_the_best_hand_the_comeback_and_the_nets_per_game():
    night = recap([OH_HELL, WHIST], MEMBERS)
    assert night["matches"] == 2
    assert [r["winners"] for r in night["results"]] == [["Rui"], ["Ana", "Bot 3"]]
    assert night["best_hand"] == {"name": "Rui", "names": ["Rui"], "points": 30, "game": "oh_hell", "hand": 2}
    assert night["comeback"] == {"names": ["Rui"], "behind": 12, "game": "oh_hell"}
    # Ana: 30 - (32 + 10) / 2 = 9 in Oh Hell, 21 - 7 = 14 in Bid Whist; Rui: 32 - 20 = 12, 7 - 21 = -14.
    # Oh Hell points and Bid Whist game points are never added: a mixed night has no overall net.
    rows = {m["name"]: m for m in night["members"]}
    figures = {n: (m["matches"], m["wins"], m["net"]) for n, m in rows.items()}
    assert figures == {"Ana": (2, 1, None), "Rui": (2, 1, None)}
    assert rows["Ana"]["by_game"] == {
        "oh_hell": {"matches": 1, "wins": 0, "net": 9.0},
        "bid_whist": {"matches": 1, "wins": 1, "net": 14.0},
    }
    assert rows["Rui"]["by_game"]["bid_whist"] == {"matches": 1, "wins": 0, "net": -14.0}


def test_a_night_of_one_game_has_a_net_and_a_partnership_shares_its_best_hand():
    night = recap([WHIST, {**WHIST, "id": "m3", "hands": [[0, 9, 0, 9]]}], MEMBERS)
    assert {m["name"]: m["net"] for m in night["members"]} == {"Ana": 28.0, "Rui": -28.0}
    assert night["best_hand"] == {
        "name": "Ana & Bot 3",
        "names": ["Ana", "Bot 3"],
        "points": 21,
        "game": "bid_whist",
        "hand": 2,
    }


def test_the_text_carries_the_recap_per_game():
    night = recap([OH_HELL, WHIST], MEMBERS)
    text = recap_text("Friday", night, {"oh_hell": "Oh Hell", "bid_whist": "Bid Whist"})
    assert text.splitlines()[0] == "Friday · 2026-12-03 · 2 matches"
    assert "- Oh Hell: Rui won" in text and "Biggest comeback: Rui, from 12 behind (Oh Hell)" in text
    assert "Ana: Oh Hell 0/1 won, net +9; Bid Whist 1/1 won, net +14" in text
    assert "Rui: Oh Hell 1/1 won, net +12; Bid Whist 0/1 won, net -14" in text
    assert "Ana: 1/1 won, net +14" in recap_text("Friday", recap([WHIST], MEMBERS), {})
    assert recap_text("Friday", recap([], MEMBERS), {}) == "Friday: no match finished yet."
