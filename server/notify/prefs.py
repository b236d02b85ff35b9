"""The kinds of notification a device can turn off, and which kind an event is.

Each device keeps its own choice (``server.storage.push``): the same kinds the page's own
alerts name (web/js/attention.js), so a player finds them under the same words.
"""

from __future__ import annotations

from server.notify.events import ClockRanOut, Event, Mentioned, TableStarted, YourTurn

# turn: it is your turn; start: a table you sit at starts; mention: someone says your name in
# chat; clock: your turn clock ran out (a bot decided for you).
KINDS: tuple[str, ...] = ("turn", "start", "mention", "clock")


def kind_of(event: Event) -> str | None:
    """The kind a player is told ``event`` as, or None for an event told to nobody's devices."""
    if isinstance(event, YourTurn):
        return "turn"
    if isinstance(event, ClockRanOut):
        return "clock"
    if isinstance(event, TableStarted):
        return "start"
    if isinstance(event, Mentioned):
        return "mention"
    return None


def kinds_state(off: set[str]) -> dict[str, bool]:
    """Every kind, on or off."""
    return {kind: kind not in off for kind in KINDS}


def kinds_off(state: dict[str, bool], before: set[str]) -> set[str]:
    """The kinds off after ``state`` (some kinds, on or off) is applied to ``before``; a
    ValueError names a kind that does not exist."""
    unknown = sorted(set(state) - set(KINDS))
    if unknown:
        raise ValueError(f"Unknown kind of notification: {', '.join(unknown)} (known: {', '.join(KINDS)}).")
    off = set(before) & set(KINDS)
    for kind, on in state.items():
        if on:
            off.discard(kind)
        else:
            off.add(kind)
    return off
