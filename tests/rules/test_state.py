"""The state idiom: clone and evolve derive a State, the view memo keeps unchanged parts."""

from __future__ import annotations

import copy
import pickle

import pytest

from server.rules.state import State, ViewMemo, log_entries


class Sample(State):
    hands: tuple[tuple[str, ...], ...]
    turn: int
    views: ViewMemo


def test_evolve_replaces_the_named_fields_and_shares_the_others():
    memo = ViewMemo()
    old = Sample(hands=(("AS",), ("KH",)), turn=0, views=memo)
    new = old.evolve(turn=1)
    assert new.turn == 1 and old.turn == 0
    assert new.hands is old.hands and new.views is memo
    assert type(new) is Sample


def test_evolve_takes_many_fields_as_a_mapping_and_keywords_after_it():
    old = Sample(hands=(("AS",), ("KH",)), turn=0, views=ViewMemo())
    fields = {"hands": ((), ()), "turn": 1}
    new = old.evolve(fields, turn=2)
    assert (new.hands, new.turn, old.turn) == (((), ()), 2, 0) and new.views is old.views
    assert fields == {"hands": ((), ()), "turn": 1}  # the mapping is read, not kept
    with pytest.raises(TypeError, match="no field 'tun'"):
        old.evolve({"tun": 1})


def test_a_clone_is_a_new_state_sharing_every_field_and_its_changes_are_its_own():
    old = Sample(hands=(("AS",), ("KH",)), turn=0, views=ViewMemo())
    new = old.clone()
    assert type(new) is Sample and new is not old and new == old
    assert all(getattr(new, f) is getattr(old, f) for f in Sample._fields)
    new.turn = 1
    assert old.turn == 0 and new != old


def test_evolve_refuses_an_unknown_field_and_the_constructor_a_missing_one():
    with pytest.raises(TypeError, match="no field 'tun'"):
        Sample((), 0, ViewMemo()).evolve(tun=1)
    with pytest.raises(TypeError, match="missing \\['views'\\]"):
        Sample(hands=(), turn=0)
    assert Sample._fields == ("hands", "turn", "views")


def test_states_are_equal_by_value_whatever_their_memos_and_unhashable():
    a = Sample((("AS",),), 0, ViewMemo())
    b = Sample((("AS",),), 0, ViewMemo())
    assert a == b and a != b.evolve(turn=1) and a != (("AS",),)
    with pytest.raises(TypeError):
        hash(a)
    for copied in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert copied == a and copied.views is not a.views
        assert list(vars(copied)) == list(Sample._fields)


def test_a_state_shows_its_fields_but_not_its_memo():
    assert repr(Sample((), 2, ViewMemo())) == "Sample(hands=(), turn=2)"


def test_a_part_is_the_same_object_while_its_source_is():
    memo = ViewMemo()
    hand = ("AS", "KH")
    first = memo.part("hand", hand, list)
    assert memo.part("hand", hand, list) is first
    assert memo.part("hand", ("AS", "KH"), list) is first  # equal JSON: the old list
    other = memo.part("hand", ("AS",), list)
    assert other == ["AS"] and other is not first


def test_public_is_built_once_per_state():
    memo = ViewMemo()
    built = []
    s1, s2 = Sample((), 0, memo), Sample((), 1, memo)
    p1 = memo.public(s1, lambda s: built.append(s) or {"turn": s.turn})
    assert memo.public(s1, lambda s: built.append(s) or {}) is p1
    assert memo.public(s2, lambda s: built.append(s) or {"turn": s.turn}) == {"turn": 1}
    assert len(built) == 2


def test_grown_reuses_the_items_of_a_shorter_tuple():
    memo = ViewMemo()
    one = memo.grown("log", ((0, "AS"),), lambda x: {"seat": x[0], "card": x[1]})
    two = memo.grown("log", ((0, "AS"), (1, "KS")), lambda x: {"seat": x[0], "card": x[1]})
    assert two == [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "KS"}]
    assert two[0] is one[0] and two is not one
    assert memo.grown("log", (), lambda x: x) == []


def test_the_log_chain_grows_at_the_front_and_its_view_reuses_built_entries():
    memo = ViewMemo()
    one = ((), 0, (("type", "bid"), ("value", 2)))
    two = (one, 1, (("type", "play"), ("card", "AS")), 1)
    assert log_entries(two) == [one, two] and log_entries(()) == []
    first = memo.log(one)
    assert first == [{"seat": 0, "action": {"type": "bid", "value": 2}}]
    second = memo.log(two)
    assert second == first + [{"seat": 1, "action": {"type": "play", "card": "AS"}, "won": 1}]
    assert second[0] is first[0] and memo.log(two) is second
    fresh = ((), 2, (("type", "pair"), ("cards", ("A", "K")), ("fold", False)))
    assert memo.log(fresh) == [{"seat": 2, "action": {"type": "pair", "cards": ["A", "K"], "fold": False}}]
