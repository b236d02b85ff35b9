"""The ledger's arithmetic on hand-made matches (the random recount is in tests/storage)."""

from __future__ import annotations

from server.groups import ledger


def seat(s, pid, score, winner, bot=False):
    return {"seat": s, "player_id": pid, "name": pid or "Bot", "bot": bot, "score": score, "winner": winner}


MEMBERS = {"ana": "Ana", "rui": "Rui", "eva": "Eva"}


def test_a_tie_at_the_top_is_a_win_for_each_and_bots_and_outsiders_are_unranked():
    match = {
        "id": "m1",
        "seats": [
            seat(0, "ana", 30, True),
            seat(1, "rui", 30, True),
            seat(2, None, 10, False, bot=True),
            seat(3, "zed", 20, False),
        ],
    }
    table = ledger.standings("oh_hell", [match], MEMBERS)
    rows = {r["player_id"]: r for r in table["rows"]}
    assert set(rows) == {"ana", "rui"}
    assert rows["ana"]["wins"] == rows["rui"]["wins"] == 1 and rows["ana"]["win_share"] == 1.0
    assert rows["ana"]["average_place"] == 1.0
    assert rows["ana"]["points_against"] == 20.0  # (30 + 10 + 20) / 3
    assert table["head_to_head"] == [{"a": "ana", "b": "rui", "matches": 1, "a_higher": 0, "b_higher": 0}]
    assert table["pairs"] == []


def test_partners_share_a_side_a_place_and_a_pair_record():
    match = {
        "id": "m1",
        "seats": [
            seat(0, "ana", 21, True),
            seat(1, "rui", 12, False),
            seat(2, "eva", 21, True),
            seat(3, None, 12, False, True),
        ],
    }
    table = ledger.standings("bid_whist", [match, match], MEMBERS)
    rows = {r["player_id"]: r for r in table["rows"]}
    assert rows["rui"]["average_place"] == 2.0 and rows["rui"]["points_against"] == 42.0
    assert rows["ana"]["points"] == 42 and rows["ana"]["points_against"] == 24.0
    assert table["pairs"] == [{"a": "ana", "b": "eva", "matches": 2, "wins": 2, "bids": 0, "bids_made": 0}]
    assert {(h["a"], h["b"]): (h["a_higher"], h["b_higher"]) for h in table["head_to_head"]} == {
        ("ana", "rui"): (2, 0),
        ("eva", "rui"): (2, 0),
    }
    assert [r["player_id"] for r in table["rows"]][-1] == "rui"


def test_a_csv_cell_never_starts_a_formula():
    from server.edges.api.groups import _csv_cell

    assert [_csv_cell(v) for v in ("=SUM(A1)", "+1", "-x", "@a", "Ana", 3)] == [
        "'=SUM(A1)",
        "'+1",
        "'-x",
        "'@a",
        "Ana",
        3,
    ]


def test_a_pair_counts_the_contracts_its_side_declared_and_made():
    seats = [
        seat(0, "ana", 21, True),
        seat(1, "rui", 12, False),
        seat(2, "eva", 21, True),
        seat(3, None, 12, False, True),
    ]
    whist = {
        "id": "m1",
        "seats": seats,
        "hands": [
            {"declarer": 2, "contract": 4, "scores": [3, 0, 3, 0]},  # Eva's contract, made
            {"declarer": 0, "contract": 5, "scores": [0, 6, 0, 6]},  # Ana's, set: the defenders score
            {"declarer": 1, "contract": 4, "scores": [0, 2, 0, 2]},  # the other side's
            {"declarer": 0, "contract": 4, "scores": None},  # never finished: not counted
        ],
    }
    assert ledger.standings("bid_whist", [whist], MEMBERS)["pairs"][0] == {
        "a": "ana",
        "b": "eva",
        "matches": 1,
        "wins": 1,
        "bids": 2,
        "bids_made": 1,
    }
    tarabish = {
        "id": "m2",
        "seats": seats,
        "hands": [
            {"caller": 0, "scores": [80, 40, 80, 40]},  # made: both sides keep their points
            {"caller": 2, "scores": [0, 120, 0, 120]},  # bait: all to the opponents
            {"caller": None, "scores": None},  # thrown in
        ],
    }
    assert ledger.standings("tarbish", [tarabish], MEMBERS)["pairs"][0]["bids"] == 2
    assert ledger.standings("tarbish", [tarabish], MEMBERS)["pairs"][0]["bids_made"] == 1
