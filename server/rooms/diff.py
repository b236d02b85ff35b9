"""A small RFC 6902 differ written for the shape of Felt's views.

Views are trees of dicts, lists and JSON scalars that are rebuilt on every change while
the unchanged parts are usually the very same objects. So the differ first asks ``is``,
then ``==`` (both run in C), and only walks what really changed. It emits only ``add``,
``remove`` and ``replace``. A list that was appended to (the hand's move log, a trick's
cards) is found in one C comparison and gets one ``add`` per new element; other lists are
compared by common prefix and suffix, which turns the usual changes (a card played from the
middle of a hand, a chat line scrolled in) into one or two operations; a list with nothing
in common at either end is replaced whole. The ``jsonpatch`` library is the oracle in
the tests: ``jsonpatch.apply_patch(old, diff(old, new)) == new`` for every pair.

Values placed in operations are shared with ``new``, not copied: views are never mutated
after they are built.

A room diffs in two parts (see ``server.rooms.room.PatchFrames``): the parts of a view that
are the same for every connection once per action (``diff_keys``, ``diff_except``), and each
connection's own few keys apart.
"""

from __future__ import annotations

from itertools import compress
from operator import is_not
from typing import Any

Op = dict[str, Any]
_ABSENT: Any = object()


def _escape(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def diff(old: Any, new: Any) -> list[Op]:
    """The JSON Patch that turns ``old`` into ``new``."""
    ops: list[Op] = []
    if old is not new:
        if type(old) is dict and type(new) is dict:
            _diff_dict(old, new, "", ops)
        elif old != new:
            _diff(old, new, "", ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    # Called only when old != new.
    if type(old) is dict and type(new) is dict:
        _diff_dict(old, new, path, ops)
    elif type(old) is list and type(new) is list:
        _diff_list(old, new, path, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_dict(old: dict, new: dict, path: str, ops: list[Op]) -> None:
    for key, old_value in old.items():
        new_value = new.get(key, _ABSENT)
        if old_value is new_value or old_value == new_value:
            continue
        if new_value is _ABSENT:
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        else:
            _diff(old_value, new_value, f"{path}/{_escape(key)}", ops)
    if new.keys() != old.keys():  # a set comparison in C; rarely true
        for key, new_value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": new_value})


def _diff_list(old: list, new: list, path: str, ops: list[Op]) -> None:
    n_old, n_new = len(old), len(new)
    if n_new == 0 or n_old == 0:
        ops.append({"op": "replace", "path": path, "value": new})
        return
    if n_new > n_old and (new[n_old - 1] is old[-1] or new[n_old - 1] == old[-1]) and new[:n_old] == old:
        # Appended to (the hand's move log, a trick's cards): the common part compared in C
        # at once, not element by element in Python (docs/decisions/0004).
        for i in range(n_old, n_new):
            ops.append({"op": "add", "path": f"{path}/{i}", "value": new[i]})
        return
    shortest = min(n_old, n_new)
    prefix = 0
    while prefix < shortest and (old[prefix] is new[prefix] or old[prefix] == new[prefix]):
        prefix += 1
    suffix = 0
    limit = shortest - prefix
    while suffix < limit and (
        old[n_old - 1 - suffix] is new[n_new - 1 - suffix] or old[n_old - 1 - suffix] == new[n_new - 1 - suffix]
    ):
        suffix += 1
    old_mid = n_old - prefix - suffix
    new_mid = n_new - prefix - suffix
    if prefix == 0 and suffix == 0:
        if n_old == n_new and n_old > 1 and old[1:] == new[:-1]:
            # A log that scrolled by one line (a full chat): drop the first, append the last.
            ops.append({"op": "remove", "path": f"{path}/0"})
            ops.append({"op": "add", "path": f"{path}/-", "value": new[-1]})
            return
        # Nothing in common at either end (a new trick's cards, the next seat to act):
        # one replace is smaller than an operation per element, and cheaper to find.
        ops.append({"op": "replace", "path": path, "value": new})
        return
    common = min(old_mid, new_mid)
    for i in range(prefix, prefix + common):
        if old[i] is not new[i] and old[i] != new[i]:
            _diff(old[i], new[i], f"{path}/{i}", ops)
    if old_mid > new_mid:
        # Remove from the highest index down so earlier indices stay valid.
        for i in range(prefix + old_mid - 1, prefix + common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{i}"})
    elif new_mid > old_mid:
        for i in range(prefix + common, prefix + new_mid):
            ops.append({"op": "add", "path": f"{path}/{i}", "value": new[i]})


def diff_keys(old: dict, new: dict, keys: tuple[str, ...], path: str, ops: list[Op]) -> None:
    """Append the operations for ``keys`` only of two dicts (a key may be absent on either side)."""
    for key in keys:
        old_value = old.get(key, _ABSENT)
        new_value = new.get(key, _ABSENT)
        if old_value is new_value:
            continue
        if new_value is _ABSENT:
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        elif old_value is _ABSENT:
            ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": new_value})
        elif old_value != new_value:
            _diff(old_value, new_value, f"{path}/{_escape(key)}", ops)


def diff_except(old: dict, new: dict, skip: frozenset[str], path: str, ops: list[Op]) -> None:
    """Append the operations for every key of two dicts but those in ``skip``."""
    keys = list(old)
    if keys == list(new):
        # The same keys in the same order (a game builds its view the same way every time):
        # the keys whose value is not the very same object are picked out in C, and only those
        # few are looked at in Python (docs/decisions/0004).
        for key in compress(keys, map(is_not, old.values(), new.values())):
            if key not in skip:
                _diff_value(old[key], new[key], f"{path}/{_escape(key)}", ops)
        return
    for key, old_value in old.items():
        new_value = new.get(key, _ABSENT)
        if old_value is new_value or key in skip:
            continue
        if new_value is _ABSENT:
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        else:
            _diff_value(old_value, new_value, f"{path}/{_escape(key)}", ops)
    for key, new_value in new.items():
        if key not in old and key not in skip:
            ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": new_value})


def _diff_value(old_value: Any, new_value: Any, path: str, ops: list[Op]) -> None:
    """Append the operations between two values of one key that are not the same object."""
    if old_value != new_value:
        kind = type(new_value)
        if kind is list and type(old_value) is list:
            _diff_list(old_value, new_value, path, ops)
        elif kind is dict and type(old_value) is dict:
            _diff_dict(old_value, new_value, path, ops)
        else:
            ops.append({"op": "replace", "path": path, "value": new_value})
