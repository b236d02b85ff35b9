"""Replays: rebuild every state of a finished match from its seed and its action log.

Pure: the engine, the record, nothing else. A record that does not replay to the scores it
claims is refused with a ``ReplayError`` that says where it went wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from server.rules.games import GameError, get_game


class ReplayError(ValueError):
    """A stored match that the engine cannot rebuild as recorded."""


def replay(record: Mapping[str, Any]) -> list[Any]:
    """Every engine state of the match in order: the deal, then one state after each action."""
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
    states = [state]
    for i, entry in enumerate(record.get("actions") or []):
        try:
            state = game.apply(state, entry["seat"], entry["action"])
        except (GameError, KeyError, TypeError) as exc:
            raise ReplayError(f"match {match_id}: action {i} {entry!r} does not replay: {exc}") from exc
        states.append(state)
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
    return states


def replay_states(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every state as ``{"index", "seat", "action", "view"}`` with all hands shown."""
    states = replay(record)
    game = get_game(record["game"])
    actions = record.get("actions") or []
    out = []
    for i, state in enumerate(states):
        entry = actions[i - 1] if i else None
        out.append(
            {
                "index": i,
                "seat": entry["seat"] if entry else None,
                "action": entry["action"] if entry else None,
                "view": game.full_view(state),
            }
        )
    return out
