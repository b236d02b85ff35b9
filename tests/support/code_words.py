"""What in a text shown to players is code, not words: the rules pages and the table's "How to
play" are scanned with it."""

from __future__ import annotations

import re

from server.games import game_names, get_game


def option_ids() -> set[str]:
    """Every option key of every game."""
    return {key for game in game_names() for key in get_game(game).parse_options({}).model_dump()}


def code_words(text: str) -> list[str]:
    """Each piece of code in ``text``: an option's key (those spelled with an underscore; a plain
    word like "jokers" is the lobby's word too), true/false/null, a file, the project's rules
    document or its sections, a backquote, the seed (the shuffle's only, which rules never need)."""
    keys = sorted(k for k in option_ids() if "_" in k)
    pattern = re.compile(
        r"\b(" + "|".join(map(re.escape, keys)) + r"|true|false|null|[Ss]eeds?|RULES)\b|\.md\b|§|`|\w+_\w+"
    )
    return [m.group(0) for m in pattern.finditer(text)]
