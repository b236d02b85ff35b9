"""The Alembic migrations build exactly the schema the models describe, on both backends."""

from __future__ import annotations

import logging
from datetime import UTC

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from server.storage.db import Database
from server.storage.models import Base

HEAD = "0020_player_prefs"

TABLES = {
    "players",
    "matches",
    "match_seats",
    "hands",
    "actions",
    "groups",
    "group_members",
    "group_matches",
    "devices",
    "link_codes",
    "passkeys",
    "passkey_challenges",
    "group_webhooks",
    "push_subscriptions",
    "notify_prefs",
    "server_keys",
    "group_ledger_lines",
    "group_ledger_meetings",
    "webhook_outbox",
}


def schema_diffs(db: Database, metadata: sa.MetaData = Base.metadata) -> list:
    with db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": False})
        return compare_metadata(context, metadata)


def table_names(db: Database) -> set[str]:
    return set(sa.inspect(db.engine).get_table_names())


def test_an_empty_database_migrated_to_head_matches_the_models(empty_url):
    db = Database(empty_url)
    try:
        assert table_names(db) == set()
        db.upgrade()
        assert table_names(db) >= TABLES
        assert schema_diffs(db) == []
    finally:
        db.dispose()


def test_the_comparison_notices_a_model_the_migrations_do_not_build(empty_url):
    db = Database(empty_url)
    try:
        db.upgrade()
        metadata = sa.MetaData(naming_convention=Base.metadata.naming_convention)
        for table in Base.metadata.sorted_tables:
            table.to_metadata(metadata)
        sa.Table("trophies", metadata, sa.Column("id", sa.Integer, primary_key=True))
        metadata.tables["players"].append_column(sa.Column("email", sa.String(200)))
        diffs = schema_diffs(db, metadata)
        kinds = {d[0] if isinstance(d, tuple) else d[0][0] for d in diffs}
        assert "add_table" in kinds and "add_column" in kinds
    finally:
        db.dispose()


def test_downgrading_to_base_removes_every_table_and_upgrading_again_works(empty_url):
    db = Database(empty_url)
    try:
        db.upgrade()
        db.downgrade("base")
        assert table_names(db) & TABLES == set()
        db.upgrade()
        assert schema_diffs(db) == []
    finally:
        db.dispose()


def test_upgrading_twice_on_start_is_harmless(empty_url):
    db = Database(empty_url)
    try:
        db.upgrade()
        db.upgrade()
        with db.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all() == [HEAD]
    finally:
        db.dispose()


def test_migrations_are_found_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = Database(f"sqlite:///{tmp_path / 'elsewhere.db'}")
    try:
        db.upgrade()
        assert table_names(db) >= TABLES
    finally:
        db.dispose()


def test_upgrading_leaves_the_apps_logging_alone(tmp_path):
    root = logging.getLogger()
    app_log = logging.getLogger("felt.test_marker")
    handlers, level = list(root.handlers), root.level
    db = Database(f"sqlite:///{tmp_path / 'log.db'}")
    try:
        db.upgrade()
    finally:
        db.dispose()
    assert root.handlers == handlers and root.level == level
    assert not app_log.disabled and not logging.getLogger("felt").disabled


def test_the_second_migration_copies_each_matchs_finished_at_onto_its_seats(empty_url):
    """Seats written under 0001 get their match's finished_at, so old matches stay in history."""
    from datetime import datetime

    from server.storage import store

    db = Database(empty_url)
    try:
        db.upgrade("0001_initial")
        finished = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)
        with db.engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO players (id, name, token_hash, created_at) VALUES ('p1', 'Ana', 'h', :t)"),
                {"t": finished},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO matches (id, game, options, seed, commitment, dealer, room_code, scores, winners,"
                    " player_count, started_at, finished_at) VALUES ('m1', 'ribs', '{}', '1', :c, 0, NULL, '[1]',"
                    " '[0]', 1, :t, :t)"
                ),
                {"t": finished, "c": "0" * 64},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO match_seats (match_id, seat, player_id, name, bot, score, winner)"
                    " VALUES ('m1', 0, 'p1', 'Ana', false, 1, true)"
                )
            )
        db.upgrade()
        assert schema_diffs(db) == []
        with db.session() as session:
            page, _ = store.list_matches(session, player="p1")
        assert [m["id"] for m in page] == ["m1"]
    finally:
        db.dispose()


def test_the_seventh_migration_makes_each_players_token_its_first_device(empty_url):
    """A player made under 0006 keeps its token: it becomes a device, and the lookup finds it.
    Downgrading puts the token back on the player."""
    import hashlib
    from datetime import datetime

    from server.storage import store

    db = Database(empty_url)
    try:
        db.upgrade("0007_match_room_code")
        made = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
        token = "an-old-token-from-before-devices"
        with db.engine.begin() as conn:
            for pid, secret in (("p1", token), ("p2", "another-token")):
                conn.execute(
                    sa.text("INSERT INTO players (id, name, token_hash, created_at) VALUES (:id, 'Ana', :h, :t)"),
                    {"id": pid, "h": hashlib.sha256(secret.encode()).hexdigest(), "t": made},
                )
        db.upgrade()
        assert schema_diffs(db) == []
        with db.session() as session:
            assert store.player_by_token(session, token).id == "p1"
            assert store.player_by_token(session, "another-token").id == "p2"
            assert store.player_by_token(session, "not-a-token") is None
        with db.engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT player_id, created_at, revoked_at FROM devices ORDER BY player_id")
            ).all()
        assert [r[0] for r in rows] == ["p1", "p2"] and all(r[2] is None for r in rows)
        db.downgrade("0007_match_room_code")
        with db.engine.connect() as conn:
            kept = conn.execute(sa.text("SELECT token_hash FROM players WHERE id = 'p1'")).scalar()
        assert kept == hashlib.sha256(token.encode()).hexdigest()
    finally:
        db.dispose()


def test_the_eighteenth_migration_gives_each_stored_seat_its_one_occupant(empty_url):
    """Seats stored before 0018 read back with one occupant, who made every decision from 0;
    going back to 0017 drops the column and keeps the seats."""
    from datetime import datetime

    from server.storage import store

    db = Database(empty_url)
    try:
        db.upgrade("0017_device_names")
        finished = datetime(2026, 12, 5, 21, 0, tzinfo=UTC)
        with db.engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO matches (id, game, options, seed, commitment, dealer, room_code, scores, winners,"
                    " player_count, started_at, finished_at) VALUES ('m1', 'ribs', '{}', '1', :c, 0, NULL, '[1, 2]',"
                    " '[1]', 2, :t, :t)"
                ),
                {"t": finished, "c": "0" * 64},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO match_seats"
                    " (match_id, seat, player_id, name, bot, bot_level, score, winner, finished_at)"
                    " VALUES ('m1', 0, NULL, 'Ana', false, NULL, 1, false, :t),"
                    " ('m1', 1, NULL, 'Bot 2', true, 'strong', 2, true, :t)"
                ),
                {"t": finished},
            )
        db.upgrade()
        assert schema_diffs(db) == []
        with db.session() as session:
            seats = store.get_match(session, "m1", viewer=store.ANYONE)["players"]
        assert [s["occupants"] for s in seats] == [
            [{"from": 0, "name": "Ana", "player_id": None, "bot": False, "level": None}],
            [{"from": 0, "name": "Bot 2", "player_id": None, "bot": True, "level": "strong"}],
        ]
        db.downgrade("0017_device_names")
        with db.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM match_seats")).scalar_one() == 2
    finally:
        db.dispose()
