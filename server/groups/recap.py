"""The recap of a group's night: who won what, the best hand, the biggest comeback, each
member's net, as data and as plain text to paste into a chat.

A night is the run of the group's latest matches with less than ``NIGHT_GAP`` between one's
end and the next one's (so it may cross midnight). Input: the night's matches, oldest first,
as ``{"id", "game", "finished_at", "seats": [...], "hands": [[points per seat], ...]}`` and the
members (``{player_id: name}``). Sides and net points follow the ledger's rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from server.groups.ledger import side_of

NIGHT_GAP = timedelta(hours=6)


def _name(seat: Mapping[str, Any]) -> str:
    return f"Bot {seat['seat'] + 1}" if seat["bot"] else seat["name"]


def _side_names(seats: list[dict], winners: bool) -> list[str]:
    return [_name(s) for s in seats if bool(s["winner"]) == winners]


def _best_hand(match: Mapping[str, Any], members: Mapping[str, str]) -> dict[str, Any] | None:
    """The most points a member's seat scored in one hand of this match."""
    best = None
    by_seat = {s["seat"]: s for s in match["seats"]}
    for number, scores in enumerate(match["hands"], start=1):
        for seat, points in enumerate(scores):
            who = by_seat.get(seat)
            if who is None or who["player_id"] not in members or who["bot"]:
                continue
            if best is None or points > best["points"]:
                best = {"name": who["name"], "points": points, "game": match["game"], "hand": number}
    return best


def _comeback(match: Mapping[str, Any]) -> dict[str, Any] | None:
    """How far the winning side trailed the leader, at worst, before it won (running totals)."""
    seats = match["seats"]
    n = len(seats)
    winners = {side_of(match["game"], s["seat"], n) for s in seats if s["winner"]}
    if not winners:
        return None
    totals: dict[int, int] = {}
    worst = 0
    for scores in match["hands"]:
        for seat, points in enumerate(scores):
            if seat < n and (match["game"] not in ("bid_whist", "tarbish") or seat < 2):
                side = side_of(match["game"], seat, n)
                totals[side] = totals.get(side, 0) + points
        if totals:
            lead = max(totals.values())
            worst = max([worst] + [lead - totals.get(w, 0) for w in winners])
    if worst <= 0:
        return None
    return {"names": _side_names(seats, True), "behind": worst, "game": match["game"]}


def _net(match: Mapping[str, Any], members: Mapping[str, str], nets: dict[str, dict[str, Any]]) -> None:
    seats = match["seats"]
    n = len(seats)
    score_of = {side_of(match["game"], s["seat"], n): s["score"] for s in seats}
    for s in seats:
        if s["bot"] or s["player_id"] not in members:
            continue
        mine = side_of(match["game"], s["seat"], n)
        others = [v for k, v in score_of.items() if k != mine]
        row = nets.setdefault(s["player_id"], {"name": members[s["player_id"]], "matches": 0, "wins": 0, "net": 0.0})
        row["matches"] += 1
        row["wins"] += 1 if s["winner"] else 0
        row["net"] += s["score"] - (sum(others) / len(others) if others else 0)


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
    rows = sorted(nets.values(), key=lambda r: (-r["wins"], -r["net"], r["name"]))
    for row in rows:
        row["net"] = round(row["net"], 1)
    return {
        "matches": len(matches),
        "started_at": matches[0]["finished_at"] if matches else None,
        "ended_at": matches[-1]["finished_at"] if matches else None,
        "results": results,
        "best_hand": best,
        "comeback": comeback,
        "members": rows,
    }


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
        lines.append(
            f"Best hand: {b['name']}, {b['points']} points ({titles.get(b['game'], b['game'])}, hand {b['hand']})"
        )
    if night["comeback"]:
        c = night["comeback"]
        game = titles.get(c["game"], c["game"])
        lines.append(f"Biggest comeback: {' & '.join(c['names'])}, from {c['behind']} behind ({game})")
    for m in night["members"]:
        sign = "+" if m["net"] >= 0 else ""
        lines.append(f"{m['name']}: {m['wins']}/{m['matches']} won, net {sign}{m['net']:g}")
    return "\n".join(lines)
