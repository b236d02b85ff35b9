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
from typing import Any

from server.rules.cards import JOKERS, ribs_deck, standard_deck, tarbish_deck
from server.rules.games import GameError, get_game
from server.rules.games.bid_whist_house import led_suit as bid_whist_led_suit
from server.rules.games.bid_whist_house import suit_in_play as bid_whist_suit

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
    game_name: str,
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
        return _sample(game_name, options, view, seat, rng, judge, lacks)
    if judge is None:
        return _sample(game_name, options, view, seat, rng, None, lacks)[0]
    likeliest, best = None, -1.0
    for _ in range(ATTEMPTS):
        state, chance = _sample(game_name, options, view, seat, rng, judge, lacks)
        if chance >= 1.0 or rng.random() < chance:
            return state
        if chance > best:
            likeliest, best = state, chance
    return likeliest


def _sample(
    game_name: str,
    options: dict[str, Any],
    view: dict[str, Any],
    seat: int,
    rng: random.Random,
    judge: Judge | None,
    lacks: dict[int, set[str]] | None = None,
) -> tuple[Any, float]:
    """The first deal that fits the view, replayed, with the judge's chance for it."""
    game = get_game(game_name)
    reader = _READERS[game_name]
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
        replayed = _replay(game, reader.options(view, options), view, deck, fills, seat, judge)
        if replayed is not None and _matches(game.view(replayed[0], seat), view):
            return replayed
    raise SamplingError(f"no deal of {game_name} fits this view of seat {seat}")


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
        hidden = iter(fills)
        for entry in view.get("log") or []:
            action = entry["action"]
            if _is_hidden(action):
                action = {**action, "cards": next(hidden)}
            if judge is not None and entry["seat"] != seat:
                chance *= judge(state, entry["seat"], action)
            state = game.apply(state, entry["seat"], action)
    except (GameError, ValueError, StopIteration):
        return None
    return state, chance


def _is_hidden(action: dict[str, Any]) -> bool:
    """True for a move whose cards the table did not see (a discard, the Ribs, a fold)."""
    kind = action.get("type")
    return bool(kind in ("discard", "ribs") or action.get("fold")) and action.get("cards") is None


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


def _trick_knowledge(view: dict[str, Any], seat: int, deck: list[str], must_trump: bool) -> Knowledge:
    """Seen cards, unseen counts and voids for a game where every card is played face up."""
    n = len(view["hand_counts"])
    played = played_cards(view)
    voids = shown_voids(view, must_trump)
    seen = [list(played.get(s, [])) for s in range(n)]
    unseen = [Unseen(held=view["hand_counts"][s], voids=voids.get(s, set())) for s in range(n)]
    seen[seat] += list(view["hand"] or [])
    unseen[seat] = Unseen()
    return Knowledge(deck, seen, unseen)


def _dealt(knowledge: Knowledge, deal: Deal, seat: int) -> list[str]:
    return knowledge.seen[seat] + deal.held[seat] + deal.down[seat]


# ---- one reader per game: what the view shows, and how the table deals -----------------------


class Reader:
    """How one game's view is read and its deal laid out (one subclass per game)."""

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


class OhHellReader(Reader):
    """Oh Hell: dealt one at a time from the dealer's left, then the trump card (when the hand
    turns one), then the stock. In a blind_one hand the seat sees every other seat's card
    (``blind_cards``) and not its own while it bids: its own card is dealt like any unseen one."""

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        knowledge = _trick_knowledge(view, seat, standard_deck(), must_trump=False)
        turned = view["turned"]
        if turned is not None:
            knowledge.seen[seat].append(turned)  # seen by everyone; kept apart from the hands
        for other, card in enumerate(view.get("blind_cards") or ()):
            if card is not None:
                knowledge.seen[other].append(card)
                knowledge.unseen[other].held -= 1
        knowledge.unseen[seat].held = view["hand_counts"][seat] - len(view["hand"] or ())
        n = len(view["hand_counts"])
        knowledge.spare = 52 - n * view["hand_size"] - (turned is not None)
        return knowledge

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        n, size = len(view["hand_counts"]), view["hand_size"]
        turned = view["turned"]
        hands = []
        for s in range(n):
            cards = _dealt(knowledge, deal, s)
            hands.append([c for c in cards if c != turned])
        order = [(view["dealer"] + 1 + k) % n for k in range(n)]
        deck = [hands[s][i] for i in range(size) for s in order]
        return deck + ([turned] if turned is not None else []) + deal.spare, []

    @staticmethod
    def options(view: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """The real options, with the first hand of the size being played and this hand's
        trump: a turned card, no trump, or the suit the table's trump mode gave it (the
        sampled match's first hand is not the real hand's number, so the mode cannot say)."""
        trump = "turn" if view["turned"] is not None else (view["trump"] or "no_trump")
        return {**options, "start": "high", "max_cards": view["hand_size"], "min_cards": 1, "trump": trump}


def bid_whist_voids(view: dict[str, Any]) -> dict[int, set[str]]:
    """Bid Whist's shown voids, jokers counted as the house options play them: a joker
    follows trump (a seat void in trump holds no joker either); in no trump the first card
    that is not a joker sets the suit led, and under ``joker_no_trump: "must_play"`` a seat
    that did not follow with a joker holds none."""
    trump = view.get("trump")
    must_play = view.get("joker_no_trump") == "must_play"
    voids: dict[int, set[str]] = {}
    trick: list[tuple[int, str]] = []
    for entry in view.get("log") or []:
        action = entry["action"]
        if action.get("type") != "play":
            continue
        card = action["card"]
        led = bid_whist_led_suit(trick, trump)
        if led is not None and bid_whist_suit(card, trump) != led:
            lacks = voids.setdefault(entry["seat"], set())
            lacks.add(led)
            if led == trump or (trump is None and must_play and card not in JOKERS):
                lacks.update(JOKERS)
        trick.append((entry["seat"], card))
        if "won" in entry:
            trick = []
    return voids


class BidWhistReader(Reader):
    """Bid Whist: 12 each one at a time from the dealer's left; the rest (4, or 4 + jokers
    with the house option) are the kitty. Jokers are dealt like any unseen card, never to a
    seat that has shown it holds none (``bid_whist_voids``)."""

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        deck = standard_deck() + list(JOKERS[: view.get("jokers") or 0])
        knowledge = _trick_knowledge(view, seat, deck, must_trump=False)
        size = view.get("kitty_size") or 4
        if view.get("jokers"):
            for s, lacks in bid_whist_voids(view).items():
                if s != seat:
                    knowledge.unseen[s].voids = {x for x in lacks if x in "SHDC"}
                    knowledge.unseen[s].lacks = {x for x in lacks if x in JOKERS}
        declarer = view.get("declarer")
        if declarer is None or view.get("kitty_count", size) != 0:  # the kitty is not taken yet
            knowledge.spare = size
            return knowledge
        discarded = any(e["action"].get("type") == "discard" for e in view.get("log") or [])
        if declarer == seat:
            shown = list(view.get("discards") or [])
            knowledge.seen[seat] += shown
            if discarded and not shown:
                knowledge.unseen[seat].down = size
        elif discarded:
            knowledge.unseen[declarer].down = size
        return knowledge

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        order = [(view["dealer"] + 1 + k) % 4 for k in range(4)]
        hands = [_dealt(knowledge, deal, s) for s in range(4)]
        kitty = list(deal.spare)
        size = view.get("kitty_size") or 4
        declarer = view.get("declarer")
        if not kitty:  # the declarer holds the kitty's cards among its 12 + kitty
            if declarer is None:
                raise SamplingError("the kitty is neither in the deal's spare cards nor with a declarer")
            cards = hands[declarer]
            # The declarer's own view shows the kitty, less what it discarded once the discards
            # are closed: the rest of the kitty is then among the (sampled) discards.
            shown = list(view.get("kitty") or []) if declarer == seat else []
            short = declarer == seat and len(shown) < size
            pool = [c for c in (deal.down[declarer] if short else cards) if c not in shown]
            kitty = shown + rng.sample(pool, size - len(shown))
            hands[declarer] = [c for c in cards if c not in kitty]
        fills = [deal.down[declarer] or knowledge.seen[declarer][-size:]] if declarer is not None else []
        deck = [hands[s][i] for i in range(12) for s in order]
        return deck + kitty, fills


class TarbishReader(Reader):
    """Tarabish: three at a time from the dealer's left, three rounds; the third packet is the kitty."""

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        # (with no trump called the view's trump is None: nobody had a trump to play)
        knowledge = _trick_knowledge(view, seat, tarbish_deck(), must_trump=True)
        played = played_cards(view)
        for shown in view.get("revealed") or []:
            s = shown["seat"]
            if s == seat:
                continue
            still_held = [c for c in shown["cards"] if c not in played.get(s, [])]
            knowledge.seen[s] += still_held
            knowledge.unseen[s].held -= len(still_held)
        for s, count in enumerate(view.get("kitty_count") or []):
            knowledge.unseen[s].down += count  # a kitty nobody has seen yet, its owner included
            if s != seat:
                knowledge.unseen[s].held -= count
        return knowledge

    @staticmethod
    def options(view: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """The real options; a dealer forced after thrown-in hands (``dealer_forced`` off) is
        forced in the sample too, whose first hand is this one (no throw-ins before it)."""
        if view.get("dealer_forced") and not options.get("dealer_forced", True):
            return {**options, "dealer_forced": True}
        return dict(options)

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        order = [(view["dealer"] + 1 + k) % 4 for k in range(4)]
        packets = {}
        for s in range(4):
            held = knowledge.seen[s] + deal.held[s]
            rng.shuffle(held)
            kitty = deal.down[s] if deal.down[s] else held[6:]
            packets[s] = [c for c in held if c not in kitty] + kitty
        deck = [packets[s][3 * r + i] for r in range(3) for s in order for i in range(3)]
        return deck, []


class RibsReader(Reader):
    """Ribs: two at a time from the dealer's left until everyone has eight; pairs may go face down."""

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        n = len(view["hand_counts"])
        seen: list[list[str]] = [[] for _ in range(n)]
        unseen = [Unseen(held=view["hand_counts"][s]) for s in range(n)]
        for trick in view.get("tricks") or []:
            seen[trick["leader"]] += trick["ribs"]
            for play in trick["plays"]:
                if play["cards"] is not None:
                    seen[play["seat"]] += play["cards"]
        for play in view.get("trick") or []:
            if play.get("cards") is not None:
                seen[play["seat"]] += play["cards"]
        for entry in RibsReader._face_down(view):
            if entry["seat"] != seat:
                unseen[entry["seat"]].down += 2
        seen[seat] += list(view["hand"] or [])
        for mine in view.get("my_face_down") or []:
            seen[seat] += mine["cards"]
        unseen[seat] = Unseen()
        return Knowledge(ribs_deck(n), seen, unseen)

    @staticmethod
    def _face_down(view: dict[str, Any]) -> list[dict[str, Any]]:
        """The log's face-down moves whose cards the table has not seen since (with trick numbers)."""
        out, trick = [], 0
        revealed = {t["trick_number"] for t in view.get("tricks") or []}
        for entry in view.get("log") or []:
            action = entry["action"]
            if action.get("type") == "ribs":
                trick += 1
            if _is_hidden(action) and not (action["type"] == "ribs" and trick in revealed):
                out.append({"seat": entry["seat"], "trick": trick, "ribs": action["type"] == "ribs"})
        return out

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        n = len(view["hand_counts"])
        ribs_shown = {t["trick_number"]: t["ribs"] for t in view.get("tricks") or []}
        mine = {(m["trick_number"], m["fold"]): m["cards"] for m in view.get("my_face_down") or []}
        down = [list(cards) for cards in deal.down]
        fills, trick = [], 0
        for entry in view.get("log") or []:
            action = entry["action"]
            if action.get("type") == "ribs":
                trick += 1
            if not _is_hidden(action):
                continue
            is_ribs = action["type"] == "ribs"
            if is_ribs and trick in ribs_shown:
                fills.append(ribs_shown[trick])
            elif entry["seat"] == seat:
                fills.append(mine[(trick, not is_ribs)])
            else:
                fills.append(down[entry["seat"]][:2])
                down[entry["seat"]] = down[entry["seat"]][2:]
        order = [(view["dealer"] + 1 + k) % n for k in range(n)]
        hands = [_dealt(knowledge, deal, s) for s in range(n)]
        for s in range(n):
            rng.shuffle(hands[s])
        deck = [hands[s][2 * p + i] for p in range(4) for s in order for i in range(2)]
        return deck, fills


_READERS: dict[str, type[Reader]] = {
    "oh_hell": OhHellReader,
    "bid_whist": BidWhistReader,
    "tarbish": TarbishReader,
    "ribs": RibsReader,
}
