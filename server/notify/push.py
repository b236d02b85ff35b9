"""Web Push: telling a player's devices of their turn while every Felt tab is closed.

The standard protocol (RFC 8030, with RFC 8291's aes128gcm encryption and RFC 8292's VAPID):
a device subscribes in its browser and gives the server its push service's endpoint and the
keys to encrypt to (``server.storage.push``); the server encrypts a small JSON payload to those
keys (``pywebpush``/``http_ece``), signs a VAPID token for the endpoint's origin (``py_vapid``)
and POSTs it there through ``Outbound``, the guarded client every user-given URL goes through.

The payload is ``{"title", "body", "url", "kind", "tag"}`` in the language the device
subscribed in: whose table and which game (and who said a player's name), never a card and
never a chat line. ``PushChannel`` takes events without
blocking onto a bounded queue its own task drains; each delivery is a task of its own, retried
with backoff when the push service fails (5xx, 429, the network), and a subscription the push
service no longer knows (404, 410) is dropped.

One event is one message to an endpoint, however many of the event's players' devices
subscribed with it. A request has a deadline for the whole of it (``Outbound``), and the
requests under way are counted per endpoint host as well as in all: a host that answers slowly
fills only its own slots, never the ones other hosts' deliveries use.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import math
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from pywebpush import WebPusher

from server.games import get_game
from server.log_entry import StoreUnavailable
from server.notify.events import ClockRanOut, Event, Mentioned, TableStarted, YourTurn
from server.notify.outbound import Outbound, OutboundRefused
from server.notify.prefs import kind_of
from server.storage import push as store
from server.storage.db import Database

log = logging.getLogger("felt.push")

KEY_NAME = "vapid"
TTL_S = 24 * 3600  # a push service keeps a message this long for a device that is offline
TOKEN_FOR_S = 12 * 3600  # a VAPID token's lifetime (RFC 8292: at most 24 hours)
SLOW_CLOCK_S = 3600  # a clock this long or longer: the message says how many hours are left
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "turn": ("Your turn at {host}'s {game} table", "The table waits for you."),
        "left": "The table waits for you: {hours} h left.",
        "clock": ("Your time ran out at a {game} table", "A bot made that decision for you."),
        "away": ("Your time ran out at a {game} table", "A bot played for you three times: your seat is marked away."),
        "start": ("{host}'s {game} table has started", "The cards are being dealt."),
        "mention": ("{speaker} mentioned you at the {game} table", "Open the table to read the chat."),
    },
    "pt": {
        "turn": ("Sua vez na mesa de {game} de {host}", "A mesa espera por você."),
        "left": "A mesa espera por você: faltam {hours} h.",
        "clock": ("Seu tempo acabou numa mesa de {game}", "Um robô fez aquela jogada por você."),
        "away": ("Seu tempo acabou numa mesa de {game}", "Um robô jogou por você três vezes: seu lugar está ausente."),
        "start": ("A mesa de {game} de {host} começou", "As cartas estão sendo dadas."),
        "mention": ("{speaker} mencionou você na mesa de {game}", "Abra a mesa para ler o chat."),
    },
}
LANGS = tuple(WORDS)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_private_key() -> str:
    """A fresh VAPID private key: the P-256 scalar, 32 bytes in base64url."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def raw_private_key(text: str) -> str:
    """A configured key (base64url of the 32-byte scalar, or a PEM document) as base64url."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise ValueError("the VAPID key must be a P-256 (prime256v1) key")
        return b64url(key.private_numbers().private_value.to_bytes(32, "big"))
    if len(b64url_decode(text)) != 32:
        raise ValueError("the VAPID key must be 32 bytes in base64url, or a PEM document")
    return text


def payload(event: Event, lang: str, now_ms: int | None = None) -> dict[str, str]:
    """What a device shows for ``event``, in ``lang`` (English for a language not known); at a
    slow table (a clock of an hour or more) a turn says how many hours are left."""
    words = WORDS.get(lang, WORDS["en"])
    game = get_game(event.game).short_title
    if isinstance(event, YourTurn):
        title, body = words["turn"]
        kind = "turn"
        title = title.format(host=event.host_name, game=game)
        if event.deadline is not None and event.clock_s >= SLOW_CLOCK_S:
            left_ms = event.deadline - (now_ms if now_ms is not None else int(time.time() * 1000))
            body = words["left"].format(hours=max(1, math.ceil(left_ms / 3_600_000)))
    elif isinstance(event, TableStarted):
        kind = "start"
        title, body = words[kind]
        title = title.format(host=event.host_name, game=game)
    elif isinstance(event, Mentioned):  # who said it, never what: the line stays at the table
        kind = "mention"
        title, body = words[kind]
        title = title.format(speaker=event.speaker, game=game)
    else:
        assert isinstance(event, ClockRanOut)
        title, body = words["away" if event.away else "clock"]
        kind = "clock"
        title = title.format(game=game)
    return {"title": title, "body": body, "url": f"/r/{event.table}", "kind": kind, "tag": f"felt-{kind}-{event.table}"}


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: a VAPID token's audience."""
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


class VapidKeys:
    """The server's VAPID key: the configured one, else the one stored in the database (made
    the first time any node needs it). Read once, then kept; never logged."""

    def __init__(self, db: Database, configured: str | None = None, contact: str = "mailto:felt@localhost") -> None:
        self.db = db
        self.contact = contact
        self._configured = raw_private_key(configured) if configured else None
        self._vapid: Vapid02 | None = None
        self._lock = asyncio.Lock()
        self._tokens: dict[str, tuple[str, float]] = {}  # audience -> (Authorization, until)

    async def vapid(self) -> Vapid02:
        async with self._lock:
            if self._vapid is None:
                raw = self._configured
                if raw is None:
                    raw = await self.db.call(store.server_key, self.db.session, KEY_NAME, new_private_key)
                self._vapid = Vapid02.from_raw(raw.encode())
            return self._vapid

    async def public_key(self) -> str:
        """The applicationServerKey a browser subscribes with: the uncompressed point, base64url."""
        vapid = await self.vapid()
        point = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return b64url(point)

    async def authorization(self, endpoint: str) -> str:
        """The ``Authorization`` header for a request to ``endpoint`` (one token an origin,
        made again an hour before it expires)."""
        audience = origin_of(endpoint)
        now = time.time()
        kept = self._tokens.get(audience)
        if kept is not None and kept[1] > now:
            return kept[0]
        vapid = await self.vapid()
        claims = {"aud": audience, "exp": int(now) + TOKEN_FOR_S, "sub": self.contact}
        header: str = vapid.sign(claims)["Authorization"]
        if len(self._tokens) > 1000:
            self._tokens.clear()
        self._tokens[audience] = (header, now + TOKEN_FOR_S - 3600)
        return header


def encrypt(subscription: store.Subscription, data: bytes) -> bytes:
    """``data`` encrypted to the subscription's keys (aes128gcm, RFC 8291)."""
    info = {"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
    return bytes(WebPusher(info).encode(data, content_encoding="aes128gcm")["body"])


_TOPIC = re.compile(r"[^A-Za-z0-9_-]")


def _host_of(endpoint: str) -> str:
    """The host a push endpoint names (its port aside: one machine is one host)."""
    try:
        return httpx.URL(endpoint).host.lower()
    except (httpx.InvalidURL, ValueError):
        return ""


@dataclass(slots=True)
class _HostSlots:
    """One host's sender slots, and the deliveries holding or awaiting one (gone at none)."""

    free: asyncio.Semaphore
    users: int = 0


class PushChannel:
    """Tells players' subscribed devices of their turns, their clocks, their tables starting
    and their names said in chat (a Notifier channel), unless they watch that table.

    ``offer`` never blocks: a job per event goes on a bounded queue (a full queue drops it);
    the worker asks the database for the subscriptions of the event's players with that kind
    on and starts one delivery per endpoint (a bounded number under way: past it they are
    dropped too). At most ``senders`` requests are sent at once, at most ``senders_per_host``
    of them to one host; a delivery waits for its host's slot before it takes one of all.
    """

    def __init__(
        self,
        db: Database,
        outbound: Outbound,
        keys: VapidKeys,
        queue_size: int = 1000,
        senders: int = 64,
        senders_per_host: int = 8,
        retries: int = 3,
        backoff_s: float = 1.0,
    ) -> None:
        self.db, self.outbound, self.keys = db, outbound, keys
        self.retries, self.backoff_s = retries, backoff_s
        self.queue: asyncio.Queue[tuple[tuple[str, ...], str, Event]] = asyncio.Queue(queue_size)
        self._senders = asyncio.Semaphore(senders)
        self.senders_per_host = senders_per_host
        self._hosts: dict[str, _HostSlots] = {}  # hosts with a delivery sending or waiting to
        self.max_deliveries = 4 * queue_size  # deliveries started and not done (sending or waiting to retry)
        self._deliveries: set[asyncio.Task] = set()
        self._worker: asyncio.Task | None = None
        self.counts = {"sent": 0, "failed": 0, "dropped": 0, "gone": 0}

    def start(self) -> None:
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._run())

    def offer(self, event: Event) -> None:
        kind = kind_of(event)
        if kind is None:
            return
        if isinstance(event, YourTurn | TableStarted):
            players = tuple(p for p in event.players if p not in event.watching)
        else:
            assert isinstance(event, ClockRanOut | Mentioned)
            players = () if event.player_id in event.watching else (event.player_id,)
        if not players:
            return
        try:
            self.queue.put_nowait((players, kind, event))
        except asyncio.QueueFull:
            self._dropped()

    def _dropped(self) -> None:
        self.counts["dropped"] += 1
        if self.counts["dropped"] % 100 == 1:  # the first, then every hundredth
            log.warning("push: too many notifications waiting; %d dropped so far", self.counts["dropped"])

    async def _run(self) -> None:
        while True:
            players, kind, event = await self.queue.get()
            try:
                subscriptions = await self.db.call(self._subscriptions, players, kind)
                for subscription in subscriptions:
                    if len(self._deliveries) >= self.max_deliveries:  # push services far behind
                        self._dropped()
                        continue
                    task = asyncio.get_running_loop().create_task(self._deliver(subscription, event))
                    self._deliveries.add(task)
                    task.add_done_callback(self._deliveries.discard)
            except StoreUnavailable as exc:  # the database is away: this one is lost, the next may pass
                self.counts["failed"] += 1
                log.warning("push: could not read the subscriptions (%s)", type(exc).__name__)
            except Exception:
                self.counts["failed"] += 1
                log.exception("push: could not read the subscriptions")
            finally:
                self.queue.task_done()

    def _subscriptions(self, players: tuple[str, ...], kind: str) -> list[store.Subscription]:
        """The subscriptions to tell, one per endpoint (the first device's, by id): devices
        that gave the same endpoint are one browser, or one receiver, told once."""
        with self.db.session() as session:
            found = store.subscriptions_for(session, players, kind)
        by_endpoint: dict[str, store.Subscription] = {}
        for subscription in found:
            by_endpoint.setdefault(subscription.endpoint, subscription)
        return list(by_endpoint.values())

    async def _deliver(self, subscription: store.Subscription, event: Event) -> None:
        """Send one notification to one device, retrying while the push service fails."""
        body = orjson.dumps(payload(event, subscription.lang))
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(self.backoff_s * 2 ** (attempt - 1))
            async with self._slot(subscription.endpoint):
                status = await self._send(subscription, body, event)
            if status is not None and 200 <= status < 300:
                self.counts["sent"] += 1
                return
            if status in (404, 410):  # the subscription is gone (unsubscribed, expired)
                self.counts["gone"] += 1
                try:
                    await self.db.call(self._drop, subscription)
                except StoreUnavailable:  # dropped on its next 410 instead
                    log.warning("push: a gone subscription could not be dropped now")
                return
            if status is not None and status < 500 and status != 429:
                break  # refused for good (a bad request, a wrong key): retrying will not help
        self.counts["failed"] += 1

    async def _send(self, subscription: store.Subscription, body: bytes, event: Event) -> int | None:
        """The push service's status code, or None when it could not be reached."""
        try:
            authorization = await self.keys.authorization(subscription.endpoint)
        except StoreUnavailable as exc:  # the database (the key's home) is away: try again later
            log.warning("push: no VAPID key to sign with yet (%s)", type(exc).__name__)
            return None
        try:
            content = encrypt(subscription, body)
        except Exception:  # keys the encryption refuses: no retry makes them work
            log.exception("push: a subscription's keys could not be encrypted to")
            return 400
        headers = {
            "Authorization": authorization,
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(TTL_S),
            "Urgency": "high" if isinstance(event, YourTurn) else "normal",
            # A newer message on the same topic replaces one still waiting for the device.
            "Topic": _TOPIC.sub("", f"{kind_of(event)}{event.table}")[:32],
        }
        try:
            reply = await self.outbound.post(subscription.endpoint, content, headers)
        except OutboundRefused:
            return 403  # an endpoint Felt may not send to: not worth a retry
        except (httpx.HTTPError, OSError):
            return None
        return reply.status_code

    @contextlib.asynccontextmanager
    async def _slot(self, endpoint: str) -> AsyncIterator[None]:
        """A sender's slot for a request to ``endpoint``: one of its host's, then one of all."""
        host = _host_of(endpoint)
        slots = self._hosts.get(host)
        if slots is None:
            slots = self._hosts[host] = _HostSlots(asyncio.Semaphore(self.senders_per_host))
        slots.users += 1
        try:
            async with slots.free, self._senders:
                yield
        finally:
            slots.users -= 1
            if not slots.users:
                del self._hosts[host]

    def _drop(self, subscription: store.Subscription) -> None:
        with self.db.session() as session:
            store.drop_endpoint(session, subscription.device_id, subscription.endpoint)

    async def settled(self) -> None:
        """Wait until every job taken so far is delivered or given up."""
        await self.queue.join()
        while self._deliveries:
            await asyncio.gather(*list(self._deliveries), return_exceptions=True)

    async def close(self, grace_s: float = 5.0) -> None:
        """Stop taking jobs; deliveries under way get ``grace_s`` to finish."""
        if self._worker is not None:
            self._worker.cancel()
        pending = list(self._deliveries)
        if pending:
            _, late = await asyncio.wait(pending, timeout=grace_s)
            for task in late:
                task.cancel()
