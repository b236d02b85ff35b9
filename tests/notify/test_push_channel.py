"""The Web Push channel against a loopback push service, on SQLite and PostgreSQL: who is told
(not those watching; only devices with that kind on; never a revoked device), in which
language, what a push service's answers do (404/410 drop the subscription, 5xx is retried),
and that the VAPID key is made once and shared by every node of a database."""

from __future__ import annotations

from push_receiver import Keys, PushReceiver

from server.notify.events import ClockRanOut, MatchFinished, Mentioned, TableOpened, TableStarted, YourTurn
from server.notify.outbound import Outbound
from server.notify.push import PushChannel, VapidKeys, new_private_key, payload
from server.storage import devices, store
from server.storage import push as push_store


def turn(player: str, watching: frozenset[str] = frozenset()) -> YourTurn:
    return YourTurn("ABCD", "bid_whist", "Ana", (player,), ("Ben",), watching, None, 0, 7)


def ran_out(player: str, away: bool = False, watching: frozenset[str] = frozenset()) -> ClockRanOut:
    return ClockRanOut("ABCD", "bid_whist", player, "Ben", 3600, away, watching)


def started(players: tuple[str, ...], watching: frozenset[str] = frozenset()) -> TableStarted:
    return TableStarted("ABCD", "bid_whist", "Ana", players, tuple(f"P{i}" for i in range(len(players))), watching)


def mention(player: str, watching: frozenset[str] = frozenset()) -> Mentioned:
    return Mentioned("ABCD", "oh_hell", "Ana", player, "Ben", watching)


def new_player(db, name: str) -> str:
    with db.session() as session:
        player, _ = store.create_player(session, name)
        return player.id


def new_device(db, player: str) -> str:
    with db.session() as session:
        device, _ = devices.add_device(session, player, "Phone")
        return device.id


def subscribe(db, device: str, receiver: PushReceiver, path: str, lang: str = "en") -> Keys:
    keys = Keys()
    sub = keys.subscription(receiver.url(path), lang)
    with db.session() as session:
        assert push_store.save_subscription(
            session, device, sub["endpoint"], sub["keys"]["p256dh"], sub["keys"]["auth"], lang
        )
    return keys


def subscribed(db, device: str) -> bool:
    with db.session() as session:
        return push_store.subscription_of(session, device) is not None


async def channel_on(db, **options) -> tuple[PushChannel, Outbound]:
    outbound = Outbound(allow_private=True, timeout_s=30)
    channel = PushChannel(db, outbound, VapidKeys(db), backoff_s=0.01, **options)
    channel.start()
    return channel, outbound


def by_kind(messages) -> list[dict]:
    """Messages a device was sent, by kind: each delivery is a task of its own, so two events'
    messages may reach the push service in either order."""
    return sorted(messages, key=lambda m: m["kind"])


async def test_turns_go_to_the_devices_with_that_kind_on_and_never_to_a_player_watching(database):
    receiver = await PushReceiver().start()
    channel, outbound = await channel_on(database)
    try:
        ben = new_player(database, "Ben")
        laptop, phone = new_device(database, ben), new_device(database, ben)
        on_laptop = subscribe(database, laptop, receiver, "laptop")
        on_phone = subscribe(database, phone, receiver, "phone", "pt")
        with database.session() as session:
            assert push_store.set_kinds_off(session, phone, ["turn"])
        channel.offer(turn(ben, watching=frozenset({ben})))  # he sees it at the table
        channel.offer(TableOpened("ABCD", "bid_whist", "Ana"))
        channel.offer(MatchFinished("ABCD", "bid_whist", {}))
        channel.offer(turn(ben))
        channel.offer(ran_out(ben, away=True))
        await channel.settled()
        told = by_kind(on_laptop.decrypt(r.body) for r in receiver.at("laptop"))
        assert [(m["kind"], m["title"]) for m in told] == [
            ("clock", "Your time ran out at a Bid Whist table"),
            ("turn", "Your turn at Ana's Bid Whist table"),
        ]
        assert "away" in told[0]["body"] and all(m["url"] == "/r/ABCD" for m in told)
        assert [on_phone.decrypt(r.body)["title"] for r in receiver.at("phone")] == [
            "Seu tempo acabou numa mesa de Bid Whist"
        ]
        assert channel.counts["sent"] == 3
    finally:
        await channel.close()
        await outbound.aclose()
        await receiver.stop()


async def test_a_start_and_a_mention_go_to_devices_with_that_kind_on_never_to_watchers_nor_the_line(database):
    receiver = await PushReceiver().start()
    channel, outbound = await channel_on(database)
    try:
        ben, cy, dee = new_player(database, "Ben"), new_player(database, "Cy"), new_player(database, "Dee")
        on_ben = subscribe(database, new_device(database, ben), receiver, "ben")
        cy_device = new_device(database, cy)
        on_cy = subscribe(database, cy_device, receiver, "cy", "pt")
        subscribe(database, new_device(database, dee), receiver, "dee")
        with database.session() as session:
            assert push_store.set_kinds_off(session, cy_device, ["mention"])
        channel.offer(started((ben, cy, dee), watching=frozenset({dee})))  # Dee is at the table
        channel.offer(mention(ben))
        channel.offer(mention(cy))  # Cy's device has mentions off
        channel.offer(mention(dee, watching=frozenset({dee})))
        channel.offer(ran_out(dee, watching=frozenset({dee})))  # she saw the bot play for her
        await channel.settled()
        to_ben = by_kind(on_ben.decrypt(r.body) for r in receiver.at("ben"))
        assert to_ben == [
            {
                "title": "Ana mentioned you at the Oh Hell table",
                "body": "Open the table to read the chat.",
                "url": "/r/ABCD",
                "kind": "mention",
                "tag": "felt-mention-ABCD",
            },
            {
                "title": "Ana's Bid Whist table has started",
                "body": "The cards are being dealt.",
                "url": "/r/ABCD",
                "kind": "start",
                "tag": "felt-start-ABCD",
            },
        ]
        assert [on_cy.decrypt(r.body)["title"] for r in receiver.at("cy")] == ["A mesa de Bid Whist de Ana começou"]
        assert receiver.at("dee") == []
        assert channel.counts["sent"] == 3
    finally:
        await channel.close()
        await outbound.aclose()
        await receiver.stop()


async def test_a_gone_subscription_is_dropped_and_a_failing_push_service_is_tried_again(database):
    receiver = await PushReceiver().start()
    channel, outbound = await channel_on(database, retries=3)
    try:
        ben, cy = new_player(database, "Ben"), new_player(database, "Cy")
        ben_devices = [new_device(database, ben) for _ in range(3)]
        for device, path in zip(ben_devices, ("gone", "unknown", "busy"), strict=True):
            subscribe(database, device, receiver, path)
        receiver.replies.update({"gone": 410, "unknown": 404, "busy": [503, 500, 429]})
        cy_device = new_device(database, cy)
        subscribe(database, cy_device, receiver, "refused")
        receiver.replies["refused"] = 400  # a request the push service will never take
        channel.offer(turn(ben))
        channel.offer(turn(cy))
        await channel.settled()
        assert [len(receiver.at(p)) for p in ("gone", "unknown", "busy", "refused")] == [1, 1, 4, 1]
        assert [subscribed(database, d) for d in ben_devices] == [False, False, True]
        assert subscribed(database, cy_device)  # a 400 is not a 410: the subscription stays
        assert channel.counts == {"sent": 1, "failed": 1, "dropped": 0, "gone": 2}
    finally:
        await channel.close()
        await outbound.aclose()
        await receiver.stop()


async def test_a_revoked_device_loses_its_subscription_and_is_told_nothing(database):
    receiver = await PushReceiver().start()
    channel, outbound = await channel_on(database)
    try:
        ben = new_player(database, "Ben")
        kept, revoked = new_device(database, ben), new_device(database, ben)
        subscribe(database, kept, receiver, "kept")
        subscribe(database, revoked, receiver, "revoked")
        with database.session() as session:
            assert devices.revoke_device(session, ben, revoked)
        assert not subscribed(database, revoked)
        with database.session() as session:  # nor can it subscribe again
            assert not push_store.save_subscription(session, revoked, receiver.url("revoked"), "x", "y")
        channel.offer(turn(ben))
        await channel.settled()
        assert len(receiver.at("kept")) == 1 and receiver.at("revoked") == []
    finally:
        await channel.close()
        await outbound.aclose()
        await receiver.stop()


async def test_the_vapid_key_is_made_once_for_every_node_and_a_configured_one_wins(database):
    nodes = [VapidKeys(database), VapidKeys(database)]
    first, second = [await keys.public_key() for keys in nodes]
    assert first == second and len(first) == 87  # 65 bytes in base64url
    configured = VapidKeys(database, new_private_key())
    assert await configured.public_key() != first


async def test_a_full_queue_drops_without_waiting(database):
    channel = PushChannel(database, Outbound(allow_private=True), VapidKeys(database), queue_size=2)
    for _ in range(5):
        channel.offer(turn("p1"))  # no worker started: nothing is taken off the queue
    assert channel.queue.qsize() == 2 and channel.counts["dropped"] == 3
    await channel.outbound.aclose()


def test_a_turn_at_a_slow_table_says_how_many_hours_are_left_and_never_a_card():
    now = 1_800_000_000_000
    slow = YourTurn("WXYZ", "tarbish", "Ana", ("p1",), ("Ben",), frozenset(), now + 5 * 3_600_000 - 1, 86400, 3)
    quick = YourTurn("WXYZ", "tarbish", "Ana", ("p1",), ("Ben",), frozenset(), now + 20_000, 30, 3)
    assert payload(slow, "en", now) == {
        "title": "Your turn at Ana's Tarabish table",
        "body": "The table waits for you: 5 h left.",
        "url": "/r/WXYZ",
        "kind": "turn",
        "tag": "felt-turn-WXYZ",
    }
    assert payload(slow, "pt", now)["body"] == "A mesa espera por você: faltam 5 h."
    assert payload(quick, "en", now)["body"] == "The table waits for you."
    assert payload(slow, "xx", now)["title"] == "Your turn at Ana's Tarabish table"


def test_a_configured_vapid_key_is_taken_as_base64url_or_pem_and_a_wrong_one_refused():
    import pytest
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from server.notify.push import b64url, raw_private_key

    key = ec.generate_private_key(ec.SECP256R1())
    raw = b64url(key.private_numbers().private_value.to_bytes(32, "big"))
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    assert raw_private_key(raw) == raw_private_key(pem) == raw
    other = ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    for wrong in (raw[:-4], other.decode()):
        with pytest.raises(ValueError):
            raw_private_key(wrong)
