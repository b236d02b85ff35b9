"""Guest players: creation, lookup by token and id, hashed tokens, name rules."""

from __future__ import annotations

import hashlib
from datetime import UTC

import pytest
import sqlalchemy as sa

from server.storage import store
from server.storage.models import Base


def test_a_new_player_gets_an_id_its_name_and_a_long_random_token(db):
    with db.session() as session:
        player, token = store.create_player(session, "  Ana  ")
    assert player.name == "Ana"
    assert player.id and isinstance(player.id, str)
    assert len(token) >= 43


def test_two_players_never_share_an_id_or_a_token(db):
    with db.session() as session:
        made = [store.create_player(session, "Same name") for _ in range(20)]
    assert len({p.id for p, _ in made}) == 20
    assert len({t for _, t in made}) == 20


def test_a_player_is_found_by_token_and_by_id(db):
    with db.session() as session:
        player, token = store.create_player(session, "Bo")
    with db.session() as session:
        assert store.player_by_token(session, token).id == player.id
        assert store.player_by_id(session, player.id).name == "Bo"


def test_unknown_or_malformed_tokens_and_ids_find_nobody(db):
    with db.session() as session:
        store.create_player(session, "Cy")
    with db.session() as session:
        assert store.player_by_token(session, "not-a-token") is None
        assert store.player_by_token(session, "") is None
        assert store.player_by_id(session, "0000000000000000") is None
        assert store.player_by_id(session, "../etc/passwd") is None
        assert store.player_by_id(session, "x" * 500) is None


def test_only_the_sha256_of_the_token_is_stored_never_the_token(db):
    with db.session() as session:
        _, token = store.create_player(session, "Di")
    dump = []
    with db.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            for row in conn.execute(sa.select(table)):
                dump.extend(str(v) for v in row)
    assert not any(token in value for value in dump)
    assert hashlib.sha256(token.encode()).hexdigest() in dump


def test_the_token_hash_is_unique_in_the_database(db):
    from datetime import datetime

    from server.storage.models import Device, Player

    with pytest.raises(sa.exc.IntegrityError), db.session() as session:
        now = datetime.now(UTC)
        session.add(Player(id="p1", name="a", created_at=now))
        session.flush()
        for device in ("d1", "d2"):
            session.add(
                Device(id=device, player_id="p1", token_hash="f" * 64, label="", created_at=now, last_seen_at=now)
            )


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * 25, "tab\there", "line\nbreak", "bell\x07", "zero\u200bwidth" * 3, None, 42],
)
def test_names_that_are_empty_too_long_or_unprintable_are_refused_with_a_reason(name, sqlite_db):
    with sqlite_db.session() as session, pytest.raises(store.InvalidName) as err:
        store.create_player(session, name)
    assert str(err.value).endswith(".")


@pytest.mark.parametrize("name", ["A", "x" * 24, "Ana María", "李小龍", "O'Brien-Smith", "  padded  "])
def test_names_of_one_to_twenty_four_printable_characters_are_kept(name, sqlite_db):
    with sqlite_db.session() as session:
        player, _ = store.create_player(session, name)
    assert player.name == name.strip()
