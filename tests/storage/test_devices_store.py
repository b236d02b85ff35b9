"""Devices and link codes in storage: a token per device, revoking, one-time expiring codes."""

from __future__ import annotations

import threading
from datetime import timedelta

import sqlalchemy as sa

from server.log_entry import StoreUnavailable
from server.storage import devices, store
from server.storage.models import Base


def _player(db, name="Ana"):
    with db.session() as session:
        player, token = store.create_player(session, name, "Firefox on Linux")
        return player.id, token


def test_a_new_player_has_one_device_labelled_from_its_browser(db):
    pid, token = _player(db)
    with db.session() as session:
        listed = devices.list_devices(session, pid)
        player, device = devices.by_token(session, token)
    assert [d["label"] for d in listed] == ["Firefox on Linux"]
    assert player.id == pid and device.id == listed[0]["id"]


def test_a_link_code_adds_a_device_with_its_own_token_and_works_once(db):
    pid, token = _player(db)
    with db.session() as session:
        code, expires = devices.create_link_code(session, pid)
    assert len(code) == devices.LINK_LENGTH and expires > store.now_utc()
    with db.session() as session:
        player, device, second = devices.redeem_link_code(session, code.lower()[:4] + "-" + code[4:], "Phone")
    assert player.id == pid and second != token
    with db.session() as session:
        assert devices.redeem_link_code(session, code, "Thief") is None
        assert store.player_by_token(session, token).id == pid
        assert store.player_by_token(session, second).id == pid
        listed = devices.list_devices(session, pid)
        assert len(listed) == 2 and device.id in {d["id"] for d in listed}


def test_an_expired_or_unknown_or_malformed_code_links_nothing(db):
    pid, _ = _player(db)
    with db.session() as session:
        code, expires = devices.create_link_code(session, pid)
    with db.session() as session:
        assert devices.redeem_link_code(session, code, "Late", now=expires + timedelta(seconds=1)) is None
        assert devices.redeem_link_code(session, "AAAAAAAA", "Guess") is None
        assert devices.redeem_link_code(session, "short", "Guess") is None
        assert devices.redeem_link_code(session, 12345678, "Guess") is None
        assert devices.redeem_link_code(session, "0OIL0OIL", "Guess") is None
        assert len(devices.list_devices(session, pid)) == 1
    with db.session() as session:  # just before it expires it still works
        assert devices.redeem_link_code(session, code, "Fast", now=expires - timedelta(seconds=1)) is not None


def test_a_new_code_ends_the_players_earlier_one(db):
    pid, _ = _player(db)
    with db.session() as session:
        first, _ = devices.create_link_code(session, pid)
    with db.session() as session:
        second, _ = devices.create_link_code(session, pid)
    with db.session() as session:
        assert devices.redeem_link_code(session, first, "Old") is None
        assert devices.redeem_link_code(session, second, "New") is not None


def test_two_devices_racing_with_one_code_link_only_one(db):
    pid, _ = _player(db)
    with db.session() as session:
        code, _ = devices.create_link_code(session, pid)
    results: list = []
    barrier = threading.Barrier(4)

    def redeem() -> None:
        barrier.wait()
        try:
            with db.session() as session:
                results.append(devices.redeem_link_code(session, code, "Racer") is not None)
        except StoreUnavailable:  # SQLite's writer lock held too long: that one lost
            results.append(False)

    threads = [threading.Thread(target=redeem) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, False, False, True]


def test_a_revoked_device_token_is_refused_and_the_others_still_work(db):
    pid, token = _player(db)
    with db.session() as session:
        code, _ = devices.create_link_code(session, pid)
    with db.session() as session:
        _, phone, phone_token = devices.redeem_link_code(session, code, "Phone")
        phone_id = phone.id
    with db.session() as session:
        assert devices.revoke_device(session, pid, phone_id) == devices.hash_secret(phone_token)
    with db.session() as session:
        assert store.player_by_token(session, phone_token) is None
        assert store.player_by_token(session, token).id == pid
        assert [d["label"] for d in devices.list_devices(session, pid)] == ["Firefox on Linux"]
        assert devices.revoke_device(session, pid, phone_id) is None  # once
    other, _ = _player(db, "Bo")
    with db.session() as session:  # nobody revokes another player's device
        mine = devices.list_devices(session, pid)[0]["id"]
        assert devices.revoke_device(session, other, mine) is None
        assert devices.revoke_device(session, pid, "x" * 500) is None


def test_neither_tokens_nor_link_codes_are_stored_in_plain(db):
    pid, token = _player(db)
    with db.session() as session:
        code, _ = devices.create_link_code(session, pid)
    dump: list[str] = []
    with db.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            for row in conn.execute(sa.select(table)):
                dump.extend(str(v) for v in row)
    assert not any(token in v or code in v for v in dump)
    assert devices.hash_secret(code) in dump


def test_renaming_a_player_leaves_its_finished_matches_names_alone(db):
    from storage_helpers import make_record

    pid, _ = _player(db)
    other, _ = _player(db, "Bo")
    with db.session() as session:
        match_id = store.save_match(session, make_record("oh_hell", player_ids=[pid, other, None, None]))
    with db.session() as session:
        before = [p["name"] for p in store.get_match(session, match_id)["players"]]
        devices.rename_player(session, pid, "Ana Maria")
    with db.session() as session:
        assert store.player_by_id(session, pid).name == "Ana Maria"
        assert [p["name"] for p in store.get_match(session, match_id)["players"]] == before
