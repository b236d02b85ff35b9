"""The night's recap on hand-made matches: winners, best hand, biggest comeback, nets, text, PNG."""

from __future__ import annotations

from datetime import UTC, datetime

from server.groups.recap import recap, recap_text
from server.groups.recap_image import recap_png

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


def test_the_recap_names_the_winners_the_best_hand_the_comeback_and_the_nets():
    night = recap([OH_HELL, WHIST], MEMBERS)
    assert night["matches"] == 2
    assert [r["winners"] for r in night["results"]] == [["Rui"], ["Ana", "Bot 3"]]
    assert night["best_hand"] == {"name": "Rui", "points": 30, "game": "oh_hell", "hand": 2}
    assert night["comeback"] == {"names": ["Rui"], "behind": 12, "game": "oh_hell"}
    nets = {m["name"]: (m["matches"], m["wins"], m["net"]) for m in night["members"]}
    # Ana: 30 - (32 + 10) / 2 = 9, then 21 - 7 = 14; Rui: 32 - 20 = 12, then 7 - 21 = -14.
    assert nets == {"Ana": (2, 1, 23.0), "Rui": (2, 1, -2.0)}


def test_the_text_and_the_image_carry_the_recap():
    night = recap([OH_HELL, WHIST], MEMBERS)
    text = recap_text("Friday", night, {"oh_hell": "Oh Hell", "bid_whist": "Bid Whist"})
    assert text.splitlines()[0] == "Friday · 2026-12-03 · 2 matches"
    assert "- Oh Hell: Rui won" in text and "Biggest comeback: Rui, from 12 behind (Oh Hell)" in text
    assert "Ana: 1/2 won, net +23" in text and "Rui: 1/2 won, net -2" in text
    png = recap_png(text)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    assert recap_text("Friday", recap([], MEMBERS), {}) == "Friday: no match finished yet."
