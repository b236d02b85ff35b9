"""A small RFC 6902 differ written for the shape of Felt's views.

Views are trees of dicts, lists and JSON scalars that are rebuilt on every change while
the unchanged parts are usually the very same objects. So the differ first asks ``is``,
then ``==`` (both run in C), and only walks what really changed. It emits only ``add``,
``remove`` and ``replace``. Lists are compared by common prefix and suffix, which turns the
usual changes (a card played from the middle of a hand, a card added to a trick, a chat
line scrolled in) into one or two operations. The ``jsonpatch`` library is the oracle in
the tests: ``jsonpatch.apply_patch(old, diff(old, new)) == new`` for every pair.

Values placed in operations are shared with ``new``, not copied: views are never mutated
after they are built.

A ``memo`` shared across the views of one broadcast remembers the operations found for each
(old subtree, new subtree, path) by identity. Engines build the public part of a state's
views once and share it between seats (see ``Game.view``), so those parts are diffed once
per action, not once per seat.
"""

from __future__ import annotations

from typing import Any

Op = dict[str, Any]
_ABSENT: Any = object()


def _escape(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def diff(old: Any, new: Any, memo: dict | None = None) -> list[Op]:
    """The JSON Patch that turns ``old`` into ``new``."""
    ops: list[Op] = []
    if old is not new:
        if type(old) is dict and type(new) is dict:
            _diff_dict(old, new, "", ops, memo)
        elif old != new:
            _diff(old, new, "", ops, memo)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op], memo: dict | None = None) -> None:
    # Called only when old != new.
    if type(old) is dict and type(new) is dict:
        _diff_dict(old, new, path, ops, memo)
    elif type(old) is list and type(new) is list:
        _diff_list(old, new, path, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_dict(old: dict, new: dict, path: str, ops: list[Op], memo: dict | None = None) -> None:
    for key, old_value in old.items():
        new_value = new.get(key, _ABSENT)
        if old_value is new_value or old_value == new_value:
            continue
        if new_value is _ABSENT:
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
            continue
        if memo is not None and (type(new_value) is dict or type(new_value) is list):
            mkey = (id(old_value), id(new_value), path, key)
            found = memo.get(mkey)
            if found is None:
                found = memo[mkey] = []
                _diff(old_value, new_value, f"{path}/{_escape(key)}", found, memo)
            ops.extend(found)
        else:
            _diff(old_value, new_value, f"{path}/{_escape(key)}", ops, memo)
    if new.keys() != old.keys():  # a set comparison in C; rarely true
        for key, new_value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": new_value})


def _diff_list(old: list, new: list, path: str, ops: list[Op]) -> None:
    n_old, n_new = len(old), len(new)
    if n_new == 0 or n_old == 0:
        ops.append({"op": "replace", "path": path, "value": new})
        return
    shortest = min(n_old, n_new)
    prefix = 0
    while prefix < shortest and (old[prefix] is new[prefix] or old[prefix] == new[prefix]):
        prefix += 1
    suffix = 0
    limit = shortest - prefix
    while suffix < limit and (
        old[n_old - 1 - suffix] is new[n_new - 1 - suffix]
        or old[n_old - 1 - suffix] == new[n_new - 1 - suffix]
    ):
        suffix += 1
    old_mid = n_old - prefix - suffix
    new_mid = n_new - prefix - suffix
    if prefix == 0 and suffix == 0:
        if n_old != n_new:
            ops.append({"op": "replace", "path": path, "value": new})
            return
        if n_old > 1 and old[1:] == new[:-1]:
            # A log that scrolled by one line (a full chat): drop the first, append the last.
            ops.append({"op": "remove", "path": f"{path}/0"})
            ops.append({"op": "add", "path": f"{path}/-", "value": new[-1]})
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
