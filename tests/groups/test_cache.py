"""The kept ledger totals: only the matches added since are read and folded, a member who joins
later is ranked on every match they played, and totals holding a match that is gone are counted
again from nothing."""

from __future__ import annotations

from server.groups import ledger
from server.groups.cache import LedgerCache


def a_match(match_id: str, ana: int, rui: int) -> dict:
    seats = [("ana", ana), ("rui", rui), (None, 0)]
    return {
        "id": match_id,
        "seats": [
            {"seat": i, "player_id": p, "name": p or "Bot", "bot": p is None, "score": v, "winner": v == max(ana, rui)}
            for i, (p, v) in enumerate(seats)
        ],
    }


class Records:
    """The stored matches, and what each read asked for."""

    def __init__(self, *matches: dict) -> None:
        self.matches = {m["id"]: m for m in matches}
        self.asked: list[set[str] | None] = []

    def fetch(self, only):
        self.asked.append(None if only is None else set(only))
        return [m for i, m in self.matches.items() if only is None or i in only]

    def answer(self, kept: LedgerCache, members: dict[str, str]) -> dict:
        return kept.standings(("g", "oh_hell", None), "oh_hell", set(self.matches), self.fetch, members)


def test_only_new_matches_are_read_and_the_answer_equals_a_recount():
    records, kept = Records(a_match("m1", 5, 3), a_match("m2", 1, 4)), LedgerCache()
    both = {"ana": "Ana", "rui": "Rui"}
    assert records.answer(kept, both) == ledger.standings("oh_hell", records.matches.values(), both)
    records.matches["m3"] = a_match("m3", 2, 2)
    assert records.answer(kept, both) == ledger.standings("oh_hell", records.matches.values(), both)
    assert records.asked == [{"m1", "m2"}, {"m3"}]
    records.answer(kept, both)  # nothing new: nothing read
    assert records.asked == [{"m1", "m2"}, {"m3"}]


def test_members_are_applied_when_read_so_a_later_member_counts_on_every_match():
    records, kept = Records(a_match("m1", 5, 3), a_match("m2", 1, 4)), LedgerCache()
    assert [r["player_id"] for r in records.answer(kept, {"ana": "Ana"})["rows"]] == ["ana"]
    later = records.answer(kept, {"ana": "Ana", "rui": "Rui (new name)"})
    assert {r["name"]: r["matches"] for r in later["rows"]} == {"Ana": 2, "Rui (new name)": 2}
    assert len(later["head_to_head"]) == 1 and later["head_to_head"][0]["matches"] == 2


def test_totals_holding_a_match_that_is_gone_are_counted_again():
    records, kept = Records(a_match("m1", 5, 3), a_match("m2", 1, 4)), LedgerCache()
    both = {"ana": "Ana", "rui": "Rui"}
    records.answer(kept, both)
    del records.matches["m1"]
    assert records.answer(kept, both) == ledger.standings("oh_hell", records.matches.values(), both)
    assert records.asked[-1] == {"m2"}
