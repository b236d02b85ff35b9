"""A card chosen before one's turn (``preselect``) and a forced card played for its player
(``prefs`` ``autoplay_forced``), through a real server over WebSockets, on SQLite and on
PostgreSQL: the chosen card is played when its turn comes, dropped when it may not be played
then, seen by nobody else; the setting is kept with the player, and a forced card waits
0.8 to 2.0 seconds."""

from __future__ import annotations

import asyncio

import orjson
from test_undo_live import act, open_table, settled, to_act
from ws_client import Client

OPTIONS = {"max_cards": 5, "rebound": False}  # hands of 5, 4, 3, 2 and 1 cards


def suit(card: str) -> str:
    return card[-1]


async def bid_all(clients: list[Client]) -> None:
    while clients[0].game["phase"] == "bidding":
        await settled(clients)
        await act(to_act(clients))
    await settled(clients)


def never_shown_to(client: Client, card: str) -> bool:
    """No frame ``client`` got ever put ``card`` in its view's ``preselect``."""
    for raw in client.frames:
        frame = orjson.loads(raw)
        if frame["type"] == "snapshot" and frame["state"].get("preselect") == card:
            return False
        if frame["type"] == "patch" and any(
            op["path"] == "/preselect" and op.get("value") == card for op in frame["ops"]
        ):
            return False
    return client.state["preselect"] != card


async def test_a_chosen_card_is_played_at_its_turn_and_one_that_may_not_be_is_dropped(server):
    _, clients = await open_table(server, "ask", options=OPTIONS)
    fired = dropped = False
    while not (fired and dropped) and clients[0].state["room"]["status"] == "playing":
        await bid_all(clients)
        if clients[0].game["phase"] != "playing":
            continue
        leader = to_act(clients)
        await act(leader)
        await settled(clients)
        lead = suit(leader.game["trick"][0]["card"])
        order = clients[0].game["to_act"]
        later = [c for c in clients if c.state["you"] != order[0] and c is not leader and c.game["hand"]]
        for chooser in later:
            hand = chooser.game["hand"]
            follows = [c for c in hand if suit(c) == lead]
            off = [c for c in hand if suit(c) != lead]
            if not dropped and follows and off:
                card, legal = off[0], False
            elif not fired:
                card, legal = (follows or hand)[0], True
            else:
                continue
            v = chooser.v
            await chooser.send({"type": "preselect", "card": card})
            await chooser.wait(lambda c, card=card: c.state["preselect"] == card, what="the card chosen")
            assert chooser.v == v + 1
            seat = chooser.state["you"]
            while seat not in clients[0].game["to_act"] and card in chooser.game["hand"]:
                await act(to_act(clients))  # the others play up to the chooser
                await settled(clients)
            if legal:  # played at once, as the chooser's own action: the chooser sent nothing
                await chooser.wait(lambda c, card=card: card not in c.game["hand"], what="the chosen card played")
                assert chooser.state["preselect"] is None
                fired = True
            else:  # it may not be played now: dropped, and the seat plays for itself
                assert chooser.state["preselect"] is None
                assert card in chooser.game["hand"] and chooser.game["to_act"] == [seat]
                dropped = True
            assert all(never_shown_to(other, card) for other in clients if other is not chooser)
            break
        # Play the trick (and the hand) out; the next trick tries again.
        while clients[0].state["room"]["status"] == "playing" and clients[0].game["trick"]:
            await settled(clients)
            await act(to_act(clients))
        await settled(clients)
    assert fired and dropped


async def test_a_card_not_in_the_hand_is_refused_and_null_clears(server):
    _, clients = await open_table(server, "ask", options=OPTIONS)
    await bid_all(clients)
    chooser = next(c for c in clients if c.state["you"] not in c.game["to_act"])
    missing = next(f"{rank}{s}" for s in "SHDC" for rank in "AKQJ" if f"{rank}{s}" not in chooser.game["hand"])
    v = chooser.v
    await chooser.send({"type": "preselect", "card": missing})
    assert (await chooser.next_error())["code"] == "not_in_hand"
    await asyncio.sleep(0.05)
    assert chooser.v == v and chooser.state["preselect"] is None
    card = chooser.game["hand"][0]
    await chooser.send({"type": "preselect", "card": card})
    await chooser.wait(lambda c: c.state["preselect"] == card, what="chosen")
    await chooser.send({"type": "preselect", "card": None})
    await chooser.wait(lambda c: c.state["preselect"] is None, what="cleared")


async def test_a_forced_card_is_played_after_a_pause_and_the_setting_is_kept(server):
    code, clients = await open_table(server, "ask", options={"max_cards": 2, "rebound": False})
    ann = clients[0]
    assert ann.state["prefs"] == {"autoplay_forced": False}
    await ann.send({"type": "prefs", "autoplay_forced": True})
    await ann.wait(lambda c: c.state["prefs"] == {"autoplay_forced": True}, what="the setting shown")
    assert all(c.state["prefs"] == {"autoplay_forced": False} for c in clients[1:])  # hers alone
    again = await Client(server.ws_base, code, ann.url.rsplit("token=", 1)[1], "Ann again").connect()
    assert again.state["prefs"] == {"autoplay_forced": True}  # kept with the player
    await again.close()

    pauses: list[float] = []
    loop = asyncio.get_running_loop()
    while ann.state["room"]["status"] == "playing":
        await settled(clients)
        mover = to_act(clients)
        legal = mover.game["legal"]
        if mover is ann and len(legal) == 1 and legal[0]["type"] == "play":
            start, v = loop.time(), ann.v
            await ann.wait(lambda c, v=v: c.v > v, timeout=5, what="the forced card")
            pauses.append(loop.time() - start)
            assert legal[0]["card"] not in ann.game["hand"]
            continue
        await act(mover)
    assert len(pauses) >= 2  # the last trick of each hand
    assert all(0.7 <= p <= 2.5 for p in pauses), pauses
