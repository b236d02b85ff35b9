"""A group's ledger, computed from its finished match records (never kept as counters).

Input: matches as ``{"id", "seats": [{"seat", "player_id", "name", "bot", "score", "winner"}]}``
and the group's members (``{player_id: name}``). Only members are ranked; bots and people from
outside the group sit in the matches but get no row.

- A match's *sides* are its partnerships in Bid Whist and Tarabish (partners sit opposite:
  seats 0 and 2, 1 and 3) and single seats in every other game.
- *Wins*: every member on a winning side wins, so a tie at the top is a win for each.
- *Place*: 1 for a winning side, else 1 + the number of other sides that won or scored more.
- *Points for* is the side's final score; *points against* the mean of the other sides'.
- *Head-to-head*: two members on different sides of one match; who placed higher (ties: neither).
- *Pairs* (partnership games only): two members on the same side: matches and wins together,
  and *bids made*: of the contracts the pair declared (``bids``: hands whose declarer, Bid
  Whist's ``declarer`` or Tarabish's ``caller``, sat on their side and that were scored), how
  many were made. A contract is made when the declaring side scored in that hand: Bid Whist
  scores a set for the defenders (or against the declarers) and Tarabish a bait for the
  callers' opponents, so a side that declared scores exactly when it made its contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

PARTNERSHIP_GAMES = frozenset({"bid_whist", "tarbish"})


def side_of(game: str, seat: int, players: int) -> int:
    """The side a seat plays for: its partnership, or the seat itself."""
    if game in PARTNERSHIP_GAMES and players == 4:
        return seat % 2
    return seat


def declarer_of(hand: Mapping[str, Any]) -> int | None:
    """The seat that declared a hand's contract (None: a hand thrown in or never bid)."""
    seat = hand.get("declarer", hand.get("caller"))
    return seat if isinstance(seat, int) else None


def _bids(game: str, hands: Iterable[Mapping[str, Any]], players: int) -> dict[int, list[int]]:
    """Per side: ``[contracts declared, contracts made]`` over the match's scored hands."""
    bids: dict[int, list[int]] = {}
    for hand in hands:
        seat, scores = declarer_of(hand), hand.get("scores")
        if seat is None or not scores:
            continue
        counts = bids.setdefault(side_of(game, seat, players), [0, 0])
        counts[0] += 1
        counts[1] += 1 if scores[seat] > 0 else 0
    return bids


def _sides(
    game: str, seats: list[dict[str, Any]], hands: Iterable[Mapping[str, Any]] = ()
) -> dict[int, dict[str, Any]]:
    """Each side's seats, score (its first seat's: partners share one), whether it won and its
    ``[bids, made]``."""
    sides: dict[int, dict[str, Any]] = {}
    bids = _bids(game, hands, len(seats)) if hands else {}
    for s in seats:
        key = side_of(game, s["seat"], len(seats))
        side = sides.get(key)
        if side is None:
            side = sides[key] = {"seats": [], "score": s["score"], "won": False, "bids": bids.get(key, [0, 0])}
        side["seats"].append(s)
        side["won"] = side["won"] or bool(s["winner"])
    total, rivals = sum(side["score"] for side in sides.values()), len(sides) - 1
    for side in sides.values():
        score = side["score"]
        side["place"] = 1 if side["won"] else 1 + sum(1 for o in sides.values() if o["won"] or o["score"] > score)
        side["against"] = (total - score) / rivals if rivals else 0.0
    return sides


def _row(player_id: str, name: str) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "name": name,
        "matches": 0,
        "wins": 0,
        "win_share": 0.0,
        "average_place": None,
        "points": 0,
        "points_against": 0.0,
        "_places": 0,
    }


def _pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class Tally:
    """The running totals of one game's matches, folded in one at a time, for every person who
    sat in them (members or not: who is a member is asked only when the standings are read, so
    a member who joins later is ranked on every match they played). Folding a match adds to the
    totals exactly what recounting would, so the kept totals plus the matches added since equal
    a recount. ``folded`` holds the ids folded so far."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.folded: set[str] = set()
        self._rows: dict[str, dict[str, Any]] = {}
        self._h2h: dict[tuple[str, str], dict[str, Any]] = {}
        self._pairs: dict[tuple[str, str], dict[str, Any]] = {}

    def fold(self, match: Mapping[str, Any]) -> None:
        self.folded.add(match["id"])
        placed = []  # (player_id, side key, side) of every person in this match
        for key, side in _sides(self.game, list(match["seats"]), match.get("hands") or ()).items():
            for s in side["seats"]:
                pid = s["player_id"]
                if s["bot"] or pid is None:
                    continue
                row = self._rows.get(pid) or self._rows.setdefault(pid, _row(pid, ""))
                row["matches"] += 1
                row["wins"] += 1 if side["won"] else 0
                row["points"] += side["score"]
                row["points_against"] += side["against"]
                row["_places"] += side["place"]
                placed.append((pid, key, side))
        _count_meetings(self.game, placed, self._h2h, self._pairs)

    def standings(self, members: Mapping[str, str]) -> dict[str, Any]:
        """``{"rows", "head_to_head", "pairs"}`` of the members (fresh copies: the totals stay)."""
        h2h = [dict(v) for (a, b), v in self._h2h.items() if a in members and b in members]
        pairs = [dict(v) for (a, b), v in self._pairs.items() if a in members and b in members]
        return {
            "rows": _finish_rows(dict(r, name=members[p]) for p, r in self._rows.items() if p in members),
            "head_to_head": sorted(h2h, key=lambda h: (h["a"], h["b"])),
            "pairs": sorted(pairs, key=lambda p: (-p["wins"], -p["matches"], p["a"], p["b"])),
        }


def standings(game: str, matches: Iterable[Mapping[str, Any]], members: Mapping[str, str]) -> dict[str, Any]:
    """``{"rows", "head_to_head", "pairs"}`` for these matches (all of one game)."""
    tally = Tally(game)
    for match in matches:
        tally.fold(match)
    return tally.standings(members)


def _count_meetings(
    game: str, placed: list[tuple[str, int, dict]], h2h: dict[tuple[str, str], dict], pairs: dict[tuple[str, str], dict]
) -> None:
    """Head-to-head between people on different sides; pairs of partners on the same one."""
    for i, (a, side_a, sa) in enumerate(placed):
        for b, side_b, sb in placed[i + 1 :]:
            if a == b:
                continue
            first, second = key = _pair_key(a, b)
            if side_a != side_b:
                rec = h2h.get(key) or h2h.setdefault(
                    key, {"a": first, "b": second, "matches": 0, "a_higher": 0, "b_higher": 0}
                )
                rec["matches"] += 1
                place_first, place_second = (sa, sb) if first == a else (sb, sa)
                if place_first["place"] < place_second["place"]:
                    rec["a_higher"] += 1
                elif place_second["place"] < place_first["place"]:
                    rec["b_higher"] += 1
            elif game in PARTNERSHIP_GAMES:
                rec = pairs.get(key) or pairs.setdefault(
                    key, {"a": first, "b": second, "matches": 0, "wins": 0, "bids": 0, "bids_made": 0}
                )
                rec["matches"] += 1
                rec["wins"] += 1 if sa["won"] else 0
                rec["bids"] += sa["bids"][0]
                rec["bids_made"] += sa["bids"][1]


def _finish_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        played = row.pop("_places")
        row["win_share"] = round(row["wins"] / row["matches"], 4)
        row["average_place"] = round(played / row["matches"], 4)
        row["points_against"] = round(row["points_against"], 2)
        out.append(row)
    out.sort(key=lambda r: (-r["wins"], -r["points"], r["name"], r["player_id"]))
    return out
