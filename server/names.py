"""Player names: what a person may be called at a table (docs/protocol.md, "Player names").

Pure. A name is shown beside bots' and empty seats' labels, in the lobby and in match
histories, so it must neither pass for one of those labels nor take over the layout:

- 1 to ``NAME_MAX`` characters once trimmed (and put in Unicode normal form C);
- made of letters, digits, single spaces, ordinary punctuation and emoji, with at most
  ``MARKS_MAX`` combining marks on one character (accents yes, zalgo stacks no); control,
  format (zero-width, bidi overrides), private-use and unassigned characters, other spaces
  and other symbols are refused;
- no character wider than two columns: East Asian wide characters and emoji count two,
  combining marks none, a compatibility character what it stands for (U+FDFA, one
  character, stands for a phrase of 18), a few scripts and dashes drawn far wider than a
  letter three; everything else one. So a name is never wider than ``2 * NAME_MAX`` columns;
- not a bot's or an empty seat's label in any of the client's languages ("Bot 2",
  "Strong bot", "Robô forte 3", "Seat 4", "Lugar 1"), compared without case, accents,
  spaces or punctuation, and after compatibility folding (full-width "Ｂｏｔ" is "Bot").
"""

from __future__ import annotations

import re
import unicodedata

NAME_MAX = 24
MARKS_MAX = 3  # Vietnamese, Thai and Hebrew stack two or three; zalgo text dozens
WIDTH_MAX = 2

# The client's labels for bot seats and empty seats (web/js/locales/*.js: seat.botName,
# seat.strongBotName, badge.bot, seat.n), folded as ``_folded`` folds, with an optional number.
_LABELS = re.compile(r"(?:bot|strongbot|robo|roboforte|seat|lugar)\d*")

_LETTERS_DIGITS_PUNCTUATION = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"})
_MARKS = frozenset({"Mn", "Me"})
# Emoji: the pictographic blocks (symbols there, skin tones included) and the older
# dingbats and miscellaneous symbols that are emoji too.
_EMOJI = ((0x1F300, 0x1FAFF), (0x2600, 0x27BF))
# Drawn far wider than a letter with no decomposition that says so: cuneiform signs, the
# two- and three-em dashes.
_VERY_WIDE = ((0x12000, 0x1254F), (0x2E3A, 0x2E3B))


class InvalidName(ValueError):
    """A player name that cannot be used; the message says why."""


def _in(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


def width(ch: str) -> int:
    """The columns ``ch`` takes: 0 for a combining mark, 2 for wide ones, 3 for very wide."""
    code = ord(ch)
    if unicodedata.category(ch) in _MARKS:
        return 0
    if _in(code, _VERY_WIDE):
        return 3
    if _in(code, _EMOJI) or unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch:  # a compatibility character (a ligature, a full-width letter)
        return sum(width(c) for c in folded) if len(folded) <= NAME_MAX else NAME_MAX
    return 1


def _shown(ch: str) -> str:
    return f"“{ch}” (U+{ord(ch):04X})" if ch.isprintable() else f"U+{ord(ch):04X}"


def _check_character(ch: str) -> None:
    category = unicodedata.category(ch)
    allowed = (
        category in _LETTERS_DIGITS_PUNCTUATION
        or category in _MARKS
        or category == "Mc"
        or ch == " "
        or (category[0] == "S" and _in(ord(ch), _EMOJI))
        or ch == "\ufe0f"
    )
    if not allowed:
        raise InvalidName(
            "A name may hold letters, digits, single spaces, ordinary punctuation and emoji; "
            f"{_shown(ch)} is none of them."
        )
    if width(ch) > WIDTH_MAX:
        raise InvalidName(f"{_shown(ch)} is drawn much wider than a letter; a name may not hold it.")


def _check_marks(name: str) -> None:
    run = 0
    for i, ch in enumerate(name):
        if unicodedata.category(ch) in _MARKS or ch == "\ufe0f":
            if i == 0 or name[i - 1] == " ":
                raise InvalidName("A name may not start a word with an accent or another combining mark.")
            run += 1
            if run > MARKS_MAX:
                raise InvalidName(f"A name may put at most {MARKS_MAX} accents or other marks on one character.")
        else:
            run = 0


def _folded(name: str) -> str:
    """``name`` without case, accents, spaces or punctuation, compatibility forms folded."""
    decomposed = unicodedata.normalize("NFKD", name).casefold()
    return "".join(ch for ch in decomposed if ch.isalnum() and unicodedata.category(ch) not in _MARKS)


def clean_name(name: object) -> str:
    """A player name trimmed and in normal form C, or ``InvalidName`` saying what is wrong."""
    if not isinstance(name, str):
        raise InvalidName("A name must be text.")
    name = unicodedata.normalize("NFC", name.strip())
    if not name:
        raise InvalidName("A name needs at least one character.")
    if len(name) > NAME_MAX:
        raise InvalidName(f"A name may have at most {NAME_MAX} characters; this one has {len(name)}.")
    for ch in name:
        _check_character(ch)
    if "  " in name:
        raise InvalidName("A name may not have two spaces in a row.")
    _check_marks(name)
    if _LABELS.fullmatch(_folded(name)):
        raise InvalidName(
            f"“{name}” looks like the label of a bot or of an empty seat (such as “Bot 2” or “Seat 3”); "
            "pick another name."
        )
    return name
