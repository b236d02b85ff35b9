"""Every game's options in players' words: the lobby's English label of each option, the words
for its values, and the heading of the rules page that explains it. The rules pages' box of a
table's house options and the group's chat ("Bea changed the house rules of Bid Whist:
Jokers: both jokers") speak with them; the browser client has the same words, in English and
Portuguese, in its catalogue (``web/js/locales/``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OptionWords:
    """An option as players read it: the lobby's label, the heading of the section that explains
    it, and the words for its values that are neither switches nor plain numbers."""

    label: str
    section: str
    values: dict[Any, str] | None = None


# Every option of every game in the lobby's English words (web/js/locales/en.js has the same
# labels); the rules pages' headings start with each ``section``.
OPTION_WORDS: dict[str, dict[str, OptionWords]] = {
    "oh_hell": {
        "start": OptionWords("First hand", "Settings", {"high": "biggest hand first", "low": "smallest hand first"}),
        "rebound": OptionWords("Come back again", "Settings"),
        "min_cards": OptionWords("Fewest cards in a hand", "Settings"),
        "max_cards": OptionWords("Most cards in a hand", "Settings", {None: "the usual"}),
        "hook": OptionWords("Hook rule", "Settings"),
        "scoring": OptionWords(
            "Scoring",
            "Scoring methods",
            {
                "standard": "standard",
                "basic": "basic",
                "penalty": "penalty",
                "anderson": "Anderson",
                "squared": "squared",
                "exact": "exact",
            },
        ),
        "hook_last_hand": OptionWords("Hook in the 1-card hand", "Hook in the 1-card hand"),
        "trump": OptionWords(
            "Trump",
            "Trump",
            {
                "turn": "turn up a card",
                "no_trump_largest": "largest hand without trump",
                "rotation": "rotation (hearts, diamonds, clubs, spades, no trump)",
                "no_trump": "no trump ever",
                "S": "spades always",
                "H": "hearts always",
                "D": "diamonds always",
                "C": "clubs always",
            },
        ),
        "blind_one": OptionWords("Blind 1-card hand", "Blind 1-card hand"),
        "vienna": OptionWords("Vienna", "Scoring methods"),
        "until_clear_winner": OptionWords("Play until one player leads", "Settings"),
    },
    "bid_whist": {
        "target": OptionWords("Points to win", "Scoring"),
        "jokers": OptionWords("Jokers", "Jokers", {0: "none", 1: "the big joker", 2: "both jokers"}),
        "joker_no_trump": OptionWords(
            "Jokers in no trump", "Jokers", {"free": "played freely", "must_play": "a void player throws a joker"}
        ),
        "books": OptionWords("Books", "Books", {"seed": "12 tricks, a book of 5", "thirteen": "13 books, a book of 6"}),
        "min_bid": OptionWords("Lowest winning bid", "Lowest winning bid", {3: "Three", 4: "Four"}),
        "game_to": OptionWords("Game to ±", "Books"),
        "directions": OptionWords("Uptown and downtown", "Uptown and downtown"),
        "no_trump": OptionWords("No trump bids", "No trump bids"),
        "downtown_beats_uptown": OptionWords("Downtown beats uptown", "Uptown and downtown"),
        "no_trump_double": OptionWords("No trump counts double", "No trump bids"),
        "boston": OptionWords("Boston", "Boston", {"wins": "wins the game", "quadruple": "scores four times"}),
        "sport_kitty": OptionWords("Show the kitty", "Show the kitty"),
    },
    "tarbish": {
        "target": OptionWords("Points to win", "Scoring"),
        "half_bait": OptionWords("Half bait on a tie", "Half bait on a tie"),
        "no_trump": OptionWords("No trump may be called", "No trump may be called"),
        "dealer_forced": OptionWords("Dealer must name trump", "Dealer must name trump"),
    },
    "ribs": {
        "target": OptionWords("Game points to win", "Options"),
        "until_sole_winner": OptionWords("Play until one player leads", "Options"),
    },
    "spades": {
        "target": OptionWords("Points to win", "Settings"),
        "blind_nil": OptionWords("Blind nil", "Blind nil"),
        "bag_limit": OptionWords("Bag limit", "Settings"),
        "lose_at": OptionWords("Losing score", "Losing score", {None: "off"}),
    },
}


def option_words(game: str, key: str) -> OptionWords:
    """How players name option ``key`` of ``game`` (every option has an entry: a test checks)."""
    return OPTION_WORDS[game][key]


def value_words(game: str, key: str, value: Any) -> str:
    """A value of an option in the lobby's words: "both jokers", "on", "the usual", "9"."""
    named = option_words(game, key).values or {}
    if value in named and not isinstance(value, bool):
        return named[value]
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "the usual"
    return str(value)
