"""Finished matches: save, read back, list with filters and stable cursor pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from storage_helpers import GAMES, copy_record, table_counts

from server.storage import store
from server.storage.models import Match, MatchSeat

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def save(db, record):
    with db.session() as session:
        return store.save_match(session, record)


def get(db, match_id):
    with db.session() as session:
        return store.get_match(session, match_id)


def page(db, **kwargs):
    with db.session() as session:
        return store.list_matches(session, **kwargs)


def players(db, n):
    with db.session() as session:
        return [store.create_player(session, f"P{i}")[0].id for i in range(n)]


@pytest.mark.parametrize("game", GAMES)
def test_a_saved_match_reads_back_exactly_as_it_was_recorded(db, template_records, game):
    record = template_records[game]
    assert save(db, record) == record["id"]
    back = get(db, record["id"])
    for key in (
        "id",
        "game",
        "options",
        "seed",
        "commitment",
        "dealer",
        "room_code",
        "players",
        "hands",
        "actions",
        "scores",
        "winners",
        "started_at",
        "finished_at",
    ):
        assert back[key] == record[key], key
    assert back["finished_at"].tzinfo is not None


def test_the_seed_keeps_every_digit_of_a_big_integer(db, template_records):
    record = copy_record(template_records["oh_hell"], seed=str(2**127 + 12345))
    save(db, record)
    assert get(db, record["id"])["seed"] == str(2**127 + 12345)


def test_saving_the_same_match_twice_stores_it_once(db, template_records):
    record = template_records["bid_whist"]
    save(db, record)
    before = table_counts(db)
    save(db, record)
    assert table_counts(db) == before
    assert before["matches"] == 1
    assert before["actions"] == len(record["actions"])
    assert before["hands"] == len(record["hands"])
    assert before["match_seats"] == len(record["players"])


def test_seats_link_to_known_players_and_forget_unknown_ones(db, template_records):
    (known,) = players(db, 1)
    record = copy_record(template_records["oh_hell"])
    record["players"][0]["player_id"] = known
    record["players"][1]["player_id"] = "ghost0000000000"
    save(db, record)
    seats = get(db, record["id"])["players"]
    assert seats[0]["player_id"] == known
    assert seats[1]["player_id"] is None
    assert seats[1]["name"] == record["players"][1]["name"]


def test_seats_remember_each_score_and_who_won(db, template_records):
    record = template_records["tarbish"]
    save(db, record)
    with db.session() as session:
        rows = session.scalars(
            sa.select(MatchSeat).where(MatchSeat.match_id == record["id"]).order_by(MatchSeat.seat)
        ).all()
    assert [r.score for r in rows] == record["scores"]
    assert [r.seat for r in rows if r.winner] == sorted(record["winners"])


def test_a_record_missing_a_field_is_refused_and_nothing_is_written(db, template_records):
    record = copy_record(template_records["ribs"])
    del record["seed"]
    with pytest.raises(store.InvalidRecord, match="seed"):
        save(db, record)
    assert table_counts(db)["matches"] == 0


def test_an_unknown_or_malformed_match_id_finds_nothing(db):
    assert get(db, "0123456789abcdef") is None
    assert get(db, "'; DROP TABLE matches; --") is None
    assert get(db, "") is None


def test_deleting_a_match_takes_its_seats_hands_and_actions_with_it(db, template_records):
    save(db, template_records["oh_hell"])
    with db.session() as session:
        session.execute(sa.delete(Match))
    assert table_counts(db) == {
        "players": 0,
        "matches": 0,
        "match_seats": 0,
        "hands": 0,
        "actions": 0,
        "tables": 0,
        "table_players": 0,
        "table_log": 0,
        "groups": 0,
        "group_members": 0,
        "group_rules": 0,
        "group_seasons": 0,
        "group_tables": 0,
        "group_matches": 0,
        "group_ledger_lines": 0,
        "group_ledger_meetings": 0,
        "group_webhooks": 0,
        "devices": 0,
        "link_codes": 0,
        "passkeys": 0,
        "passkey_challenges": 0,
        "push_subscriptions": 0,
        "notify_prefs": 0,
        "server_keys": 0,
        "webhook_outbox": 0,
    }


def test_history_is_newest_first(db, template_records):
    ids = []
    for i in range(5):
        record = copy_record(template_records[GAMES[i % 4]], finished_at=T0 + timedelta(minutes=i))
        ids.append(save(db, record))
    matches, next_cursor = page(db)
    assert [m["id"] for m in matches] == ids[::-1]
    assert next_cursor is None
    assert set(matches[0]) >= {"id", "game", "players", "scores", "winners", "finished_at"}


def test_history_filters_by_player_and_by_game(db, template_records):
    ana, bo = players(db, 2)
    wanted = []
    for i in range(12):
        game = GAMES[i % 4]
        record = copy_record(template_records[game], finished_at=T0 + timedelta(seconds=i))
        record["players"][i % 2]["player_id"] = ana if i % 3 == 0 else bo
        save(db, record)
        if i % 3 == 0:
            wanted.append((record["id"], game))
    by_ana, _ = page(db, player=ana, limit=100)
    assert [m["id"] for m in by_ana] == [mid for mid, _ in wanted][::-1]
    assert all(any(p["player_id"] == ana for p in m["players"]) for m in by_ana)
    whist, _ = page(db, game="bid_whist", limit=100)
    assert len(whist) == 3 and all(m["game"] == "bid_whist" for m in whist)
    both, _ = page(db, player=ana, game="oh_hell", limit=100)
    assert [m["id"] for m in both] == [mid for mid, g in wanted if g == "oh_hell"][::-1]
    assert page(db, player="nobody000000000")[0] == []


def test_cursor_pages_have_no_gaps_and_no_repeats_even_when_times_tie(db, template_records):
    saved = set()
    for i in range(23):
        # Groups of matches finishing at the very same microsecond.
        record = copy_record(template_records[GAMES[i % 4]], finished_at=T0 + timedelta(seconds=i // 5))
        saved.add(save(db, record))
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        matches, cursor = page(db, limit=4, before=cursor)
        pages += 1
        seen.extend(m["id"] for m in matches)
        stamps = [(m["finished_at"], m["id"]) for m in matches]
        assert stamps == sorted(stamps, reverse=True)
        if cursor is None:
            break
    assert pages == 6
    assert len(seen) == len(set(seen)) == 23
    assert set(seen) == saved


def test_a_page_that_ends_exactly_at_the_last_match_has_no_next_cursor(db, template_records):
    for i in range(4):
        save(db, copy_record(template_records["oh_hell"], finished_at=T0 + timedelta(seconds=i)))
    matches, cursor = page(db, limit=4)
    assert len(matches) == 4 and cursor is None
    matches, cursor = page(db, limit=3)
    assert len(matches) == 3 and cursor is not None
    rest, cursor = page(db, limit=3, before=cursor)
    assert len(rest) == 1 and cursor is None


@pytest.mark.parametrize("cursor", ["garbage", "!!!", "", "MjAyNi0wNS0wMVQxMjowMDowMA", "bm90IGEgdGltZXxhYmM"])
def test_a_cursor_this_server_did_not_hand_out_is_refused(sqlite_db, cursor):
    with pytest.raises(store.InvalidCursor):
        page(sqlite_db, before=cursor)


def test_a_cursor_round_trips_its_time_and_id():
    stamp = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert store.decode_cursor(store.encode_cursor(stamp, "abc123")) == (stamp, "abc123")


def test_a_seat_that_changed_hands_keeps_every_occupant_and_their_first_action(db, template_records):
    record = template_records["oh_hell"]
    late = players(db, 1)[0]
    seat = record["players"][1]
    occupants = [*seat["occupants"], {"from": 5, "name": "Dee", "player_id": late, "bot": False, "level": None}]
    changed = copy_record(
        record, players=[*record["players"][:1], {**seat, "occupants": occupants}, *record["players"][2:]]
    )
    save(db, changed)
    back = get(db, changed["id"])
    assert back["players"] == changed["players"]
    assert back["players"][1]["name"] == seat["name"]  # the seat's first occupant stays its name


def test_a_record_without_occupants_reads_back_with_each_seats_one_occupant(db, template_records):
    """Matches stored before seats kept their occupants: each seat's one occupant played it all."""
    record = template_records["bid_whist"]
    old = copy_record(record, players=[{k: v for k, v in p.items() if k != "occupants"} for p in record["players"]])
    save(db, old)
    assert get(db, old["id"])["players"] == record["players"]
