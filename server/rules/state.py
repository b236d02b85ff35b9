"""The one way every engine holds its state, and the one way it memoises views.

States
    A game state is a subclass of ``State`` whose annotated fields hold immutable values
    (tuples, ints, strings, ``NamedTuple`` records). Fields are read by name
    (``state.hands``). A state is never changed once an engine has returned it: ``apply``
    clones the state it is given and sets the changed fields on the clone, which nobody else
    has seen yet::

        class HandState(State):
            hands: tuple[tuple[str, ...], ...]
            turn: int
            views: ViewMemo                       # see below

        new = old.clone()                         # every field the very same object
        new.turn = 2                              # old is unchanged
        other = old.evolve(turn=3)                # the same in one call (clone + fields)
        dealt = old.evolve(fields_of_a_new_hand)  # many fields at once, from a mapping

    So the room and a search both see pure states: ``apply(state, ...)`` returns a new
    object and leaves ``state`` equal to what it was (tests/rules/test_contract.py checks
    that against a deep copy at every step of every game). Equality is field by field,
    ``copy.deepcopy``, pickling and ``repr`` are written once here, and states are
    unhashable (nothing hashes them; a mutable-by-construction object should not be).

    Why this idiom (immutable states with one fast way to derive the next would also have
    been pure; this one measured faster, docs/decisions/0001-state-clone-idiom.md): the
    fields live in one ordinary dict built in field order, so a field read is a specialised
    instance-dict load (a ``NamedTuple`` field's getter is a descriptor the interpreter does
    not specialise), and ``clone()`` is one C-level dict copy, about as cheap as a copy
    written out by hand for each class. The dict is always made whole
    (``self.__dict__ = {...}``), never filled key by key after ``object.__new__``: a dict
    split from the class's shared keys defeats the specialised load.

Views
    The room builds every seat's view (and a spectator's) after every action, and its
    differ skips a part of the view that is the very same object as in the previous view
    (``Game.seat_keys``; ``server.rooms.fanout``). A ``ViewMemo`` gives that identity: each
    match has one (made by ``new_game``, handed on by every clone untouched), and an engine
    builds each JSON part through it::

        memo = state.views
        public = memo.public(state, build)                  # built once per state
        hand = memo.part(("hand", seat), held, list)        # same list while held is same
        log = memo.grown("log", state.log, entry_json)      # an append-only tuple

    ``part(key, source, build)`` returns the JSON built last time for ``key`` when ``source``
    is the very same object as then (or when the new JSON is equal to the old one),
    otherwise ``build(source)``. Sources are compared with ``is``, so viewing an older state
    or a search's branch only misses the memo, never reads another state's part. Callers
    never change a view's nested values, so sharing them is safe.

    The memo is a state field but not part of the state's value: every ``ViewMemo`` equals
    every other, and a copied or unpickled one starts empty.

The move log
    Every game's view has ``log``: the current hand's moves in order, as the whole table saw
    them. A state keeps it as a chain that grows at the front in constant time, ``()`` when
    a hand is dealt, then one link per action: ``(previous, seat, action)``, or
    ``(previous, seat, action, won)`` for the play that completed a trick (``won``: the seat
    that took it). ``action`` is the action's public form as a tuple of (key, value) pairs (a
    list of cards as a tuple), hidden cards left out or ``None``::

        log = (state.log, seat, (("type", "play"), ("card", card)))

    ``log_entries`` lists the links oldest first, ``log_json`` turns one into the view's
    ``{"seat", "action", "won"?}``, and ``ViewMemo.log`` builds the view's list, reusing the
    entries it built for the previous state.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Self, TypeVar

S = TypeVar("S", bound="State")

_new_object = object.__new__


class State:
    """The base of every game's state: the fields its class annotates, read by name.

    ``clone()`` makes a new state of the same class sharing every field's value;
    ``evolve(fields, **changes)`` is a clone with the named fields replaced. Equality is field by
    field (a ``ViewMemo`` equals every other); states are unhashable, like any object that
    is filled in after it is made. Copies and unpickled states keep the fields' order.
    """

    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = [
            sys.intern(name)
            for klass in reversed(cls.__mro__)
            for name in vars(klass).get("__annotations__", {})
            if klass is not State and not name.startswith("_")
        ]
        cls._fields = tuple(dict.fromkeys(names))

    def __init__(self, *values: Any, **named: Any) -> None:
        fields = type(self)._fields
        given = dict(zip(fields, values, strict=False))  # fewer values than fields: the rest are named
        given.update(named)
        if len(values) > len(fields) or given.keys() != set(fields):
            problems = [
                f"{what} {names}"
                for what, names in (
                    ("missing", [name for name in fields if name not in given]),
                    ("unknown", sorted(set(given) - set(fields))),
                    ("values past the last field:", list(values[len(fields) :])),
                )
                if names
            ]
            raise TypeError(f"{type(self).__name__}: {'; '.join(problems)}")
        # One ordinary dict with the fields in class order: every clone copies it whole.
        self.__dict__ = {name: given[name] for name in fields}

    def clone(self) -> Self:
        """A new state of this class whose fields are the very same objects as this one's."""
        new = _new_object(type(self))
        new.__dict__ = self.__dict__.copy()
        return new

    def evolve(self, fields: Mapping[str, Any] | None = None, /, **changes: Any) -> Self:
        """A clone with the named fields replaced: those of ``fields`` (a mapping), then the
        keyword ``changes``; an unknown field name raises ``TypeError``.

        Many fields at once go in the mapping: ``evolve(**many)`` makes and checks a dict of
        keywords twice, a mapping is merged in C. A few fields: ``clone()`` and set them,
        which costs least of all (docs/decisions/0003).
        """
        new_fields = self.__dict__.copy()
        if fields is not None:
            new_fields.update(fields)
        new_fields.update(changes)
        if len(new_fields) != len(self.__dict__):  # a name that is no field was added (this
            # check instead of comparing the key sets first halves the cost of an evolve)
            unknown = min(set(new_fields) - set(self.__dict__))
            raise TypeError(f"{type(self).__name__} has no field {unknown!r}")
        new = _new_object(type(self))
        new.__dict__ = new_fields
        return new

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__

    def __setstate__(self, fields: dict[str, Any]) -> None:
        self.__dict__ = {name: fields[name] for name in type(self)._fields}

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if type(v) is not ViewMemo)
        return f"{type(self).__name__}({shown})"


class ViewMemo:
    """One match's view parts, each kept with the source it was built from (see the module)."""

    __slots__ = ("_parts", "_public", "_state")

    def __init__(self) -> None:
        self._state: weakref.ref | None = None
        self._public: Any = None
        self._parts: dict[Hashable, tuple[Any, Any]] = {}

    def public(self, state: S, build: Callable[[S], Any]) -> Any:
        """``build(state)``, once per state: the parts of the view every seat shares.

        The state is known by a weak reference: the state holds its memo, so a strong one made
        every match's last state and its memo a cycle that only a full collection frees (a
        table parked or closed left its whole view behind until then)."""
        if self._state is None or self._state() is not state:
            self._public = build(state)
            self._state = weakref.ref(state)
        return self._public

    def part(self, key: Hashable, source: Any, build: Callable[[Any], Any]) -> Any:
        """The JSON of ``source``: last time's very object when ``source`` is unchanged."""
        entry = self._parts.get(key)
        if entry is not None:
            if entry[0] is source:
                return entry[1]
            fresh = build(source)
            if fresh == entry[1]:
                fresh = entry[1]
        else:
            fresh = build(source)
        self._parts[key] = (source, fresh)
        return fresh

    def grown(self, key: Hashable, source: tuple, item: Callable[[Any], Any]) -> list:
        """The JSON list of an append-only tuple: ``[item(x) for x in source]``.

        When ``source`` extends the tuple of the last call, the items already built are
        reused as the very same objects (the list itself is new).
        """
        entry = self._parts.get(key)
        if entry is not None:
            built: list[Any]
            old, built = entry
            if old is source:
                return built
            k = len(old)
            if len(source) == k and source == old:
                self._parts[key] = (source, built)
                return built
            if len(source) > k and source[:k] == old:
                fresh = built + [item(x) for x in source[k:]]
                self._parts[key] = (source, fresh)
                return fresh
        fresh = [item(x) for x in source]
        self._parts[key] = (source, fresh)
        return fresh

    def log(self, log: tuple) -> list:
        """The view's ``log`` of a state's log chain (see the module), oldest move first.

        The links added since the last call are built and appended to a copy of the last
        list, whose entries stay the very same objects; a new hand's chain starts afresh.
        """
        last = self._parts.get("log")
        if last is not None and last[0] is log:
            cached: list[Any] = last[1]
            return cached
        newer = []
        link = log
        while link and (last is None or link is not last[0]):
            newer.append(link)
            link = link[0]
        built: list[Any] = last[1] if last is not None and link is last[0] else []
        fresh = built + [log_json(entry) for entry in reversed(newer)]
        self._parts["log"] = (log, fresh)
        return fresh

    # Not part of a state's value: every memo equals every other, copies start empty.

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ViewMemo)

    def __hash__(self) -> int:
        return 0

    def __reduce__(self) -> tuple[type, tuple]:
        return (ViewMemo, ())

    def __repr__(self) -> str:
        return "ViewMemo()"


def log_entries(log: tuple) -> list[tuple]:
    """The links of a log chain, oldest first: each ``(previous, seat, action[, won])``."""
    entries = []
    while log:
        entries.append(log)
        log = log[0]
    entries.reverse()
    return entries


def log_json(entry: tuple) -> dict[str, Any]:
    """One link of a log chain as the view shows it: ``{"seat", "action"}`` (+ ``"won"``)."""
    action = {key: list(value) if type(value) is tuple else value for key, value in entry[2]}
    if len(entry) == 3:
        return {"seat": entry[1], "action": action}
    return {"seat": entry[1], "action": action, "won": entry[3]}
