"""The recap of a group's night: who won what, the best hand, the biggest comeback, each
member's net per game, as data and as plain text to paste into a chat.

A night is the run of the group's latest matches with less than ``NIGHT_GAP`` between one's
end and the next one's (so it may cross midnight). Input: the night's matches, oldest first,
as ``{"id", "game", "finished_at", "seats": [...], "hands": [[points per seat], ...]}`` and the
members (``{player_id: name}``). Sides and net points follow the ledger's rules.

Points of different games are never added together: Oh Hell points, Bid Whist game points and
Tarabish card points count on scales of their own. Each member's figures are kept per game
(``by_game``); the overall ``net`` is given only when the whole night was one game.
A partnership's hand is the partnership's: its best hand names both partners.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from server.games import all_games, get_game
from server.groups.ledger import side_of

NIGHT_GAP = timedelta(hours=6)


def _name(seat: Mapping[str, Any]) -> str:
    return f"Bot {seat['seat'] + 1}" if seat["bot"] else seat["name"]


def _side_names(seats: list[dict], winners: bool) -> list[str]:
    return [_name(s) for s in seats if bool(s["winner"]) == winners]


def _best_hand(match: Mapping[str, Any], members: Mapping[str, str]) -> dict[str, Any] | None:
    """The most points a side with a member on it scored in one hand of this match, credited
    to the whole side (both partners of a partnership, by seat order)."""
    best = None
    seats = match["seats"]
    n = len(seats)
    sides: dict[int, list[Mapping[str, Any]]] = {}
    for s in sorted(seats, key=lambda s: s["seat"]):
        sides.setdefault(side_of(match["game"], s["seat"], n), []).append(s)
    for number, scores in enumerate(match["hands"], start=1):
        for side, sitting in sides.items():
            if side >= len(scores) or not any(not s["bot"] and s["player_id"] in members for s in sitting):
                continue
            points = scores[side]  # a side's first seat holds its score (partners share one)
            if best is None or points > best["points"]:
                names = [_name(s) for s in sitting]
                best = {
                    "name": " & ".join(names),
                    "names": names,
                    "points": points,
                    "game": match["game"],
                    "hand": number,
                }
    return best


def _comeback(match: Mapping[str, Any]) -> dict[str, Any] | None:
    """How far the winning side trailed the leader, at worst, before it won (running totals)."""
    seats = match["seats"]
    n = len(seats)
    winners = {side_of(match["game"], s["seat"], n) for s in seats if s["winner"]}
    if not winners:
        return None
    teams = get_game(match["game"]).teams(n)
    counted = {seats[0] for seats in teams} if teams else set(range(n))
    totals: dict[int, int] = {}
    worst = 0
    for scores in match["hands"]:
        for seat, points in enumerate(scores):
            if seat in counted:  # partners share a score: each side counted at its first seat
                side = side_of(match["game"], seat, n)
                totals[side] = totals.get(side, 0) + points
        if totals:
            lead = max(totals.values())
            worst = max([worst] + [lead - totals.get(w, 0) for w in winners])
    if worst <= 0:
        return None
    return {"names": _side_names(seats, True), "behind": worst, "game": match["game"]}


def _net(match: Mapping[str, Any], members: Mapping[str, str], nets: dict[str, dict[str, Any]]) -> None:
    """Add this match to each member's figures for its game: matches, wins, and net points
    (the side's final score less the mean of the other sides')."""
    seats = match["seats"]
    game = match["game"]
    n = len(seats)
    score_of = {side_of(game, s["seat"], n): s["score"] for s in seats}
    for s in seats:
        if s["bot"] or s["player_id"] not in members:
            continue
        mine = side_of(game, s["seat"], n)
        others = [v for k, v in score_of.items() if k != mine]
        row = nets.setdefault(s["player_id"], {"name": members[s["player_id"]], "by_game": {}})
        figures = row["by_game"].setdefault(game, {"matches": 0, "wins": 0, "net": 0.0})
        figures["matches"] += 1
        figures["wins"] += 1 if s["winner"] else 0
        figures["net"] += s["score"] - (sum(others) / len(others) if others else 0)


def _member_rows(nets: dict[str, dict[str, Any]], games: set[str]) -> list[dict[str, Any]]:
    """Each member's ``{"player_id", "name", "matches", "wins", "net", "by_game"}``: ``net``
    is the one game's net, or None when the night mixed games."""
    rows = []
    for player_id, row in nets.items():
        by_game = row["by_game"]
        for figures in by_game.values():
            figures["net"] = round(figures["net"], 1)
        rows.append(
            {
                "player_id": player_id,
                "name": row["name"],
                "matches": sum(f["matches"] for f in by_game.values()),
                "wins": sum(f["wins"] for f in by_game.values()),
                "net": next(iter(by_game.values()))["net"] if len(games) == 1 else None,
                "by_game": by_game,
            }
        )
    rows.sort(key=lambda r: (-r["wins"], r["matches"], -(r["net"] or 0), r["name"]))
    return rows


def recap(matches: Sequence[Mapping[str, Any]], members: Mapping[str, str]) -> dict[str, Any]:
    """``{"matches", "started_at", "ended_at", "results", "best_hand", "comeback", "members"}``."""
    results: list[dict[str, Any]] = []
    nets: dict[str, dict[str, Any]] = {}
    best, comeback = None, None
    for match in matches:
        results.append(
            {
                "id": match["id"],
                "game": match["game"],
                "finished_at": match["finished_at"],
                "winners": _side_names(match["seats"], True),
            }
        )
        hand = _best_hand(match, members)
        if hand and (best is None or hand["points"] > best["points"]):
            best = hand
        back = _comeback(match)
        if back and (comeback is None or back["behind"] > comeback["behind"]):
            comeback = back
        _net(match, members, nets)
    return {
        "matches": len(matches),
        "started_at": matches[0]["finished_at"] if matches else None,
        "ended_at": matches[-1]["finished_at"] if matches else None,
        "results": results,
        "best_hand": best,
        "comeback": comeback,
        "members": _member_rows(nets, {m["game"] for m in matches}),
    }


def titles() -> dict[str, str]:
    """Each game's title, as a recap names it."""
    return {game.name: game.title for game in all_games()}


def recap_text(group_name: str, night: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """The recap as lines of plain text for a chat."""
    if not night["matches"]:
        return f"{group_name}: no match finished yet."
    day = night["ended_at"].strftime("%Y-%m-%d")
    lines = [f"{group_name} · {day} · {night['matches']} match{'es' if night['matches'] != 1 else ''}"]
    for r in night["results"]:
        lines.append(f"- {titles.get(r['game'], r['game'])}: {' & '.join(r['winners']) or 'nobody'} won")
    if night["best_hand"]:
        b = night["best_hand"]
        game = titles.get(b["game"], b["game"])
        lines.append(f"Best hand: {' & '.join(b['names'])}, {b['points']} points ({game}, hand {b['hand']})")
    if night["comeback"]:
        c = night["comeback"]
        game = titles.get(c["game"], c["game"])
        lines.append(f"Biggest comeback: {' & '.join(c['names'])}, from {c['behind']} behind ({game})")
    for m in night["members"]:
        lines.append(f"{m['name']}: {_figures(m, titles)}")
    return "\n".join(lines)


def signed(net: float) -> str:
    """A net as the recap writes it: ``+12``, ``-3.5``, ``+0``."""
    return f"{'+' if net >= 0 else ''}{net:g}"


def _figures(member: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """``2/3 won, net +12`` on a night of one game; on a mixed night, per game:
    ``Oh Hell 1/2 won, net +9; Bid Whist 1/1 won, net +14``."""
    if member["net"] is not None:
        return f"{member['wins']}/{member['matches']} won, net {signed(member['net'])}"
    return "; ".join(
        f"{titles.get(game, game)} {f['wins']}/{f['matches']} won, net {signed(f['net'])}"
        for game, f in member["by_game"].items()
    )
