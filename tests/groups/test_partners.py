"""Rotate partners: over a night of three tables of four, each pair partners once."""

from __future__ import annotations

import itertools

from server.groups.partners import pairs_of, rotated, together


def test_three_tables_of_four_give_every_pair_one_match_together():
    seating = ["ana", "rui", "eva", "bia"]  # ana & eva, rui & bia
    night = [seating]
    for _ in range(2):
        seating = rotated(seating, together(night))
        assert seating[0] == "ana" and sorted(seating) == ["ana", "bia", "eva", "rui"]
        night.append(seating)
    counts = together(night)
    assert {tuple(sorted(p)) for p in counts} == set(itertools.combinations(sorted(seating), 2))
    assert set(counts.values()) == {1}


def test_the_first_rotation_changes_partners_and_bots_pair_with_no_one():
    assert pairs_of(["ana", None, "eva", "rui"]) == [frozenset(("ana", "eva"))]
    again = rotated(["ana", "rui", "eva", "bia"], together([]))
    assert pairs_of(again) != pairs_of(["ana", "rui", "eva", "bia"])
    with_bot = rotated(["ana", None, "eva", "rui"], together([["ana", None, "eva", "rui"]]))
    assert frozenset(("ana", "eva")) not in pairs_of(with_bot) and sorted(with_bot, key=str) == sorted(
        ["ana", None, "eva", "rui"], key=str
    )
