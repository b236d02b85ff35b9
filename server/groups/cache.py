"""Computed ledgers kept while the matches and members they were computed from stay the same.

The ledger is always computed from the match records; this only avoids computing the same
one twice. The key holds what the answer depends on: the group, game and season, the count
and greatest id of its matches (links are only ever added) and the members' ids and names.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class LedgerCache:
    def __init__(self, entries: int = 256) -> None:
        self.entries = entries
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        value = compute()
        self._kept[key] = value
        if len(self._kept) > self.entries:
            self._kept.popitem(last=False)
        return value
