"""Kept ledger totals, one per group, game and season, brought up to date by folding in only
the matches added since.

The ledger is still computed from the match records: an answer asks the group's index which
matches the ledger holds now, folds the records of the ones not yet folded (a late record
included) into the kept totals and reads the standings from them, which equals a recount.
Should a match the totals hold be gone from the records, the totals are counted again from
nothing. The first answer for a ledger counts every match once; the next ones read only what
is new. Who is a member (and their names) is applied when the standings are read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from typing import Any

from server.groups.ledger import Tally

# Past this many new matches, one range read of the ledger beats a long list of ids.
FETCH_ALL_OVER = 500

Fetch = Callable[[Collection[str] | None], Iterable[Mapping[str, Any]]]


class LedgerCache:
    def __init__(self, entries: int = 256) -> None:
        self.entries = entries
        self._lock = threading.Lock()
        self._kept: OrderedDict[Hashable, tuple[Tally, threading.Lock]] = OrderedDict()

    def _entry(self, key: Hashable, game: str) -> tuple[Tally, threading.Lock]:
        with self._lock:
            entry = self._kept.get(key)
            if entry is None:
                entry = self._kept[key] = (Tally(game), threading.Lock())
                if len(self._kept) > self.entries:
                    self._kept.popitem(last=False)
            self._kept.move_to_end(key)
            return entry

    def _replace(self, key: Hashable, game: str, lock: threading.Lock) -> Tally:
        tally = Tally(game)
        with self._lock:
            self._kept[key] = (tally, lock)
        return tally

    def standings(
        self, key: Hashable, game: str, ids: set[str], fetch: Fetch, members: Mapping[str, str]
    ) -> dict[str, Any]:
        """The standings of the matches ``ids`` (all of one ledger, ``key``): the kept totals,
        with the matches not folded yet read by ``fetch(only)`` (None: read them all)."""
        tally, lock = self._entry(key, game)
        with lock:
            if not tally.folded <= ids:
                tally = self._replace(key, game, lock)
            missing = ids - tally.folded
            if missing:
                for match in fetch(None if len(missing) > FETCH_ALL_OVER else missing):
                    if match["id"] in missing:
                        tally.fold(match)
            return tally.standings(members)
