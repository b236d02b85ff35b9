"""Text no database column stores, and secrets in any script, through a real server on SQLite
and on PostgreSQL: a NUL character (in a path, a query or a JSON body) or an unpaired
surrogate gets 400 ``bad_text`` before any route sees it, a non-ASCII invite is just a wrong
invite, and none of them changes anything or answers 500."""

from __future__ import annotations

import httpx
import orjson
from ws_client import new_player


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


def bad_text(answer: httpx.Response) -> bool:
    return answer.status_code == 400 and answer.json()["error"]["code"] == "bad_text"


async def test_a_nul_in_a_path_query_or_body_is_a_400_and_changes_nothing(server):
    ana = await new_player(server.base, "Ana")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = (await http.post("/api/groups", json={"name": "Cards"}, headers=auth(ana))).json()
        code = group["code"]
        asked = [
            await http.post("/api/passkeys/sign-in", json={"challenge_id": "a\x00b", "credential": {"id": "x"}}),
            await http.post("/api/passkeys/sign-in", json={"challenge_id": "ab", "credential": {"id": "\x00"}}),
            await http.post("/api/passkeys/sign-in", json={"challenge_id": "ab", "credential": {"i\x00d": "x"}}),
            await http.delete(f"/api/groups/{code}/members/%00", headers=auth(ana)),
            await http.delete("/api/players/me/passkeys/%00", headers=auth(ana)),
            await http.delete("/api/players/me/passkeys/a%00b", headers=auth(ana)),
            await http.get(f"/api/groups/{code}/standings?game=oh_hell&season=%00", headers=auth(ana)),
            await http.post(f"/api/groups/{code}/join", json={"invite": "\x00"}, headers=auth(ana)),
            await http.post("/api/groups", json={"name": "Night\x00"}, headers=auth(ana)),
            await http.patch("/api/players/me", json={"name": "A\x00a"}, headers=auth(ana)),
            await http.post("/api/players/link", json={"code": "ABCD\x002345"}),
            await http.get("/api/rooms/AB%00CD"),
        ]
        assert all(bad_text(a) for a in asked), [(a.request.url, a.status_code, a.text) for a in asked]
        # An unpaired surrogate is no text either (JSON can spell one; no UTF-8 can).
        raw = b'{"name": "Ana \\ud800"}'
        for path in ("/api/players", "/api/groups"):
            answer = await http.post(path, content=raw, headers={"Content-Type": "application/json", **auth(ana)})
            assert bad_text(answer), answer.text
        # The same text, escaped once more, is text: a backslash and five letters.
        kept = await http.post("/api/groups", json={"name": "Cards \\u0000"}, headers=auth(ana))
        assert kept.status_code == 201 and kept.json()["name"] == "Cards \\u0000"
        mine = (await http.get("/api/groups", headers=auth(ana))).json()["groups"]
        assert sorted(g["name"] for g in mine) == ["Cards", "Cards \\u0000"]
        assert (await http.get("/api/players/me", headers=auth(ana))).json()["name"] == "Ana"


async def test_an_invite_in_any_script_is_a_wrong_invite_not_a_500(server):
    ana, rui = await new_player(server.base, "Ana"), await new_player(server.base, "Rui")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = (await http.post("/api/groups", json={"name": "Cards"}, headers=auth(ana))).json()
        code = group["code"]
        for invite in ("ção", "é" * 24, "🂡", "\u200b"):
            answer = await http.post(f"/api/groups/{code}/join", json={"invite": invite}, headers=auth(rui))
            assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found", answer.text
        assert (await http.get(f"/api/groups/{code}", headers=auth(rui))).status_code == 404
        invite = group["invite_url"].split("#invite=", 1)[1]
        body = orjson.dumps({"invite": invite})
        joined = await http.post(
            f"/api/groups/{code}/join", content=body, headers={"Content-Type": "application/json", **auth(rui)}
        )
        assert joined.status_code == 200, joined.text
