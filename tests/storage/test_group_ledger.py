"""The ledger against a straightforward recount, over random finished matches stored at a
group's tables (hypothesis), on SQLite and PostgreSQL: wins (a tie at the top is a win for
each), places, points, head-to-head, partner pairs (and their bids made), bots and outsiders
unranked, seasons; and the standings served (the database adding up the ledger lines written
when each match was stored) equal to it, a record stored late included."""

from __future__ import annotations

import itertools
import secrets
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from storage_helpers import with_ledger

from server.groups import ledger
from server.storage import groups, store

GAMES = ["oh_hell", "bid_whist", "tarbish", "ribs"]
PEOPLE = 6  # P0..P3 join the group; P4 and P5 sit in from outside
T0 = datetime(2026, 11, 1, 20, 0, tzinfo=UTC)


@st.composite
def a_match(draw):
    game = draw(st.sampled_from(GAMES))
    seats = 4 if game in ("bid_whist", "tarbish") else draw(st.integers(2, 5))
    who = draw(st.lists(st.one_of(st.none(), st.integers(0, PEOPLE - 1)), min_size=seats, max_size=seats))
    seen: set[int] = set()
    who = [w if w is None or (w not in seen and not seen.add(w)) else None for w in who]  # nobody sits twice
    contracts = []  # (declarer, made) per hand; declarer None: thrown in, made None: unfinished
    if game in ("bid_whist", "tarbish"):
        team = draw(st.lists(st.integers(0, 3), min_size=2, max_size=2))
        scores = [team[s % 2] for s in range(4)]
        contracts = draw(
            st.lists(
                st.tuples(st.one_of(st.none(), st.integers(0, 3)), st.sampled_from([True, False, None])), max_size=4
            )
        )
    else:
        scores = draw(st.lists(st.integers(0, 3), min_size=seats, max_size=seats))
    late = draw(st.booleans())  # played before the last season closed, stored after (the spool)
    return {"game": game, "who": who, "scores": scores, "contracts": contracts, "late": late}


def hand(game: str, declarer: int | None, made: bool | None) -> dict:
    """A stored hand as the game records it: its declarer (Tarabish: caller) and per-seat scores,
    which a made contract gives the declaring side and a set or bait gives the other side."""
    if declarer is None or made is None:
        scores = None
    else:
        mine, theirs = (5, 2) if made else (-4 if game == "bid_whist" else 0, 7)
        scores = [mine if s % 2 == declarer % 2 else theirs for s in range(4)]
    key = "declarer" if game == "bid_whist" else "caller"
    return {"dealer": 0, "deal": {}, key: declarer, "scores": scores}


events = st.lists(st.one_of(a_match(), st.just("close")), min_size=1, max_size=14)


def record(spec: dict, room: str, ids: list[str], at: datetime) -> dict:
    top = max(spec["scores"])
    record = {
        "id": secrets.token_hex(8),
        "game": spec["game"],
        "options": {},
        "seed": "1",
        "commitment": "0" * 64,
        "dealer": 0,
        "room_code": room,
        "scores": spec["scores"],
        "hands": [hand(spec["game"], d, made) for d, made in spec["contracts"]],
        "winners": [s for s, score in enumerate(spec["scores"]) if score == top],
        "players": [
            {
                "seat": s,
                "name": "Bot" if w is None else f"P{w}",
                "player_id": None if w is None else ids[w],
                "bot": w is None,
            }
            for s, w in enumerate(spec["who"])
        ],
        "started_at": at - timedelta(minutes=5),
        "finished_at": at,
    }
    return with_ledger(record)


def recount(game: str, played: list[tuple[int, dict]], season: int | None, members: dict[str, str], ids) -> dict:
    """The standings the slow, obvious way: every member, every match, every other seat."""
    mine = [spec for number, spec in played if spec["game"] == game and season in (None, number)]
    partners = game in ("bid_whist", "tarbish")
    rows, h2h, pairs = {}, {}, {}

    def place(spec, seat):
        top = max(spec["scores"])
        if spec["scores"][seat] == top:
            return 1
        rivals = {s % 2 if partners else s for s, v in enumerate(spec["scores"]) if v > spec["scores"][seat]}
        return 1 + len(rivals)

    for spec in mine:
        seated = [(s, ids[w]) for s, w in enumerate(spec["who"]) if w is not None and ids[w] in members]
        for seat, pid in seated:
            r = rows.setdefault(pid, {"matches": 0, "wins": 0, "points": 0, "places": 0})
            r["matches"] += 1
            r["wins"] += spec["scores"][seat] == max(spec["scores"])
            r["points"] += spec["scores"][seat]
            r["places"] += place(spec, seat)
        for (s1, p1), (s2, p2) in itertools.combinations(seated, 2):
            (sa, a), (sb, b) = sorted([(s1, p1), (s2, p2)], key=lambda x: x[1])
            if partners and sa % 2 == sb % 2:
                pr = pairs.setdefault((a, b), [0, 0, 0, 0])
                pr[0] += 1
                pr[1] += spec["scores"][sa] == max(spec["scores"])
                ours = [made for d, made in spec["contracts"] if d is not None and made is not None and d % 2 == sa % 2]
                pr[2] += len(ours)
                pr[3] += sum(ours)
            else:
                h = h2h.setdefault((a, b), [0, 0, 0])
                h[0] += 1
                h[1] += place(spec, sa) < place(spec, sb)
                h[2] += place(spec, sb) < place(spec, sa)
    return {"rows": rows, "h2h": h2h, "pairs": pairs}


def as_recount(table: dict) -> dict:
    return {
        "rows": {
            r["player_id"]: {
                "matches": r["matches"],
                "wins": r["wins"],
                "points": r["points"],
                "places": round(r["average_place"] * r["matches"]),
            }
            for r in table["rows"]
        },
        "h2h": {(h["a"], h["b"]): [h["matches"], h["a_higher"], h["b_higher"]] for h in table["head_to_head"]},
        "pairs": {(p["a"], p["b"]): [p["matches"], p["wins"], p["bids"], p["bids_made"]] for p in table["pairs"]},
    }


def served(session, code: str, game: str, season: int | None) -> dict:
    """The standings as the API answers them: the ledger lines added up by the database."""
    members = {m["player_id"]: m["name"] for m in groups.members_of(session, code)}
    return ledger.standings_of_totals(game, *groups.ledger_totals(session, code, game, season), members)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=events)
def test_the_ledger_agrees_with_a_recount(db, events):
    with db.session() as session:
        ids = [store.create_player(session, f"P{i}")[0].id for i in range(PEOPLE)]
        made = groups.create_group(session, ids[0], "Club")
        code = made["code"]
        for i in range(1, 4):
            groups.join_group(session, code, made["invite"], ids[i])
        room = secrets.token_hex(4).upper()
        groups.link_table(session, code, room, "oh_hell")
    played, number = [], 1
    for i, event in enumerate(events):
        with db.session() as session:
            if event == "close":
                number = groups.close_season(session, code)["number"]
            else:
                at = T0 + timedelta(minutes=i) - timedelta(days=30 if event["late"] else 0)
                store.save_match(session, record(event, room, ids, at))
                played.append((number, event))
    with db.session() as session:
        members = {m["player_id"]: m["name"] for m in groups.members_of(session, code)}
        for game, season in itertools.product(GAMES, [None, *range(1, number + 1)]):
            table = ledger.standings(game, groups.ledger_matches(session, code, game, season), members)
            assert as_recount(table) == recount(game, played, season, members, ids), (game, season)
            assert served(session, code, game, season) == table, (game, season)
            assert [r["wins"] for r in table["rows"]] == sorted((r["wins"] for r in table["rows"]), reverse=True)
