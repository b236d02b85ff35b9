"""Replays: rebuild every state of a finished match from its seed and its action log.

Pure: the engine, the record, nothing else. A record that does not replay to the scores it
claims is refused with a ``ReplayError`` that says where it went wrong. An action that was
taken back stays in the log, followed by ``{"type": "take_back"}``: that step puts the state
before it back. ``replay_iter`` yields
the states one at a time, so a caller that needs only one state at a time (the replay endpoint
builds a patch per action) holds O(1) states, never the whole match.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from server.games import GameError, get_game

# An action taken back: the entry after it in the log, of the same seat (server/rooms/take_backs.py).
TAKE_BACK = {"type": "take_back"}


class ReplayError(ValueError):
    """A stored match that the engine cannot rebuild as recorded."""


def _first_state(record: Mapping[str, Any]) -> tuple[Any, Any]:
    match_id = record.get("id", "?")
    try:
        game = get_game(record["game"])
        seed = record["seed"]
        commitment = record.get("commitment")
        if commitment is not None and hashlib.sha256(str(seed).encode()).hexdigest() != commitment:
            raise ReplayError(f"match {match_id}: the seed does not match its commitment")
        state = game.new_game(
            players=len(record["players"]),
            options=record.get("options") or {},
            seed=int(seed),
            dealer=int(record["dealer"]),
        )
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"match {match_id} cannot be set up again: {exc}") from exc
    return game, state


def _check_outcome(game: Any, state: Any, record: Mapping[str, Any]) -> None:
    match_id = record.get("id", "?")
    outcome = game.outcome(state)
    if outcome is None:
        raise ReplayError(f"match {match_id}: the action log ends before the match does")
    if list(outcome["scores"]) != list(record["scores"]):
        raise ReplayError(
            f"match {match_id}: the replay scores {outcome['scores']}, the record says {record['scores']}"
        )
    if "winners" in record and sorted(outcome["winners"]) != sorted(record["winners"]):
        raise ReplayError(
            f"match {match_id}: the replay's winners are {outcome['winners']}, the record says {record['winners']}"
        )


def replay_iter(record: Mapping[str, Any]) -> Iterator[Any]:
    """The engine states of the match in order, one at a time: the deal, then one per action.

    The last state is checked against the record's scores and winners before the iterator
    ends: a caller that consumed every state without a ``ReplayError`` has a faithful replay.
    """
    game, state = _first_state(record)
    match_id = record.get("id", "?")
    yield state
    before = None  # the state before the last action, while it may be taken back
    for i, entry in enumerate(record.get("actions") or []):
        try:
            if entry["action"] == TAKE_BACK:
                if before is None:
                    raise GameError("there is no action to take back")
                state, before = before, None
            else:
                state, before = game.apply(state, entry["seat"], entry["action"]), state
        except (GameError, KeyError, TypeError) as exc:
            raise ReplayError(f"match {match_id}: action {i} {entry!r} does not replay: {exc}") from exc
        yield state
    _check_outcome(game, state, record)


def replay(record: Mapping[str, Any]) -> list[Any]:
    """Every engine state of the match in a list (short matches: tests and tools)."""
    return list(replay_iter(record))
