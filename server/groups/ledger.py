"""A group's ledger, computed from its finished match records (never kept as counters).

Input: matches as ``{"id", "seats": [{"seat", "player_id", "name", "bot", "score", "winner"}]}``
and the group's members (``{player_id: name}``). Only members are ranked; bots and people from
outside the group sit in the matches but get no row.

- A match's *sides* are its game's partnerships at that many seats (``Game.partnerships``;
  partners sit opposite: seats 0 and 2, 1 and 3) and single seats in every other game.
- *Wins*: every member on a winning side wins, so a tie at the top is a win for each.
- *Place*: 1 for a winning side, else 1 + the number of other sides that won or scored more.
- *Points for* is the side's final score; *points against* the mean of the other sides'.
- *Head-to-head*: two members on different sides of one match; who placed higher (ties: neither).
- *Pairs* (partnership games only): two members on the same side: matches and wins together,
  and *bids made*: of the contracts the pair declared (``bids``: hands whose declarer, named
  by the key the game declares, ``Game.declarer_key``, sat on their side and that were
  scored), how many were made. A contract is made when the declaring side scored in that hand
  (``Game.contract``): a game with contracts scores a failed one for the other side (a set, a
  bait), so a side that declared scores exactly when it made its contract.

A match becomes ``lines`` (one per person) and ``meetings`` (one per two people) once, when
its record is made (``of_record``): storage keeps them beside the group's link to the match
and never asks this module. ``Ledger`` adds those up, from the records themselves (``standings``, the
recount) or from the sums the database makes of the stored ones (``standings_of_totals``, of
``ledger_totals`` in server/storage/groups.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server.games import get_game


def side_of(game: str, seat: int, players: int) -> int:
    """The side a seat plays for: its partnership, or the seat itself."""
    return get_game(game).side_of(seat, players)


def has_pairs(game: str) -> bool:
    """True when ``game`` is played by partnerships (at some player count): its ledger keeps pairs."""
    return bool(get_game(game).partnerships)


def _bids(game: str, hands: Iterable[Mapping[str, Any]], players: int) -> dict[int, list[int]]:
    """Per side: ``[contracts declared, contracts made]`` over the match's scored hands."""
    rules = get_game(game)
    bids: dict[int, list[int]] = {}
    for hand in hands:
        contract = rules.contract(hand)
        if contract is None:
            continue
        seat, made = contract
        counts = bids.setdefault(rules.side_of(seat, players), [0, 0])
        counts[0] += 1
        counts[1] += 1 if made else 0
    return bids


def _sides(
    game: str, seats: list[dict[str, Any]], hands: Iterable[Mapping[str, Any]] = ()
) -> dict[int, dict[str, Any]]:
    """Each side's seats, score (its first seat's: partners share one), whether it won and its
    ``[bids, made]``."""
    sides: dict[int, dict[str, Any]] = {}
    bids = _bids(game, hands, len(seats)) if hands and has_pairs(game) else {}  # only pairs count bids
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


def lines(game: str, match: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A match's lines in the ledger: one per seat a person sat in (bots and empty ids get
    none), with what that seat's side did: ``{"seat", "player_id", "side", "place", "won",
    "points", "against", "bids", "bids_made"}``. Stored beside the group's link to the match
    when the match is stored, so the standings add these up instead of reading every record."""
    out = []
    for key, side in _sides(game, list(match["seats"]), match.get("hands") or ()).items():
        for s in side["seats"]:
            if s["bot"] or s["player_id"] is None:
                continue
            out.append(
                {
                    "seat": s["seat"],
                    "player_id": s["player_id"],
                    "side": key,
                    "place": side["place"],
                    "won": side["won"],
                    "points": side["score"],
                    "against": side["against"],
                    "bids": side["bids"][0],
                    "bids_made": side["bids"][1],
                }
            )
    return out


def meetings(match_lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every two people of one match (``lines``), ``a`` before ``b`` in id order: ``{"seat_a",
    "seat_b", "a", "b", "together"}`` (1 when partners), ``a_higher`` and ``b_higher`` (1 when
    that one placed above the other) and the side's ``won``, ``bids`` and ``bids_made``, which
    count for partners. Stored beside the lines, so head-to-head and pairs need no join."""
    out = []
    for i, x in enumerate(match_lines):
        for y in match_lines[i + 1 :]:
            if x["player_id"] == y["player_id"]:
                continue
            first, second = (x, y) if x["player_id"] < y["player_id"] else (y, x)
            out.append(
                {
                    "seat_a": first["seat"],
                    "seat_b": second["seat"],
                    "a": first["player_id"],
                    "b": second["player_id"],
                    "together": int(x["side"] == y["side"]),
                    "a_higher": int(first["place"] < second["place"]),
                    "b_higher": int(second["place"] < first["place"]),
                    "won": int(x["won"]),
                    "bids": x["bids"],
                    "bids_made": x["bids_made"],
                }
            )
    return out


def of_record(record: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A finished match record's rows in the ledger, made with the record and stored with it:
    ``{"lines", "meetings"}`` (``won`` as 0 or 1). Storage keeps those of people it knows, in
    a group's season when the match was played at a group's table."""
    game = str(record["game"])
    scores, winners = list(record["scores"]), {int(w) for w in record["winners"]}
    seats = [
        {
            "seat": int(p["seat"]),
            "player_id": p.get("player_id") or None,
            "bot": bool(p.get("bot", False)),
            "score": int(scores[int(p["seat"])]),
            "winner": int(p["seat"]) in winners,
        }
        for p in sorted(record["players"], key=lambda p: int(p["seat"]))
    ]
    match_lines = [
        {**line, "won": int(line["won"])} for line in lines(game, {"seats": seats, "hands": record.get("hands")})
    ]
    return {"lines": match_lines, "meetings": meetings(match_lines)}


class Ledger:
    """Totals of one game's matches for every person who sat in them (members or not: who is a
    member is asked only when the standings are read). Filled one match at a time from its
    ``lines`` (the recount) or with totals the database added up (the standings served): both
    go through ``person`` and ``meeting``, so both give the same table."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._rows: dict[str, dict[str, Any]] = {}
        self._h2h: dict[tuple[str, str], dict[str, Any]] = {}
        self._pairs: dict[tuple[str, str], dict[str, Any]] = {}

    def person(self, player_id: str, matches: int, wins: int, points: int, against: float, places: int) -> None:
        row = self._rows.get(player_id)
        if row is None:
            row = self._rows[player_id] = {"matches": 0, "wins": 0, "points": 0, "points_against": 0.0, "_places": 0}
        row["matches"] += matches
        row["wins"] += wins
        row["points"] += points
        row["points_against"] += against
        row["_places"] += places

    def meeting(self, a: str, b: str, together: bool, counts: tuple[int, int, int, int, int, int]) -> None:
        """``matches`` two people sat in: on different sides, ``a_higher`` and ``b_higher`` say
        how often each placed above the other; partners (same side, partnership games only)
        count ``wins``, ``bids`` and ``bids_made`` together."""
        matches, a_higher, b_higher, wins, bids, made = counts
        if a == b:
            return
        if b < a:
            a, b, a_higher, b_higher = b, a, b_higher, a_higher
        if not together:
            rec = self._h2h.get((a, b)) or self._h2h.setdefault(
                (a, b), {"a": a, "b": b, "matches": 0, "a_higher": 0, "b_higher": 0}
            )
            rec["matches"] += matches
            rec["a_higher"] += a_higher
            rec["b_higher"] += b_higher
        elif has_pairs(self.game):
            rec = self._pairs.get((a, b)) or self._pairs.setdefault(
                (a, b), {"a": a, "b": b, "matches": 0, "wins": 0, "bids": 0, "bids_made": 0}
            )
            rec["matches"] += matches
            rec["wins"] += wins
            rec["bids"] += bids
            rec["bids_made"] += made

    def add(self, match_lines: list[dict[str, Any]]) -> None:
        """One match, from its ``lines``."""
        for x in match_lines:
            self.person(x["player_id"], 1, int(x["won"]), x["points"], x["against"], x["place"])
        for m in meetings(match_lines):
            counts = (1, m["a_higher"], m["b_higher"], m["won"], m["bids"], m["bids_made"])
            self.meeting(m["a"], m["b"], bool(m["together"]), counts)

    def standings(self, members: Mapping[str, str]) -> dict[str, Any]:
        """``{"rows", "head_to_head", "pairs"}`` of the members (fresh copies: the totals stay)."""
        h2h = [dict(v) for (a, b), v in self._h2h.items() if a in members and b in members]
        pairs = [dict(v) for (a, b), v in self._pairs.items() if a in members and b in members]
        rows = (
            {"player_id": p, "name": members[p], **r, "win_share": 0.0, "average_place": None}
            for p, r in self._rows.items()
            if p in members
        )
        return {
            "rows": _finish_rows(rows),
            "head_to_head": sorted(h2h, key=lambda h: (h["a"], h["b"])),
            "pairs": sorted(pairs, key=lambda p: (-p["wins"], -p["matches"], p["a"], p["b"])),
        }


def standings(game: str, matches: Iterable[Mapping[str, Any]], members: Mapping[str, str]) -> dict[str, Any]:
    """``{"rows", "head_to_head", "pairs"}`` for these matches (all of one game), counted from
    their records."""
    tally = Ledger(game)
    for match in matches:
        tally.add(lines(game, match))
    return tally.standings(members)


def standings_of_totals(
    game: str,
    persons: Iterable[tuple[str, int, int, int, float, int]],
    meetings: Iterable[tuple[str, str, bool, tuple[int, ...]]],
    members: Mapping[str, str],
) -> dict[str, Any]:
    """``{"rows", "head_to_head", "pairs"}`` from the totals the database added up of the
    stored lines (``ledger_totals`` in server/storage/groups.py): the same table as a recount."""
    tally = Ledger(game)
    for player_id, matches, wins, points, against, places in persons:
        tally.person(player_id, matches, wins, points, against, places)
    for a, b, together, counts in meetings:
        tally.meeting(a, b, together, counts)  # type: ignore[arg-type]
    return tally.standings(members)


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
