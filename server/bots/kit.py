"""What the generic bots need of one game, declared in the game's folder (``bots.py``).

The Easy bot is the game's own heuristics; the Strong bot (``server.bots.strong``) is one
search for every game and asks the game's kit for the rest: how the sampler reads a view and
lays out a deal (``reader``, ``server.rules.sampling.Reader``), which moves are worth
weighing (``candidates``), how good a finished hand is for a seat (``hand_result``), whether
the other seats' calls are weighed (``judged``), how clearly a searched move must beat the
Easy bot's (``margin``), and what other seats' plays say they lack (``read_plays``). A game
without a kit has no bots: asking for one is an error, never a quieter bot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.bots.base import Action, Bot
from server.rules.sampling import Reader

View = dict[str, Any]
# suit, view -> the suit's ranks in trick order, high to low, and each rank's points (if any).
CardOrder = Callable[[str, View], tuple[Sequence[str], Mapping[str, int]]]


@dataclass(frozen=True)
class BotKit:
    """One game's parts of the Easy and Strong bots."""

    easy: type[Bot]
    reader: type[Reader]
    # the first finished hand of a view's history -> how good it is for a seat
    hand_result: Callable[[View, int], float]
    # view, legal actions, the Easy bot's choice -> the actions worth weighing (the choice among them)
    candidates: Callable[[View, list[Action], Action], list[Action]]
    # the other seats' calls (bids, passes, trump, declarations) weigh the sampled deals
    judged: bool = True
    # standard errors by which the best searched move must beat the Easy bot's to be played
    margin: float = 0.0
    # view, seat -> per other seat, single cards its plays ruled out (None: plays are not read)
    read_plays: Callable[[View, int], dict[int, set[str]]] | None = None


def distinct_plays(view: View, legal: list[Action], keep: Action, order: CardOrder) -> list[Action]:
    """The legal actions with equivalent cards merged: two cards of a suit are equivalent when
    every card ranked between them (in the game's ``order``) is in the hand or already played
    and they are worth the same points, so playing either changes nothing. ``keep`` always stays."""
    plays = {a["card"] for a in legal if a.get("type") == "play"}
    if len(plays) < 2:
        return list(legal)
    gone = {e["action"]["card"] for e in view.get("log") or [] if e["action"].get("type") == "play"}
    gone |= plays | set(view.get("hand") or [])
    drop: set[str] = set()
    for suit in "SHDC":
        ranks, points = order(suit, view)
        previous: str | None = None
        for rank in ranks:
            card = rank + suit
            if card in plays:
                if previous is not None and points.get(rank, 0) == points.get(previous[:-1], 0):
                    drop.add(card if card != keep.get("card") else previous)
                previous = card if card not in drop else previous
            elif card not in gone:
                previous = None
    return [a for a in legal if a.get("card") not in drop or a == keep]


# Trick order, high to low, of a plain 52-card deck (each engine's module states its own).
NATURAL = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")


def natural_order(suit: str, view: View) -> tuple[Sequence[str], Mapping[str, int]]:
    """Ace high, no card points (Oh Hell; Bid Whist uptown)."""
    return NATURAL, {}


def team_margin(view: View, seat: int) -> float:
    """A partnership game's hand: the seat's side's score minus the other side's (the next seat's)."""
    scores = view["history"][0]["scores"]
    return float(scores[seat] - scores[(seat + 1) % len(scores)])
