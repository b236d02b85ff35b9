"""Proven claims: a seat claims every remaining trick of the hand for its side, and the claim
stands only when it is certain.

The rules a claim follows:

- A claim is made while a hand's tricks are being played (``Game.trick_play`` is not None),
  in a game that allows claims (``Game.claims``); it covers every remaining trick, the trick
  in progress included, for the claimant's side (partners share a side; in a game without
  partnerships a seat is its own side).
- It is certain when the claimant's side takes every remaining trick whatever the other
  seats legally play: a search with every hand open, where the claimant's side chooses its
  cards and every other seat plays against it. The moves are the game's own
  (``legal_actions`` and ``apply``); who takes a trick is the game's own rule
  (``TrickPlay.winner``).
- A certain claim comes with a winning line: the plays, seat by seat, that finish the hand
  with every trick on the claimant's side (the others' cards chosen among their low ones).
- A claim the search cannot settle within its node budget is not certain: the answer never
  waits on a search that would take long.

The search (``winning_line``) is an AND-OR search over open hands, cut short as soon as it
can be: the first trick the claimant's side loses refutes the line that led to it; a seat
of the claimant's side stops at its first card that wins everything, another seat at its
first card that refutes, and tries first the card that would head the trick (leading: the
top card of a suit). It looks at the trick in progress alone before the whole hand: a trick
lost there refutes the claim at once. Positions are remembered by (the cards each seat
holds, whose card is next, the trick so far), so the same position reached by plays in
another order is settled once (a position won only as far as the first look went is looked
at again). Two positions are settled without a search: a seat against the claim holding
the highest trump left refutes it (that trump takes the trick it is played to, by the hand's
last trick at the latest), and a seat of the claiming side to lead whose every card is the
top of its suit, with no trump elsewhere that could beat a plain one, takes every trick by
leading from the top. Cards are merged into one move when they are equivalent:

- two cards of one hand of the same suit with no live card (held by anyone, or already in
  the trick) between them in that suit's order this hand;
- for a seat playing against the claim, every card of a *dead* suit: a suit that is not
  trump, that the claimant's side holds none of, and that is not the suit of the trick in
  progress. After this trick only the claimant's side leads (any other lead means a trick was
  lost), so a dead suit is never led again and its cards can never take a trick: they are all
  the same discard, and a position counts them without naming them. (A side holding a card of
  no suit, such as a joker at no trump, may let another seat name the suit led: then no suit
  is dead.)

The module knows no game by name and does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from server.rules.game import Action, Game
from server.rules.tricks import Play, TrickPlay

#: Positions the search may settle before it gives up (and the claim is refused): at 14-17 µs
#: of CPU a position, about 25 ms of search on an idle core (bench/claims.py; docs/decisions/0054).
NODE_BUDGET = 1500

Line = list[tuple[int, Action]]
#: Each suit's live cards, strongest first, with the seat holding each (-1: in the trick).
Live = dict[str | None, list[tuple[str, int]]]
Order = Mapping[str, tuple[str | None, int]]
_NOTHING: frozenset[str] = frozenset()
_LOST = -1  # a position settled as lost: for good, whatever the horizon (below every floor)


class OverBudget(Exception):
    """The search visited more positions than its budget allows."""


def winning_line(game: Game, state: Any, claimant: int, budget: int = NODE_BUDGET) -> Line | None:
    """The plays that finish the hand with every remaining trick on ``claimant``'s side, when
    that is certain whatever the other seats play; None when it is not (or not now, or the
    search would take longer than ``budget`` positions)."""
    if not game.claims:
        return None
    play = game.trick_play(state)
    if play is None or not 0 <= claimant < len(play.sides):
        return None
    search = ClaimSearch(game, play.sides[claimant], budget)
    try:
        if not search.wins(state, play):
            return None
        return search.line(state, play)
    except OverBudget:
        return None


def is_certain(game: Game, state: Any, claimant: int, budget: int = NODE_BUDGET) -> bool:
    """Whether ``claimant``'s claim of every remaining trick is certain now."""
    return winning_line(game, state, claimant, budget) is not None


class ClaimSearch:
    """One claim's search: the side claiming, the positions settled so far, the nodes spent."""

    __slots__ = ("budget", "cut", "floor", "game", "nodes", "settled", "side")

    def __init__(self, game: Game, side: int, budget: int) -> None:
        self.game = game
        self.side = side
        self.budget = budget
        self.nodes = 0
        # Each position settled: _LOST, or the horizon (``floor``) it was won down to.
        self.settled: dict[Hashable, int] = {}
        self.floor = 0  # tricks left at which the search stops looking (0: the hand's end)
        self.cut = False  # whether the search stopped at ``floor`` since it was set

    def wins(self, state: Any, play: TrickPlay) -> bool:
        """Whether the claiming side takes every remaining trick from this position.

        The search looks at the trick in progress alone first, then at the whole hand: a
        trick the defence can take now refutes the claim for good, and a search of the whole
        hand could spend its budget on lines where the defence wins a trick late before it
        tries the card that wins this one (on the bench's deals, 32 claims of 328 ran over
        the budget, 24 with this first look; looking two or four tricks ahead first did no
        better). A first look that never stopped at its horizon is the whole answer."""
        live = self._live(play)
        left = len(play.hands[play.turn])  # tricks left, this one included
        for floor in (left - 1, 0) if left > 1 else (0,):
            self.floor, self.cut = floor, False
            if not self._wins(state, play, live):
                return False
            if not self.cut:
                break  # no line reached the horizon: the answer is the hand's
        return True

    def _wins(self, state: Any, play: TrickPlay, live: Live) -> bool:
        """Whether the claiming side takes every trick from this position to the horizon
        (``floor`` tricks left) whatever the others play (``live``: its live cards)."""
        dead = self._dead_suits(play, live)
        key = self._key(play, dead)
        known = self.settled.get(key)
        if known is not None and known <= self.floor:  # lost, or won at least this far
            return known != _LOST
        self.nodes += 1
        if self.nodes > self.budget:
            raise OverBudget
        ours = play.sides[play.turn] == self.side
        settled = self.floor
        if self._top_trump_against(play, live):
            result = False
        elif ours and self._cashes(play, live):
            result, settled = True, 0  # to the hand's end
        else:
            result = not ours  # ours: no card wins everything; theirs: no card refutes
            for card, action in self._moves(state, play, dead, live):
                if self._after(state, play, live, card, action) is ours:
                    result = ours
                    break
        self.settled[key] = settled if result else _LOST
        return result

    def _cashes(self, play: TrickPlay, live: Live) -> bool:
        """Whether the seat to lead takes every trick by leading its cards from the top: in
        each suit it holds, it holds that suit's highest live cards, and nobody else holds a
        trump that could beat one of them (no card of no suit anywhere)."""
        if play.trick or None in live:
            return False
        leader, trump = play.turn, play.trump
        plain = others_trump = False
        for suit, cards in live.items():
            others = False
            for _, seat in cards:
                if seat != leader:
                    others = True
                elif others:
                    return False  # another seat's card above one of the leader's
                elif suit != trump:
                    plain = True
            others_trump = others_trump or (others and suit == trump)
        return not (plain and others_trump)

    def _top_trump_against(self, play: TrickPlay, live: Live) -> bool:
        """Whether a seat against the claim holds the highest trump left: it takes the trick it
        is played to, and it is played by the hand's last trick at the latest."""
        trumps = live.get(play.trump) if play.trump is not None else None
        if not trumps:
            return False
        holder = trumps[0][1]  # the highest live trump's (-1: it is in the trick)
        return holder >= 0 and play.sides[holder] != self.side

    def line(self, state: Any, play: TrickPlay | None) -> Line:
        """The plays from a won position to the hand's end (every position on it is settled):
        the claiming side's first card that wins everything, the others' lowest card."""
        plays: Line = []
        while play is not None:
            seat = play.turn
            live = self._live(play)
            moves = self._moves(state, play, self._dead_suits(play, live), live)
            if play.sides[seat] == self.side:
                action = next(m for m in moves if self._after(state, play, live, *m))[1]
            else:
                # Every card of theirs loses; the lowest looks least odd (their moves are tried
                # most threatening first, so it need not be the last).
                order, trump = play.order, play.trump
                action = min(moves, key=lambda m: (order[m[0]][0] == trump, order[m[0]][1]))[1]
            plays.append((seat, action))
            if len(play.trick) + 1 == len(play.sides) and len(play.hands[seat]) == 1:
                break  # the hand's last card
            state = self.game.apply(state, seat, action)
            play = self.game.trick_play(state)
        return plays

    def _after(self, state: Any, play: TrickPlay, live: Live, card: str, action: Action) -> bool:
        """Whether the claiming side takes every remaining trick once ``card`` is played."""
        seat = play.turn
        trick = (*play.trick, (seat, card))
        complete = len(trick) == len(play.sides)
        if complete:
            if play.sides[play.winner(trick)] != self.side:
                return False  # a trick lost refutes at once
            if len(play.hands[seat]) == 1:
                return True  # the hand's last trick
            if len(play.hands[seat]) - 1 <= self.floor:
                self.cut = True
                return True  # won to the horizon
        after = self.game.apply(state, seat, action)
        following = self.game.trick_play(after)
        assert following is not None  # the hand goes on: its tricks are still being played
        return self._wins(after, following, _played(live, play.order, trick, complete))

    # ---- moves and positions --------------------------------------------------------------

    def _live(self, play: TrickPlay) -> Live:
        """Each suit's live cards (in a hand or in the trick), strongest first, each with the
        seat holding it (-1: in the trick).

        Read from the hands where a search starts; every position it visits derives its own
        from the one before (``_played``): sorting each suit and scanning every hand for it
        at every position was the largest part of the search's own work in the profile of
        the slowest claims (bench/claims.py)."""
        order = play.order
        holder = {card: seat for seat, hand in enumerate(play.hands) for card in hand}
        holder.update((card, -1) for _, card in play.trick)
        live: Live = {}
        for card in sorted(holder, key=lambda c: order[c][1], reverse=True):
            live.setdefault(order[card][0], []).append((card, holder[card]))
        return live

    def _moves(self, state: Any, play: TrickPlay, dead: frozenset[str], live: Live) -> list[tuple[str, Action]]:
        """The acting seat's legal cards, one per class of equivalent cards, strongest first
        (a seat against the claim: its cards of ``dead`` suits one move, the last)."""
        seat = play.turn
        legal = {a["card"]: a for a in self.game.legal_actions(state, seat) if a.get("type") == "play"}
        if play.sides[seat] == self.side:
            dead = _NOTHING
        order, trump = play.order, play.trump
        moves: list[tuple[str, Action]] = []
        dead_move = None
        for card in _representatives(live, seat, legal, play.order):
            if order[card][0] in dead:
                dead_move = dead_move or (card, legal[card])
            else:
                moves.append((card, legal[card]))
        if play.sides[seat] == self.side:
            moves.sort(key=lambda m: (order[m[0]][0] == trump, order[m[0]][1]), reverse=True)
        else:
            moves.sort(key=_threat(play, live), reverse=True)
        if dead_move is not None:
            moves.append(dead_move)
        return moves

    def _dead_suits(self, play: TrickPlay, live: Live) -> frozenset[str]:
        """The suits no card of which can take a trick or be led again (see the module)."""
        side, sides = self.side, play.sides
        if not play.trick and sides[play.turn] != side:
            return _NOTHING  # another seat leads this trick: any suit may be led
        led = _led(play)
        if play.trick and led is None:
            return _NOTHING  # a card of no suit may leave the suit led to another seat
        dead = []
        for suit, cards in live.items():
            held = False
            for _, seat in cards:
                if seat >= 0:
                    if sides[seat] == side:
                        if suit is None:
                            return _NOTHING  # the side's card of no suit: as above
                        break
                    held = True
            else:
                if held and suit is not None and suit != led and suit != play.trump:
                    dead.append(suit)
        return frozenset(dead)

    def _key(self, play: TrickPlay, dead: frozenset[str]) -> Hashable:
        """The position: whose card is next, the trick so far and each hand, the cards of
        ``dead`` suits of the seats against the claim only counted."""
        if not dead:
            return (play.turn, play.trick, play.hands)
        order, sides, side = play.order, play.sides, self.side
        hands = tuple(
            hand
            if sides[seat] == side
            else (tuple(c for c in hand if order[c][0] not in dead), sum(order[c][0] in dead for c in hand))
            for seat, hand in enumerate(play.hands)
        )
        return (play.turn, play.trick, hands)


def _led(play: TrickPlay) -> str | None:
    """The suit of the trick in progress: its first card's that has a suit."""
    for _, card in play.trick:
        suit = play.order[card][0]
        if suit is not None:
            return suit
    return None


def _played(live: Live, order: Order, trick: tuple[Play, ...], complete: bool) -> Live:
    """``live`` once the trick's last card so far is played: that card is in the trick, or,
    the trick complete, its cards are out of play. (Derived from the position before rather
    than read again from every hand: ``_live`` was a fifth of a position's time.)"""
    after = dict(live)
    if not complete:
        card = trick[-1][1]
        suit = order[card][0]
        after[suit] = [(c, -1) if c == card else (c, seat) for c, seat in live[suit]]
        return after
    gone = {card for _, card in trick}
    for suit in {order[card][0] for card in gone}:
        left = [(c, seat) for c, seat in live[suit] if c not in gone]
        if left:
            after[suit] = left
        else:
            del after[suit]
    return after


def _threat(play: TrickPlay, live: Live) -> Callable[[tuple[str, Action]], tuple[bool, bool, int]]:
    """The order a seat against the claim tries its cards in, most threatening first: a card
    that would head the trick so far (leading: the highest live card of its suit), then
    trumps, then the stronger. A refutation is one card that takes a trick, so trying these
    first finds it sooner; the order changes no answer. (Strongest first alone let a defender
    leading an unbeatable ace try every trump before it: the slowest claims of the bench.)"""
    order, trump = play.order, play.trump
    if not play.trick:
        tops = {cards[0][0] for cards in live.values()}
        return lambda m: (m[0] in tops, order[m[0]][0] == trump, order[m[0]][1])
    led = _led(play)

    def contends(card: str) -> tuple[int, int]:
        suit, strength = order[card]
        if suit is not None and suit == trump:
            return (2, strength)
        return (1, strength) if suit is not None and suit == led else (0, 0)

    high = max(contends(card) for _, card in play.trick)
    return lambda m: (contends(m[0]) > high, order[m[0]][0] == trump, order[m[0]][1])


def _representatives(live: Live, seat: int, legal: dict[str, Action], order: Order) -> list[str]:
    """One legal card of ``seat`` for each run of its legal cards that no other live card
    (in another hand or in the trick) separates in its suit's order."""
    by_suit: dict[str | None, list[str]] = {}
    for card in legal:
        by_suit.setdefault(order[card][0], []).append(card)
    chosen = []
    for suit, cards in by_suit.items():
        if len(cards) == 1:
            chosen.append(cards[0])
            continue
        run_open = False
        for card, holder in live[suit]:
            if holder == seat and card in legal:
                if not run_open:
                    chosen.append(card)
                    run_open = True
            else:
                run_open = False
    return chosen


__all__ = ["NODE_BUDGET", "ClaimSearch", "Line", "OverBudget", "Play", "is_certain", "winning_line"]
