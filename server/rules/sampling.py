"""Deal the cards a seat cannot see: a full state that the seat could not tell from the real one.

Search bots (``server.bots.strong``) need whole game states to play out, but a seat only has
its view. ``sample_state`` builds one possible state from the view alone, so a bot that
searches sampled states can never peek:

1. Read the view (its ``log`` above all: the current hand's moves as the table saw them) into
   what the seat knows: the cards each seat was dealt that it has seen (its own hand, cards
   played face up, runs revealed, the kitty when the seat owned it), how many of each seat's
   dealt cards it has not seen, and the suits a seat has shown it lacks (it failed to follow,
   or, in Tarabish, also failed to trump).
2. Deal the unseen cards at random to those unseen places, never giving a seat a suit it has
   shown it lacks, nor a single card the caller says it lacks (``lacks``: what a model of the
   seat's play says its plays ruled out; the caller reads that from the view too). Beliefs
   that no deal can honour are dropped halfway through the attempts.
3. Lay the deal out as a stacked deck in the game's deal order (PROTOCOL §3), start a game
   with that deck and the view's dealer, and replay the log through ``apply``, filling in the
   parts of moves the seat did not see (Bid Whist's discard, Ribs' face-down Ribs and folds)
   with sampled cards.
4. Check that the sampled state's view for the seat equals the real view in every key that
   describes the current hand; a deal that fails (a replayed move turns out illegal with the
   sampled cards, a declared run the sampled hand does not hold) is drawn again.

The sample starts a fresh match whose first hand is the current hand: running scores and
earlier hands are not part of it. Everything here is pure: no I/O, randomness only from the
generator passed in.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from server.rules.game import Game, GameError

# Weighs another seat's move in a sampled deal: (state before it, seat, action) -> chance 0..1.
Judge = Callable[[Any, int, dict[str, Any]], float]

# The view keys that describe the current hand as the seat sees it: a sample must match them.
# Tarabish's declared run types and revealed runs too: a deal that turns a declared "twenty"
# into a fifty (an unseen card extending the run) contradicts what the table was told.
HAND_KEYS = (
    "hand",
    "trick",
    "bids",
    "trump",
    "to_act",
    "legal",
    "log",
    "hand_counts",
    "declarations",
    "revealed",
    "run_points",
    "run_winner",
    "blind_cards",
    "direction",
    "play_direction",
    "kitty",
)

ATTEMPTS = 200  # deals drawn before giving up on a view (only very constrained views need many)


class SamplingError(ValueError):
    """No deal consistent with the view was found (the view may be malformed)."""


@dataclass
class Unseen:
    """What one seat was dealt that the sampling seat has not seen."""

    held: int = 0  # unseen cards the seat still holds (a suit it lacks never goes here)
    down: int = 0  # unseen cards it laid face down or discarded (any suit)
    voids: set[str] = field(default_factory=set)
    lacks: set[str] = field(default_factory=set)  # single cards it is believed not to hold


@dataclass
class Knowledge:
    """Everything the sampling seat knows about the current deal."""

    deck: list[str]
    seen: list[list[str]]  # per seat: dealt cards the sampling seat has seen
    unseen: list[Unseen]
    spare: int = 0  # unseen cards outside every hand (stock, kitty)


@dataclass
class Deal:
    """One sampled deal: per seat the unseen held and face-down cards, and the spare cards."""

    held: list[list[str]]
    down: list[list[str]]
    spare: list[str]


def sample_state(
    game: Game,
    options: dict[str, Any],
    view: dict[str, Any],
    seat: int,
    rng: random.Random,
    judge: Judge | None = None,
    *,
    weighted: bool = False,
    lacks: dict[int, set[str]] | None = None,
) -> Any:
    """A state whose view for ``seat`` equals ``view`` in every key of the current hand.

    ``judge``, when given, weighs each deal by how likely the other seats' moves were with
    the cards it gave them: ``judge(state_before, seat, action) -> 0..1`` for each of their
    moves, multiplied. A deal is then kept with that chance, so deals that explain the
    table's bids come up more often (after ``ATTEMPTS`` deals the likeliest one is kept).
    With ``weighted=True`` the first deal that fits is returned with its chance instead,
    ``(state, chance)``: searching with each deal weighted by its chance is importance
    sampling, cheaper than drawing deals until one is accepted.
    ``lacks``, when given, names per seat single cards it is believed not to hold (what a
    model of its play says its plays ruled out): no deal gives it those. When no deal can
    honour them, they are dropped.
    """
    if weighted:
        return _sample(game, options, view, seat, rng, judge, lacks)
    if judge is None:
        return _sample(game, options, view, seat, rng, None, lacks)[0]
    likeliest, best = None, -1.0
    for _ in range(ATTEMPTS):
        state, chance = _sample(game, options, view, seat, rng, judge, lacks)
        if chance >= 1.0 or rng.random() < chance:
            return state
        if chance > best:
            likeliest, best = state, chance
    return likeliest


def _sample(
    game: Game,
    options: dict[str, Any],
    view: dict[str, Any],
    seat: int,
    rng: random.Random,
    judge: Judge | None,
    lacks: dict[int, set[str]] | None = None,
) -> tuple[Any, float]:
    """The first deal that fits the view, replayed, with the judge's chance for it."""
    reader = reader_of(game)
    game_name = game.name
    if "log" not in view:
        raise SamplingError("the view has no log of the hand's moves to replay")
    try:
        knowledge = reader.read(view, seat)
    except (KeyError, TypeError, IndexError) as err:
        raise SamplingError(f"this view of {game_name} cannot be read: {err!r}") from None
    for s, cards in (lacks or {}).items():
        if s != seat and 0 <= s < len(knowledge.unseen):
            knowledge.unseen[s].lacks = set(cards)
    for attempt in range(ATTEMPTS):
        if lacks and attempt == ATTEMPTS // 2:  # the beliefs contradict each other: drop them
            for unseen in knowledge.unseen:
                unseen.lacks = set()
        deal = _draw(knowledge, rng)
        if deal is None:
            continue
        try:
            deck, fills = reader.lay_out(view, seat, knowledge, deal, rng)
        except (KeyError, TypeError, IndexError) as err:  # the view's counts contradict each other
            raise SamplingError(f"no deal of {game_name} fits this view: {err!r}") from None
        replayed = _replay(game, reader, reader.options(view, options), view, deck, fills, seat, judge)
        if replayed is not None and _matches(game.view(replayed[0], seat), view):
            return replayed
    raise SamplingError(f"no deal of {game_name} fits this view of seat {seat}")


def reader_of(game: Game) -> type[Reader]:
    """How ``game``'s views are read and its deals laid out (its bots' ``reader``). A game
    without one cannot be sampled: that is an error, never a quietly weaker search."""
    reader: type[Reader] | None = getattr(game.bots, "reader", None)
    if reader is None:
        raise TypeError(f"{game.name} has no sampler: its folder's bots.py declares none")
    return reader


def _draw(knowledge: Knowledge, rng: random.Random) -> Deal | None:
    """Deal the unseen cards at random: seats that lack the most suits choose first."""
    pool = Counter(knowledge.deck)
    for cards in knowledge.seen:
        pool.subtract(cards)
    cards = list(pool.elements())
    rng.shuffle(cards)
    n = len(knowledge.unseen)
    held: list[list[str]] = [[] for _ in range(n)]
    unseen = knowledge.unseen
    for s in sorted(range(n), key=lambda s: -(13 * len(unseen[s].voids) + len(unseen[s].lacks))):
        need, voids, lacks = unseen[s].held, unseen[s].voids, unseen[s].lacks
        keep: list[str] = []
        for card in cards:
            if len(held[s]) < need and card[-1] not in voids and card not in lacks:
                held[s].append(card)
            else:
                keep.append(card)
        if len(held[s]) < need:
            return None
        cards = keep
    down: list[list[str]] = []
    for s in range(n):
        count = knowledge.unseen[s].down
        down.append(cards[:count])
        cards = cards[count:]
    return Deal(held, down, cards)


def _replay(
    game: Any,
    reader: type[Reader],
    options: dict[str, Any],
    view: dict[str, Any],
    deck: list[str],
    fills: list,
    seat: int,
    judge: Judge | None,
) -> tuple[Any, float] | None:
    """A new game dealt from ``deck`` with the log replayed, and how likely the judge finds the
    other seats' moves; None if a move does not apply."""
    n = len(view["hand_counts"])
    chance = 1.0
    try:
        state = game.new_game(players=n, options=options, seed=0, dealer=view["dealer"], decks=[deck])
        state = reader.started(game, state, view)
        hidden = iter(fills)
        for entry in view.get("log") or []:
            action = entry["action"]
            if reader.is_hidden(action):
                action = {**action, "cards": next(hidden)}
            if judge is not None and entry["seat"] != seat:
                chance *= judge(state, entry["seat"], action)
            state = game.apply(state, entry["seat"], action)
    except (GameError, ValueError, StopIteration):
        return None
    return state, chance


def _matches(sampled: dict[str, Any], real: dict[str, Any]) -> bool:
    return all(sampled.get(key) == real.get(key) for key in HAND_KEYS)


# ---- what the log shows ---------------------------------------------------------------------


def played_cards(view: dict[str, Any]) -> dict[int, list[str]]:
    """Per seat, the cards it played face up this hand (from the log)."""
    played: dict[int, list[str]] = {}
    for entry in view.get("log") or []:
        action = entry["action"]
        if action.get("type") == "play":
            played.setdefault(entry["seat"], []).append(action["card"])
    return played


def shown_voids(view: dict[str, Any], must_trump: bool = False) -> dict[int, set[str]]:
    """Per seat, the suits it has shown it lacks by not following (and, if it must, not trumping)."""
    voids: dict[int, set[str]] = {}
    trump = view.get("trump")
    trick: list[str] = []
    for entry in view.get("log") or []:
        action = entry["action"]
        if action.get("type") != "play":
            continue
        card = action["card"]
        if trick and card[-1] != trick[0][-1]:
            lacks = voids.setdefault(entry["seat"], set())
            lacks.add(trick[0][-1])
            if must_trump and trump and card[-1] != trump:
                lacks.add(trump)
        trick.append(card)
        if "won" in entry:
            trick = []
    return voids


def trick_knowledge(view: dict[str, Any], seat: int, deck: list[str], must_trump: bool) -> Knowledge:
    """Seen cards, unseen counts and voids for a game where every card is played face up."""
    n = len(view["hand_counts"])
    played = played_cards(view)
    voids = shown_voids(view, must_trump)
    seen = [list(played.get(s, [])) for s in range(n)]
    unseen = [Unseen(held=view["hand_counts"][s], voids=voids.get(s, set())) for s in range(n)]
    seen[seat] += list(view["hand"] or [])
    unseen[seat] = Unseen()
    return Knowledge(deck, seen, unseen)


def dealt(knowledge: Knowledge, deal: Deal, seat: int) -> list[str]:
    return knowledge.seen[seat] + deal.held[seat] + deal.down[seat]


# ---- what the view shows, and how the table deals: one reader per game, in its folder -------


class Reader:
    """How one game's view is read and its deal laid out (one subclass per game, in its
    folder's ``bots.py``)."""

    #: The types of move whose cards the other seats do not see (a discard, a face-down pair).
    hidden: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def is_hidden(cls, action: dict[str, Any]) -> bool:
        """True for a move whose cards the table did not see (filled in from the sampled deal)."""
        return action.get("type") in cls.hidden and action.get("cards") is None

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        """What ``seat`` knows of the current deal from its ``view``."""
        raise NotImplementedError

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        """The deck that deals ``deal`` as the table deals, and the cards of the hand's hidden
        moves in the order of the log."""
        raise NotImplementedError

    @staticmethod
    def options(view: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """The options of the sampled match (the table's own, unless the hand needs others)."""
        return dict(options)

    @staticmethod
    def started(game: Any, state: Any, view: dict[str, Any]) -> Any:
        """The sampled match as dealt, before the log is replayed (a game whose hand depends on
        the running scores starts it at the view's)."""
        return state
