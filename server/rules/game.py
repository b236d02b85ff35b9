"""The engine surface every game implements (the rooms and the tests use nothing else).

A game is a handful of pure functions over an immutable state:

- ``new_game(players, options, seed, dealer, decks)`` deals the first hand: written once,
  here, it checks what every game checks and hands a ``Setup`` to the game's ``start``;
- ``to_act(state)`` lists the seats that must act now (``[]`` when the match is over);
- ``legal_actions(state, seat)`` enumerates every legal action of that seat;
- ``apply(state, seat, action)`` returns a new state and never changes the one it was given;
  anything off the legal list raises ``IllegalAction`` (or ``NotYourTurn``) with a reason a
  player can read: the sentence ``why_illegal(state, seat, action)`` gives;
- ``view(state, seat)`` is the only way state leaves the server: what that seat may see
  (``None`` is a spectator, who sees only what is public);
- ``outcome(state)`` is ``None`` until the match ends, then ``{"scores", "winners"}``;
- ``trick_play(state)``, in a game of tricks (``claims`` true), is the hand's trick play as it
  stands (``server.rules.tricks.TrickPlay``), None while no trick is being played: what a
  claim's search needs of the game (server/rules/claims.py).

States are ``server.rules.state.State`` objects that ``apply`` never changes: it returns a
fresh clone with the changed fields set (``server.rules.state``); views are built through the match's
``ViewMemo`` so that unchanged parts stay the same objects. Trick rules come from
``server.rules.tricks``. Options are a pydantic model per game; unknown keys or bad values
raise ``ValueError`` naming the option (``parse_options``, for every game). Randomness enters
once, as the seed; ``decks`` stacks the deck of the first hands for tests. No I/O, no clock, no
logging: the rules know nothing of rooms.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from server.rules.cards import check_deck
from server.rules.tricks import TrickPlay

Action = dict[str, Any]
Teams = Mapping[int, tuple[tuple[int, ...], ...]]  # player count -> each partnership's seats
Sections = Mapping[str, str]  # phase -> rules-page section id


class GameError(ValueError):
    """A move a game refuses; the message is a sentence for the player."""

    code: ClassVar[str] = "illegal"


class IllegalAction(GameError):
    """The action is not one of the acting seat's legal actions."""

    code = "illegal"


class NotYourTurn(GameError):
    """The seat is not among those that must act now."""

    code = "not_your_turn"


class GameOptions(BaseModel):
    """Base of every game's options: frozen, and unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _describe_validation_error(err: ValidationError) -> str:
    """The problems pydantic found, one clause each, naming the option."""
    parts = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e.get("loc", ()))
        if e.get("type") == "extra_forbidden":
            parts.append(f"unknown option '{loc}'")
        elif not loc:
            # A check across options (a model validator): its message names the options.
            ctx = e.get("ctx") or {}
            parts.append(str(ctx.get("error", e.get("msg", "invalid options"))))
        else:
            parts.append(f"option '{loc}': {e.get('msg', 'invalid value')}")
    return "; ".join(parts)


def action_type(action: object) -> str:
    """The ``type`` of an action, refusing anything that is not an action object."""
    if not isinstance(action, Mapping):
        raise IllegalAction("An action must be a JSON object with a 'type'.")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise IllegalAction("An action needs a 'type' string.")
    return kind


#: Every action ``shared_action`` made, so that the test suite can check at its end that
#: each is still what it was made as (tests/conftest.py).
SHARED_ACTIONS: list[Action] = []


def shared_action(**fields: Any) -> Action:
    """An action that ``legal_actions`` hands out again and again: one plain dict per move,
    made at import, instead of a new dict on every call (making and freeing a dict per card
    offered was a measurable share of a game: docs/decisions/0003).

    Shared actions are never changed, by anyone: code that needs a changed action changes a
    copy (``dict(action)``); the suite's end checks every one against what it was made as.
    They are plain dicts (and lists), not a subclass refusing changes: the interpreter's fast
    paths for ``action.get(...)`` and ``action[...]`` take exact dicts only, and a subclass
    slows every read, in the room and in every playout of the search bots.
    """
    action = dict(fields)
    SHARED_ACTIONS.append(action)
    return action


def shared_actions(kind: str, field: str, values: Iterable[Any]) -> dict[Any, Action]:
    """``{value: {"type": kind, field: value}}``, one ``shared_action`` per value."""
    return {value: shared_action(type=kind, **{field: value}) for value in values}


def action_cards(action: Mapping[str, Any], count: int) -> list[str]:
    """The ``cards`` field of an action: exactly ``count`` strings, or IllegalAction."""
    cards = action.get("cards")
    if not isinstance(cards, list) or len(cards) != count or not all(isinstance(c, str) for c in cards):
        raise IllegalAction(f"'{action.get('type')}' needs 'cards': a list of {count} cards.")
    return cards


def stacked_decks(decks: object, deck: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Stacked decks as ``new_game`` takes them: a list of decks, each a permutation of
    ``deck`` (``cards.check_deck``), or ValueError saying what is wrong."""
    if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence):
        raise ValueError("decks must be a list of decks")
    stacked = []
    for cards in decks:
        if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
            raise ValueError("each stacked deck must be a list of cards")
        stacked.append(tuple(check_deck(cards, deck)))
    return tuple(stacked)


class Setup(NamedTuple):
    """A new match as ``new_game`` checked it, for the game's ``start`` to deal."""

    players: int
    options: GameOptions
    seed: int | str  # where the match's randomness comes from (``cards.hand_rng``)
    dealer: int  # the first hand's dealer
    decks: tuple[tuple[str, ...], ...]  # stacked decks, top first, one a hand from the first


# Each game's default options (``Game.parse_options`` with none given), made on first use.
_DEFAULT_OPTIONS: dict[type[GameOptions], GameOptions] = {}


def _only_lost(was: Sequence[Any], now: Sequence[Any]) -> bool:
    """Whether the hand ``now`` is ``was`` less some cards (as multisets). Struck off a list
    rather than two ``Counter``s subtracted: asked on every person's action, and with a
    hand's dozen cards that is a fifth of the time."""
    left = list(was)
    for card in now:
        if card not in left:
            return False
        left.remove(card)
    return True


class Game(ABC):
    """One card game's rules, as pure functions over an immutable state.

    Besides the engine, a game declares the facts the layers above ask of it (class
    attributes, so nothing outside the game's folder names a game): its ``short_title`` in
    messages, its ``partnerships`` per player count, which rules-page section each phase of
    its view needs (``phases``; ``house_phases``: the options whose own section a phase opens
    at when the table sets them), and the key of a hand's record naming the seat whose
    contract it was (``declarer_key``). Its folder (``server/games/<name>/``) builds the one
    instance with the parts that are not rules: its option words, its bots' parts and its
    rules page.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    short_title: ClassVar[str]  # the name in a push message or a recap ("Tarabish")
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int] = 4
    summary: ClassVar[str] = ""
    Options: ClassVar[type[GameOptions]]
    #: Per player count, the seats of each partnership (a side's first seat holds its score);
    #: a count not listed is every seat for itself.
    partnerships: ClassVar[Teams] = {}
    #: Phase of the view -> the id of the rules-page section a player needs in it.
    phases: ClassVar[Sections]
    #: Phase -> options that, when the table sets them, change what a player does in it.
    house_phases: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: The key of a hand record naming the seat that declared its contract (None: no contracts).
    declarer_key: ClassVar[str | None] = None

    def __init__(self, *, words: Any = None, bots: Any = None, page: Path | None = None) -> None:
        #: The options in players' words (``server.rules.words.GameWords``).
        self.words = words
        #: What the bots need of this game (``server.bots.kit.BotKit``): the rules never use it.
        self.bots = bots
        #: The rules page in markdown.
        self.page = page

    # ---- facts -------------------------------------------------------------------

    def teams(self, players: int) -> tuple[tuple[int, ...], ...] | None:
        """The partnerships at ``players`` seats, or None when every seat plays for itself."""
        return self.partnerships.get(players)

    def side_of(self, seat: int, players: int) -> int:
        """The side a seat plays for: its partnership's number, or the seat itself."""
        for number, seats in enumerate(self.teams(players) or ()):
            if seat in seats:
                return number
        return seat

    def contract(self, hand: Mapping[str, Any]) -> tuple[int, bool] | None:
        """A scored hand record's contract: the declaring seat and whether its side made it
        (scored above nothing); None for a hand thrown in, never bid, or a game of no contracts."""
        seat = hand.get(self.declarer_key) if self.declarer_key else None
        scores = hand.get("scores")
        if not isinstance(seat, int) or isinstance(seat, bool) or not scores:
            return None
        return seat, seat < len(scores) and scores[seat] > 0

    # ---- options -------------------------------------------------------------------

    def parse_options(self, options: Mapping[str, Any] | GameOptions | None) -> GameOptions:
        """Validate options (None = all defaults); raise ValueError naming a bad option."""
        if isinstance(options, self.Options):
            return options
        if not options and (options is None or isinstance(options, Mapping)):
            return self._default_options()
        if not isinstance(options, Mapping):
            raise ValueError("options must be an object")
        try:
            parsed = self.Options.model_validate(dict(options))
        except ValidationError as err:
            raise ValueError(_describe_validation_error(err)) from None
        # Options that are the defaults, written out (a table keeps every option it was
        # opened with), are the defaults' one object: a match does not keep its own copy.
        default = self._default_options()
        return default if parsed == default else parsed

    def _default_options(self) -> GameOptions:
        """The game's default options, made once: they are frozen, so every match may share them."""
        found = _DEFAULT_OPTIONS.get(self.Options)
        if found is None:
            found = _DEFAULT_OPTIONS[self.Options] = self.Options.model_validate({})
        return found

    def options_schema(self) -> dict[str, Any]:
        """The options as a JSON Schema with defaults and descriptions."""
        return self.Options.model_json_schema()

    def check_players(self, players: int) -> None:
        """Refuse a player count outside the game's range."""
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            if self.min_players == self.max_players:
                raise ValueError(f"{self.title} is for exactly {self.min_players} players")
            raise ValueError(f"{self.title} is for {self.min_players} to {self.max_players} players")

    def check_dealer(self, dealer: object, players: int) -> None:
        """Refuse a first dealer that is not a seat of the table."""
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}")

    def describe(self) -> dict[str, Any]:
        """The game as ``GET /api/games`` lists it."""
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "default_players": self.default_players,
            "options": self.options_schema(),
        }

    # ---- the engine surface ------------------------------------------------------

    #: The keys of ``view`` whose value may differ from one seat to another (and from a
    #: spectator's). Every other key is equal in every seat's view and in the public one,
    #: so the room diffs those once per action and only these once per connection.
    #: None means unknown: the room then diffs every connection's whole view.
    seat_keys: tuple[str, ...] | None = None

    #: The fields of each of the game's action types (PROTOCOL §2): everything else a client
    #: sends is dropped before the action is applied and stored.
    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def canonical_action(self, action: Any) -> Any:
        """The action as the engine knows it: its ``type`` and that type's fields, nothing else
        (what is applied and stored; an action of no known type is left for the engine to refuse)."""
        if not isinstance(action, Mapping):
            return action
        kind = action.get("type")
        fields = self.action_fields.get(kind) if isinstance(kind, str) else None
        if fields is None:
            return action
        return {k: action[k] for k in ("type", *fields) if k in action}

    def new_game(
        self,
        players: int | None = None,
        options: Mapping[str, Any] | GameOptions | None = None,
        seed: int | str = 0,
        dealer: int = 0,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> Any:
        """Start a match and deal its first hand (``players`` None: ``default_players``).

        Every game checks the same things first, in this order: the number of players, the
        options (``parse_options``, then ``options_problem`` against the players), the first
        dealer, and each stacked deck against the game's ``deck``; then ``start`` deals.
        """
        if players is None:
            players = self.default_players
        self.check_players(players)
        opts = self.parse_options(options)
        problem = self.options_problem(opts, players)
        if problem is not None:
            raise ValueError(problem)
        self.check_dealer(dealer, players)
        stacked: tuple[tuple[str, ...], ...] = ()
        if decks is not None:
            stacked = stacked_decks(decks, self.deck(opts, players))
        return self.start(Setup(players, opts, seed, dealer, stacked))

    def options_problem(self, options: GameOptions, players: int) -> str | None:
        """Why these options do not suit this many players, or None (by default they all do)."""
        return None

    @abstractmethod
    def deck(self, options: GameOptions, players: int) -> Sequence[str]:
        """The cards a match with these options deals: what a stacked deck must hold."""

    @abstractmethod
    def start(self, setup: Setup) -> Any:
        """The match's first hand, dealt as ``setup`` (checked by ``new_game``) says."""

    @abstractmethod
    def to_act(self, state: Any) -> list[int]:
        """The seats that must act now; [] when the match is over."""

    @abstractmethod
    def legal_actions(self, state: Any, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now ([] when it need not act)."""

    @abstractmethod
    def apply(self, state: Any, seat: int, action: Mapping[str, Any]) -> Any:
        """A new state after ``seat`` plays ``action``; the given state is unchanged."""

    def check_legal(self, state: Any, seat: int, action: Any) -> None:
        """Raise unless ``seat`` may play ``action`` now: ``NotYourTurn`` when it is not
        theirs to play, else ``IllegalAction`` with ``why_illegal``'s sentence."""
        problem = self.why_illegal(state, seat, action)
        if problem is not None:
            self.require_turn(state, seat)
            raise IllegalAction(problem)

    def why_illegal(self, state: Any, seat: int, action: Any) -> str | None:
        """Why ``seat`` may not play ``action`` now, as a sentence; None when it may.

        An engine says it from its rules in one function that both ``legal_actions`` and
        ``apply`` use (``apply`` raises with this very sentence). This default asks
        ``apply``, for an engine that has not written that function yet.
        """
        try:
            self.apply(state, seat, action)
        except GameError as err:
            return str(err)
        return None

    @abstractmethod
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator.

        Views are built for every seat on every action, so build the public part once per
        state and share it between seats, and keep unchanged parts the same objects from one
        state to the next: the room's differ then skips them by identity. Return a new
        top-level dict each call; nested values are never mutated by callers.
        """

    @abstractmethod
    def full_view(self, state: Any) -> dict[str, Any]:
        """The public view with every hand and hidden card shown (replays of finished matches)."""

    def full_views(self, states: Iterable[Any]) -> Iterator[dict[str, Any]]:
        """``full_view`` of each of a match's consecutive states, one at a time.

        A game whose full view repeats a growing record (finished hands) overrides this to
        build each finished part once, so a replay costs O(match length), not its square.
        """
        for state in states:
            yield self.full_view(state)

    @abstractmethod
    def outcome(self, state: Any) -> dict[str, Any] | None:
        """None while the match goes on; then {"scores": per seat, "winners": seats}."""

    # What a seat's own view shows that no action of theirs may change and still be taken
    # back: a new phase (the bidding ended, a kitty taken), a new hand, a trump named or turned.
    TAKE_BACK_FIXED: ClassVar[tuple[str, ...]] = ("phase", "step", "hand_number", "trump", "turned", "revealed")

    def may_take_back(self, before: Any, after: Any, seat: int) -> bool:
        """Whether ``seat``'s action that turned ``before`` into ``after`` showed them nothing
        that was hidden, so that it may be taken back: the match goes on, the keys of
        ``TAKE_BACK_FIXED`` of their own view are unchanged and their hand only lost cards."""
        if self.outcome(after) is not None:
            return False
        was_fixed, was_hand = self.take_back_marks(before, seat)
        now_fixed, now_hand = self.take_back_marks(after, seat)
        return was_fixed == now_fixed and _only_lost(was_hand, now_hand)

    def take_back_marks(self, state: Any, seat: int) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """The values of ``TAKE_BACK_FIXED`` in ``seat``'s own view of ``state``, and its hand.

        Read here from the seat's whole view. The room asks this twice for every person's
        action, and a seat's view also lists its legal actions, so a game whose fixed keys
        are the same in every seat's view reads them from the public view and the hand from
        its state (``fixed_marks``; docs/decisions/0053-take-back-marks.md);
        tests/rules/test_take_back_marks.py checks every game against this reading."""
        view = self.view(state, seat)
        return tuple(view.get(key) for key in self.TAKE_BACK_FIXED), view.get("hand") or ()

    def fixed_marks(self, state: Any, hand: Sequence[Any]) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """``take_back_marks`` with the fixed keys read from the public view (shared by every
        seat, built once per state) and the seat's hand as its view would show it."""
        public = self.view(state, None)
        return tuple(public.get(key) for key in self.TAKE_BACK_FIXED), hand

    @abstractmethod
    def hand_records(self, state: Any) -> list[dict[str, Any]]:
        """Each hand dealt so far: {"dealer", "deal", "scores"} (scores None while in play)."""

    @abstractmethod
    def players(self, state: Any) -> int:
        """The number of seats in this match."""

    #: Whether a seat may claim the rest of a hand's tricks (a game of tricks says so).
    claims: ClassVar[bool] = False

    def trick_play(self, state: Any) -> TrickPlay | None:
        """The hand's trick play as it stands, or None while no trick is being played (and
        always in a game without claims)."""
        return None

    def watch_point(self, state: Any, unit: str) -> bool:
        """Whether a watcher kept one ``unit`` behind (``"trick"`` or ``"hand"``) may be shown
        ``state`` as it is. ``"trick"``: no card of an unfinished trick is on the table (the
        hand's move log has no card played since its last completed trick; bids and the like
        are not cards). ``"hand"``: the hand has just been dealt (its log is empty). The match
        being over is a point of both. Read from the move log every game keeps (the chain of
        ``server.rules.state``: a link of four completed a trick)."""
        if self.is_over(state):
            return True
        link = state.log
        if unit == "hand":
            return not link
        while link and len(link) == 3:
            if any(key in ("card", "cards") for key, _ in link[2]):
                return False
            link = link[0]
        return True

    # ---- shared helpers ----------------------------------------------------------------

    def is_over(self, state: Any) -> bool:
        """True once the match has ended."""
        return self.outcome(state) is not None

    def require_turn(self, state: Any, seat: int) -> None:
        """Raise NotYourTurn unless ``seat`` must act now."""
        acting = self.to_act(state)
        if seat in acting:
            return
        if not acting:
            raise NotYourTurn("The game is over.")
        if not isinstance(seat, int) or not 0 <= seat < self.players(state):
            raise NotYourTurn(f"There is no seat {seat!r} at this table.")
        waiting = ", ".join(f"seat {s}" for s in acting)
        raise NotYourTurn(f"It is not your turn: waiting for {waiting}.")

    def __repr__(self) -> str:
        return f"<Game {self.name}>"
