"""Passkeys in storage: challenges answered once and only by whom they were made for, and the
credentials of a player (the WebAuthn checks are the edge's, tested in the browser)."""

from __future__ import annotations

from datetime import timedelta

from server.storage import passkeys, store


def test_a_challenge_is_taken_once_by_the_player_it_was_made_for(db):
    with db.session() as session:
        pid = store.create_player(session, "Ana")[0].id
        handle = passkeys.new_challenge(session, "c2hhbGxlbmdl", pid)
        sign_in = passkeys.new_challenge(session, "b3RoZXI", None)
    with db.session() as session:
        assert passkeys.take_challenge(session, sign_in, pid) is None  # not made for a player
    with db.session() as session:
        assert passkeys.take_challenge(session, sign_in, None) is None  # gone with the wrong try
        assert passkeys.take_challenge(session, handle, pid) == "c2hhbGxlbmdl"
    with db.session() as session:
        assert passkeys.take_challenge(session, handle, pid) is None
        assert passkeys.take_challenge(session, "x" * 100, pid) is None


def test_an_expired_challenge_is_refused(db, monkeypatch):
    with db.session() as session:
        handle = passkeys.new_challenge(session, "Y2hhbGxlbmdl", None)
    later = passkeys._now() + passkeys.CHALLENGE_TTL + timedelta(seconds=1)
    monkeypatch.setattr(passkeys, "_now", lambda: later)
    with db.session() as session:
        assert passkeys.take_challenge(session, handle, None) is None


def test_a_players_passkeys_are_kept_used_and_removed(db):
    with db.session() as session:
        pid = store.create_player(session, "Ana")[0].id
        other = store.create_player(session, "Bo")[0].id
        passkeys.add_passkey(session, pid, "Y3JlZA", b"\x01\x02public", 0, "Chrome on Android")
    with db.session() as session:
        assert [k["label"] for k in passkeys.passkeys_of(session, pid)] == ["Chrome on Android"]
        key = passkeys.passkey(session, "Y3JlZA")
        assert key.public_key == b"\x01\x02public"
        assert passkeys.used(session, key, 7).id == pid
    with db.session() as session:
        assert passkeys.passkey(session, "Y3JlZA").sign_count == 7
        assert passkeys.passkeys_of(session, pid)[0]["last_used_at"] is not None
        assert not passkeys.remove_passkey(session, other, "Y3JlZA")
        assert passkeys.remove_passkey(session, pid, "Y3JlZA")
    with db.session() as session:
        assert passkeys.passkeys_of(session, pid) == []
