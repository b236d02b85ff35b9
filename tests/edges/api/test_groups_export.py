"""A group's JSON export streams every match record, a few per database call, oldest first."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from server.edges.api import groups as groups_api
from server.storage import groups, store

ROUTER = groups_api.router
T0 = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def record(room: str, ids: list[str], minutes: int) -> dict:
    return {
        "id": secrets.token_hex(8), "game": "ribs", "options": {}, "seed": str(minutes), "commitment": "0" * 64,
        "dealer": 0, "room_code": room, "scores": [1, 2], "winners": [1],
        "players": [{"seat": s, "name": f"P{s}", "player_id": ids[s], "bot": False} for s in range(2)],
        "hands": [{"dealer": 0, "deal": {"hands": [[], []]}, "scores": [1, 2]}],
        "actions": [{"seat": 0, "action": {"type": "pass"}}],
        "started_at": T0, "finished_at": T0 + timedelta(minutes=minutes),
    }  # fmt: skip


async def test_the_export_streams_every_record_across_chunks(db, client, monkeypatch):
    monkeypatch.setattr(groups_api, "EXPORT_CHUNK", 2)
    with db.session() as session:
        (ana, token), (rui, _) = store.create_player(session, "Ana"), store.create_player(session, "Rui")
        made = groups.create_group(session, ana.id, "Club")
        groups.link_table(session, made["code"], "EXPORT1", "ribs")
        saved = [store.save_match(session, record("EXPORT1", [ana.id, rui.id], m)) for m in (3, 1, 2, 5, 4)]
        store.save_match(session, record("OTHER01", [ana.id, rui.id], 6))  # not the group's
    answer = await client.get(f"/api/groups/{made['code']}/export.json", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    dump = answer.json()
    assert dump["group"] == {"code": made["code"], "name": "Club"}
    assert [m["id"] for m in dump["matches"]] == [saved[i] for i in (1, 2, 0, 4, 3)]  # oldest first
    assert dump["matches"][0]["actions"] == [{"seat": 0, "action": {"type": "pass"}}]
