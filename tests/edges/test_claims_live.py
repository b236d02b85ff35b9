"""Claims through a real server on loopback: a person at a table with bots claims the rest of
the hand at each of their turns; a refused claim changes nothing and its error names no
card, a claim while bidding is refused, and the first accepted claim plays the hand out as
ordinary logged plays (one version each, the table told who claimed) with every remaining
trick on the claimant's side, which the stored match replays. Ribs has no claims."""

from __future__ import annotations

import asyncio
import random
import re

from test_rooms_live import close_all, fetch_match, replay_states
from ws_client import Client, new_player, new_room, play_to_end

from server.games import get_game

CARD = re.compile(r"\b(10|[2-9JQKA])[SHDC]\b")


async def refused_without_change(client: Client, code: str) -> dict:
    """Send a claim that must be refused: the error frame, and no new version after it."""
    v = client.v
    await client.send({"type": "claim"})
    error = await client.next_error()
    assert error["code"] == code, error
    assert not CARD.search(client.frames[-1]), client.frames[-1]
    await asyncio.sleep(0.2)
    assert client.v == v, "a refused claim changed the table"
    return error


async def test_claims_at_an_oh_hell_table(live_server):
    host = await new_player(live_server.base, "Ana")
    options = {"max_cards": 10, "start": "high", "rebound": True}  # 19 hands: a certain claim comes
    code = await new_room(live_server.base, host["token"], "oh_hell", options, seats=3)
    c = await Client(live_server.ws_base, code, host["token"], "host").connect()
    watcher = await Client(live_server.ws_base, code, None, "spectator").connect()
    for seat in (1, 2):
        await c.send({"type": "bot", "seat": seat})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="two bots")
    await c.send({"type": "claim"})
    assert (await c.next_error())["code"] == "not_playing"
    await c.send({"type": "start"})
    await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await watcher.send({"type": "claim"})
    assert (await watcher.next_error())["code"] == "not_seated"

    rng = random.Random("claims")
    refused = refused_bidding = 0
    claimed = None
    while claimed is None and c.state["room"]["status"] == "playing":
        await c.wait(lambda c: c.my_turn() or c.state["room"]["status"] != "playing", timeout=30, what="a turn")
        if not c.my_turn():
            break
        game = c.game
        if game["phase"] == "bidding":
            if not refused_bidding:
                error = await refused_without_change(c, "claim_refused")
                refused_bidding += 1
                assert "tricks" in error["message"]
            await c.send({"type": "act", "action": rng.choice(game["legal"]), "v": c.v})
            await c.wait(lambda c, v=c.v: c.v > v, what="the bid")
            continue
        before = {
            "v": c.v,
            "tricks_won": list(game["tricks_won"]),
            "hand_number": game["hand_number"],
            "cards": len(game["hand"]),
            "trick": len(game["trick"]),
        }
        await c.send({"type": "claim"})
        await c.wait(lambda c, v=c.v, n=len(c.errors): c.v > v or len(c.errors) > n, what="the claim's answer")
        if c.v == before["v"]:
            assert c.errors[-1]["code"] == "claim_refused" and not CARD.search(c.frames[-1])
            refused += 1
            await asyncio.sleep(0.2)
            assert c.v == before["v"]
            await c.send({"type": "act", "action": rng.choice(game["legal"]), "v": c.v})
            await c.wait(lambda c, v=c.v: c.v > v, what="the play")
            continue
        claimed = before
    assert claimed is not None, "no claim was certain in the whole match"
    assert refused_bidding == 1

    # The hand was played out at once: a chat line, then one version per card left.
    cards_left = claimed["cards"] * 3 - claimed["trick"]
    last = claimed["v"] + 1 + cards_left
    await c.wait(lambda c: c.v >= last, what="the hand played out")
    lines = [line for line in c.state["chat"] if line.get("event") == "claim"]
    assert [line["text"] for line in lines] == ["Ana claimed the rest"]
    versions = [v for v, _ in c.history if claimed["v"] < v <= last]
    assert len(versions) == 1 + cards_left
    finished = c.game["history"][claimed["hand_number"] - 1]
    tricks = claimed["cards"]  # the trick in progress (the claimant's card still to come) and the rest
    assert finished["tricks_won"][1:] == claimed["tricks_won"][1:], "a trick went to another seat"
    assert finished["tricks_won"][0] == claimed["tricks_won"][0] + tricks

    # The match goes on to its end and replays, the claimed cards among its actions.
    c.errors.clear()  # the refusals above, all checked
    await play_to_end([c], rng, timeout=120)
    record = await fetch_match(live_server, c.state["result"]["match_id"])
    states = replay_states(record)
    assert get_game("oh_hell").outcome(states[-1])["scores"] == c.state["result"]["scores"]
    await close_all(c, watcher)


async def test_ribs_has_no_claims(live_server):
    host = await new_player(live_server.base, "Bea")
    code = await new_room(live_server.base, host["token"], "ribs", None)
    c = await Client(live_server.ws_base, code, host["token"], "host").connect()
    seats = len(c.state["seats"])
    for seat in range(1, seats):
        await c.send({"type": "bot", "seat": seat})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="the bots")
    await c.send({"type": "start"})
    await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await c.wait(lambda c: c.my_turn(), what="a turn")
    await refused_without_change(c, "not_supported")
    await close_all(c)
