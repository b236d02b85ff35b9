"""The client's "Why?" line (web/js/why.js) against the engines: random matches of every game,
and at each decision the line the client reads off the acting seat's view must name the rule
the engine itself gives for refusing a held card or a bid (``why_illegal``)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from server.games import get_game

ROOT = Path(__file__).resolve().parents[2]
# Reads [[game, view, legal], ...] on stdin, writes each decision's "Why?" line.
SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const { whyLine } = await import(process.argv[1]);
let text = "";
for await (const chunk of process.stdin) text += chunk;
process.stdout.write(JSON.stringify(JSON.parse(text).map(([game, view, legal]) => whyLine(game, view, legal))));
"""
SETUPS = {
    "oh_hell": (4, {"max_cards": 7, "rebound": False}),
    "bid_whist": (4, {"target": 1}),
    "tarbish": (4, {"target": 1}),
    "ribs": (5, {"target": 1}),
    "spades": (4, {"target": 50}),
}


def _node():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("FELT_REQUIRE_BROWSER") == "1":
            pytest.fail("node is not installed and FELT_REQUIRE_BROWSER=1")
        pytest.skip("node is not installed: the client's JavaScript cannot run")
    return node


def _refusals(game, state, seat, view) -> list[str]:
    """The engine's reasons for the plays and bids this seat may not make now."""
    legal = view["legal"]
    tries = [{"type": "play", "card": c} for c in view.get("hand") or [] if any(a["type"] == "play" for a in legal)]
    tries += [{"type": "bid", "value": v} for v in range(40)]
    tries += [{"type": "bid", "value": v, "direction": d} for d in view.get("directions") or [] for v in range(3, 8)]
    tries += [{"type": "pass"}]
    tries += [{**a, "fold": True} for a in legal if a["type"] == "pair"]  # Ribs: each pair folded
    out = []
    for action in tries:
        if action not in legal:
            reason = game.why_illegal(state, seat, action)
            if reason:
                out.append(reason)
    return out


def _decisions(name: str, seed: int, most: int = 400, options: dict | None = None):
    game = get_game(name)
    players, default_options = SETUPS[name]
    options = default_options if options is None else options
    state = game.new_game(players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(most):
        if game.outcome(state) is not None:
            return
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        yield view, _refusals(game, state, seat, view)
        action = rng.choice(view["legal"])
        if action["type"] == "discard" and "cards" not in action:  # Bid Whist: any four held
            action = {"type": "discard", "cards": rng.sample(view["hand"], action["count"])}
        state = game.apply(state, seat, action)


def _high(reason: str) -> str:
    """The high bid an engine's refusal names: "... the high bid of Four downtown." -> "Four downtown"."""
    return reason.split("the high bid of ", 1)[1].rstrip(".")


# The engine's reason (its start) -> what the client's line must say; the first that the
# engine gives for some refused card or bid is the one (heading a trick is also following).
EXPECTED = [
    ("You must head the trick", lambda why, reason: why.startswith("You must head the trick: you hold a higher trump")),
    ("You must overtrump", lambda why, reason: "you must overtrump" in why),
    ("You must trump", lambda why, reason: "you must play a trump" in why),
    # Bid Whist's jokers: the client may add the joker's part ("you hold a heart (a joker is
    # no heart in no trump)") to the same reason.
    (
        "You must follow suit",
        lambda why, reason: (
            why == reason
            or (
                why.startswith("You must follow suit: ")
                and reason.removeprefix("You must follow suit: ").rstrip(".") in why
            )
        ),
    ),
    (
        "No trump: void in the suit led, you must play a joker",
        lambda why, reason: (
            why.startswith("No trump: you hold no ") and why.endswith("you must play a joker (it cannot win).")
        ),
    ),
    ("Name trump before you lead a joker", lambda why, reason: "name trump before you lead a joker" in why),
    ("No trump: choose the direction", lambda why, reason: why.startswith("You bid no trump: choose the direction")),
    (
        "As dealer you may not bid",
        lambda why, reason: why.startswith(f"The dealer may not bid {reason.split()[6].rstrip(':')}:"),
    ),
    # With directions "Seven uptown" may still be outranked by Seven downtown or no trump.
    (
        "Your bid must be higher than the high bid of Seven",
        lambda why, reason: why.startswith(
            (f"The high bid is {_high(reason)}, the most", f"Each bid must outrank the high bid ({_high(reason)})")
        ),
    ),
    (
        "Your bid must be higher than the high bid",
        lambda why, reason: why.startswith(
            (
                f"Each bid must be higher than the high bid ({_high(reason)})",
                f"Each bid must outrank the high bid ({_high(reason)})",
            )
        ),
    ),
    (
        "Nobody bid ",
        lambda why, reason: why.startswith(
            " ".join(reason.split()[:3]) + " or more, so the dealer must take the contract at"
        ),
    ),
    ("The other three passed", lambda why, reason: why == "The other three passed, so the dealer must name trump."),
    ("You open the bidding and may not pass", lambda why, reason: why.startswith("You open the bidding")),
    ("No bid may be above", lambda why, reason: why.startswith("No bid may be above")),
    ("Bids must be exactly one more", lambda why, reason: why.startswith("Each bid is exactly one more")),
    ("You have already folded once this hand", lambda why, reason: why.startswith("You have folded once this hand")),
    ("Spades are not broken yet", lambda why, reason: why == reason),
]

# The common constraints each game's random matches must have met (so the check checked them).
REQUIRED = {
    "oh_hell": {"You must follow suit", "As dealer you may not bid"},
    "bid_whist": {"You must follow suit", "Your bid must be higher than the high bid"},
    "tarbish": {"You must follow suit", "You must head the trick", "You must trump", "You must overtrump"},
    "ribs": {
        "You open the bidding and may not pass",
        "Bids must be exactly one more",
        "You have already folded once this hand",
    },
    "spades": {"You must follow suit", "Spades are not broken yet"},
}


def _checked(name: str, samples) -> set[str]:
    """Run the client's "Why?" over ``samples`` and check each against the engine's reasons."""
    node = _node()
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, str(ROOT / "web" / "js" / "why.js")],
        input=json.dumps([[name, view, view["legal"]] for view, _ in samples]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = json.loads(done.stdout)
    checked = set()
    for (_, refusals), why in zip(samples, lines, strict=True):
        for start, agrees in EXPECTED:
            reason = next((r for r in refusals if r.startswith(start)), None)
            if reason is None:
                continue
            assert why is not None and agrees(why, reason), f"{name}: engine {reason!r}, client {why!r}"
            checked.add(start)
            break
    return checked


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_the_why_line_names_the_rule_the_engine_refuses_with(name):
    samples = [(view, refusals) for seed in range(6) for view, refusals in _decisions(name, seed)]
    checked = _checked(name, samples)
    assert REQUIRED[name] <= checked, f"{name}: no decision under {REQUIRED[name] - checked} was seen"


def _random_bid_whist_options(rng: random.Random) -> dict:
    """A random combination of Bid Whist's house options (each valid with the others)."""
    options: dict = {
        "jokers": rng.choice([0, 1, 2]),
        "joker_no_trump": rng.choice(["free", "must_play"]),
        "directions": rng.random() < 0.8,
        "downtown_beats_uptown": rng.random() < 0.5,
        "no_trump_double": rng.random() < 0.5,
        "boston": rng.choice(["wins", "quadruple"]),
        "sport_kitty": rng.random() < 0.5,
        "books": rng.choice(["seed", "thirteen"]),
    }
    options["no_trump"] = options["directions"] and rng.random() < 0.8
    if options["books"] == "thirteen":
        options.update(min_bid=rng.choice([3, 4]), game_to=1)
    else:
        options["target"] = 1
    return options


def test_the_why_line_follows_bid_whist_house_options():
    """Random matches over random option combinations: directions, the minimum, the forced
    dealer's direction, no trump's direction, the jokers in trump and in no trump."""
    rng = random.Random(33)
    samples = []
    for seed in range(12):
        options = _random_bid_whist_options(rng)
        samples += list(_decisions("bid_whist", seed, options=options))
        samples += list(
            _decisions(
                "bid_whist",
                seed,
                options={**options, "jokers": 2, "joker_no_trump": "must_play", "directions": True, "no_trump": True},
            )
        )
    checked = _checked("bid_whist", samples)
    required = {
        "You must follow suit",
        "Your bid must be higher than the high bid",
        "Nobody bid ",
        "No trump: choose the direction",
        "No trump: void in the suit led, you must play a joker",
        "Name trump before you lead a joker",
    }
    assert required <= checked, f"no decision under {required - checked} was seen"


# Reads [[game, view, legal, card], ...] on stdin, writes each greyed card's line.
CARD_SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const { cardWhyLine } = await import(process.argv[1]);
let text = "";
for await (const chunk of process.stdin) text += chunk;
const lines = JSON.parse(text).map(([game, view, legal, card]) => cardWhyLine(game, view, legal, card, "Bea"));
process.stdout.write(JSON.stringify(lines));
"""


def _greyed_cards(name: str, seed: int, most: int = 400, options: dict | None = None):
    """Each held card the engine refuses at a decision where some card may be played, with the
    engine's reason: (view, card, reason)."""
    game = get_game(name)
    players, default_options = SETUPS[name]
    state = game.new_game(players, options or default_options, seed=seed)
    rng = random.Random(seed)
    for _ in range(most):
        if game.outcome(state) is not None:
            return
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        playable = {a["card"] for a in view["legal"] if a["type"] == "play"}
        if playable:
            for card in view["hand"]:
                if card not in playable:
                    yield view, card, game.why_illegal(state, seat, {"type": "play", "card": card})
        action = rng.choice(view["legal"])
        if action["type"] == "discard" and "cards" not in action:
            action = {"type": "discard", "cards": rng.sample(view["hand"], action["count"])}
        state = game.apply(state, seat, action)


JOKERS_NO_TRUMP = {"target": 1, "jokers": 2, "joker_no_trump": "must_play", "directions": True, "no_trump": True}


@pytest.mark.parametrize(
    ("name", "options"),
    [("oh_hell", None), ("bid_whist", None), ("bid_whist", JOKERS_NO_TRUMP), ("tarbish", None), ("spades", None)],
    ids=["oh_hell", "bid_whist", "bid_whist-jokers", "tarbish", "spades"],
)
def test_a_greyed_card_is_refused_for_the_reason_the_engine_gives(name, options):
    """The line a greyed card of the hand shows names the rule the engine refuses that very
    card with (following suit, heading the trick, trumping, a joker before trump is named)."""
    samples = [sample for seed in range(6) for sample in _greyed_cards(name, seed, options=options)]
    done = subprocess.run(
        [_node(), "--input-type=module", "-e", CARD_SCRIPT, str(ROOT / "web" / "js" / "why.js")],
        input=json.dumps([[name, view, view["legal"], card] for view, card, _ in samples]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    checked = set()
    for (view, card, reason), why in zip(samples, json.loads(done.stdout), strict=True):
        assert why and "any card may be played" not in why, f"{name}: {card} refused ({reason!r}), client {why!r}"
        start, agrees = next(((s, a) for s, a in EXPECTED if reason.startswith(s)), (None, None))
        assert start is not None, f"{name}: an engine reason no line covers: {reason!r}"
        assert agrees(why, reason), f"{name}: {card} in {view['hand']}: engine {reason!r}, client {why!r}"
        checked.add(start)
    bidding = {"As dealer you may not bid", "Your bid must be higher than the high bid"}
    assert REQUIRED[name] - bidding <= checked, checked
