"""A game's client is one folder, web/js/games/<name>/ (index.js, its descriptor, and
strings.js, its words), plus one line in the registry web/js/games/index.js. Nothing else in
web/js names a game: not its name, not its name run together ("ohHell"), not its title. And a
game's words are there in every language the client speaks, key for key."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "web" / "js"
GAMES = JS / "games"
REGISTRY = GAMES / "index.js"


def folders() -> list[Path]:
    return sorted(p for p in GAMES.iterdir() if p.is_dir())


def section(text: str, lang: str) -> str:
    """The body of ``lang: { ... }`` in a strings.js (up to the next language or the end)."""
    found = re.search(rf"^  {lang}: \{{\n(.*?)^  \}},\n", text, re.S | re.M)
    assert found, f"no {lang} words"
    return found.group(1)


def keys(text: str, lang: str) -> set[str]:
    return set(re.findall(r'^    "([^"]+)":', section(text, lang), re.M))


def title(folder: Path) -> str:
    """The game's English title, as its strings.js gives it ("Tarabish (Tarbish)" -> "Tarabish")."""
    text = (folder / "strings.js").read_text()
    found = re.search(rf'"game\.{folder.name}\.title": "([^"(]+)', section(text, "en"))
    assert found, f"{folder.name} has no title"
    return found.group(1).strip()


def spellings(folder: Path) -> set[str]:
    """Ways a game is named: oh_hell, ohHell, oh hell, and its title (case does not matter)."""
    name = folder.name
    words = name.split("_")
    return {name, "".join(words), " ".join(words), title(folder)}


# A suit's name is a word of the card table before it is a game's ("you hold no spades"): a game
# named after a suit is looked for only where code names it as a game, as a key's part
# ("spades.nil", "game.spades"), an object's key, or a string handed on or compared ("spades").
SUIT_WORDS = {"spades", "hearts", "diamonds", "clubs"}


def pattern(folder: Path) -> re.Pattern[str]:
    name = folder.name
    if name in SUIT_WORDS:
        quoted = "[\"'`]" + name + "[\"'`]"
        return re.compile(rf"\b{name}\.(?=\w)|\.{name}\b|^\s*{name}\s*:|[=(,\[]\s*{quoted}", re.I)
    return re.compile("|".join(re.escape(s) for s in sorted(spellings(folder))), re.I)


def test_every_game_folder_is_registered_once_and_complete():
    registry = REGISTRY.read_text()
    assert folders(), "no game folders under web/js/games"
    for folder in folders():
        assert (folder / "index.js").is_file(), f"{folder.name} has no index.js"
        assert (folder / "strings.js").is_file(), f"{folder.name} has no strings.js"
        lines = [ln for ln in registry.splitlines() if f'"./{folder.name}/index.js"' in ln]
        assert len(lines) == 1, f"{folder.name} is not registered on one line of games/index.js"
    assert not [p for p in GAMES.iterdir() if p.is_file() and p != REGISTRY], "a game module outside a folder"


def test_no_game_is_named_outside_its_folder_and_the_registry():
    found = []
    patterns = {folder: pattern(folder) for folder in folders()}
    for path in sorted(JS.rglob("*.js")):
        if path == REGISTRY:
            continue
        for folder, named in patterns.items():
            if folder in path.parents:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if named.search(line):
                    found.append(f"{path.relative_to(JS)}:{n}: {line.strip()[:100]}")
    assert not found, "game names outside their folders:\n" + "\n".join(found)


def test_a_game_name_outside_its_folder_is_found():
    # The check itself: a line that names a game in a shared module would be caught.
    folder = folders()[0]
    assert pattern(folder).search(f"if (game === '{folder.name}') return;")
    assert pattern(folder).search(f"// {title(folder).upper()} deals differently")


def test_a_game_named_after_a_suit_is_found_as_a_game_not_as_the_suit():
    folder = GAMES / "spades"
    for named in (
        'if (game === "spades") return;',
        't("spades.nil")',
        't("game.spades.title")',
        "  spades: {",
        'descriptor("spades")',
        "GAMES['spades']",
    ):
        assert pattern(folder).search(named), named
    for suit in (
        '"suit.S": "spades",',
        "// you hold no spades",
        '"option.x.trump.S": "Spades always",',
        "Rotation: hearts, diamonds, clubs, spades, no trump.",
    ):
        assert not pattern(folder).search(suit), suit


def test_every_game_says_its_words_in_english_and_portuguese():
    for folder in folders():
        text = (folder / "strings.js").read_text()
        en, pt = keys(text, "en"), keys(text, "pt")
        assert en, f"{folder.name} has no English words"
        assert en == pt, f"{folder.name}: only in en {sorted(en - pt)}, only in pt {sorted(pt - en)}"
