"""A group's chat hears of its tables: the Notifier channel that posts to groups' webhooks.

What a group's webhook receives: a table of the group opened, whose turn it is at a slow table
of the group (a clock of an hour or more a decision, and only for players not looking at the
table), each finished match's result line, and who changed the group's house rules and how.
Nothing else, and never a card.

Two formats, the owner's choice: ``discord`` (``{"content": text}``, which Discord and the
chats that copied its webhooks take; mentions are switched off, so a player named
``@everyone`` pings nobody) and ``json`` (``{"event", "group", "table", "text", "url"}``).
Links are absolute when the server knows its public address (``FELT_PUBLIC_URL``), else paths.

A dead or hanging webhook never slows a table: ``offer`` only appends to a bounded inbox (the
oldest event is dropped when it is full, and counted); one task reads it, finds each table's
group (cached briefly) and its webhook, and writes the message to the outbox, a table in the
database (``server/storage/outbox.py``): a message queued survives a stop or a crash of the
server, and the next start sends it, its retry schedule kept. A database that is away delays
the messages (the events wait in the inbox), never a table. Each group's messages are sent in
order by a task of the group's own (a lane), so one group's slow chat delays only that group's
messages; a group keeps at most ``lane`` messages in the outbox (the oldest dropped, counted).

Every request goes through ``Outbound`` (the guard against requests to inside addresses) with
its deadline; a failure is tried again after backoff (``backoff_s``, scaled by a setting that
tests shrink), a 429's Retry-After is honoured up to a cap, and the last outcome is stored for
the owner ("last delivery failed: 404"). A webhook URL is a secret: the outbox never holds it
(it and the format are read at each try, so a changed or removed webhook applies), and it is
never logged (a failure is logged by the group's code and the kind of failure only).

Several servers on one database (cluster mode): a node claims a group's first message for one
try (a lease of ``lease_s``), so each message is sent by one node; a node that died mid-try
loses its claim when the lease runs out, and a sweep (every ``sweep_s``) finds what is due and
nobody sends. A message is deleted once delivered: a crash between the chat's answer and the
delete (or a database away at that moment) sends it again, so the chat hears it at least once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import secrets
import socket
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import httpx
import orjson

from server.groups.ledger import side_of
from server.notify.events import Event, MatchFinished, RulesChanged, TableOpened, YourTurn
from server.notify.outbound import Outbound, OutboundRefused
from server.rules.games import get_game
from server.storage import groups, outbox
from server.storage.db import OUTAGE_ERRORS, Database

log = logging.getLogger("felt.notify.webhooks")

FORMATS = ("discord", "json")
SLOW_CLOCK_S = 3600  # a turn is told to the group's chat only at tables this slow or slower
BACKOFF_S = (1.0, 4.0, 16.0)  # the waits before the second, third... try
RETRY_AFTER_MAX_S = 60.0
TRY_DEADLINE_S = 10.0  # a whole try, however slowly a receiver trickles its reply
GROUP_CACHE_S = 60.0
_CACHE_MAX = 10_000  # tables whose group is remembered; forgotten wholesale past it
_UNLINKED_MAX = 256  # opened tables waiting to be told whether they are a group's
LEASE_S = 3 * TRY_DEADLINE_S  # a claim on a message outlasts its try: past it, another node may send it
SWEEP_S = 5.0  # how often the outbox is looked at for messages nobody sends
OUTAGE_WAIT_MAX_S = 30.0  # the longest wait for a database that is away before routing again


@dataclass(frozen=True, slots=True)
class Message:
    """One post to a group's chat."""

    event: str  # "table_open", "your_turn", "match_finished", "rules_changed", "test"
    group: str
    group_name: str
    table: str | None
    text: str
    url: str


def _title(game: str) -> str:
    try:
        return get_game(game).title
    except ValueError:
        return game


def _joined(names: Sequence[str]) -> str:
    return " & ".join(names) if names else "nobody"


def _span(seconds: int) -> str:
    if seconds >= 86_400 and seconds % 86_400 == 0:
        return f"{seconds // 86_400} d"
    if seconds >= 3600:
        return f"{round(seconds / 3600)} h"
    return f"{max(1, round(seconds / 60))} min"


def _seat_name(player: dict[str, Any]) -> str:
    return f"Bot {player['seat'] + 1}" if player.get("bot") else (player.get("name") or "?")


def result_line(record: dict[str, Any]) -> str:
    """A finished match in one line: who won, then the final scores by side, best first.
    ``Oh Hell: Rui won · Rui 23, Ana 18, Bot 3 9``."""
    game, players = record["game"], record.get("players") or []
    scores, won = record.get("scores") or [], set(record.get("winners") or [])
    sides: dict[int, list[str]] = {}
    side_score: dict[int, Any] = {}
    for p in players:
        side = side_of(game, p["seat"], len(players))
        sides.setdefault(side, []).append(_seat_name(p))
        if p["seat"] < len(scores):
            side_score.setdefault(side, scores[p["seat"]])
    winners = [_seat_name(p) for p in players if p["seat"] in won]
    order = sorted(sides, key=lambda s: -(side_score.get(s) or 0))
    table = ", ".join(f"{_joined(sides[s])} {side_score.get(s, '?')}" for s in order)
    return f"{_title(game)}: {_joined(winners)} won · {table}"


def compose(event: Event | RulesChanged, hook: dict[str, Any], base: str) -> Message | None:
    """What ``event`` tells group ``hook['group']``'s chat, with links under ``base`` (the
    server's public address, or "" for paths); None when it tells nothing."""
    group, name = hook["group"], hook["group_name"]
    if isinstance(event, TableOpened):
        text = f"{event.host_name} opened a new {_title(event.game)} table."
        return Message("table_open", group, name, event.table, text, f"{base}/r/{event.table}")
    if isinstance(event, YourTurn):
        away = [n for p, n in zip(event.players, event.names, strict=False) if p not in event.watching]
        if event.clock_s < SLOW_CLOCK_S or not away:
            return None
        title = _title(event.game)
        text = f"{_joined(away)}'s turn at {event.host_name}'s {title} table ({_span(event.clock_s)} to decide)."
        return Message("your_turn", group, name, event.table, text, f"{base}/r/{event.table}")
    if isinstance(event, MatchFinished):
        return Message("match_finished", group, name, event.table, result_line(event.record), f"{base}/g/{group}")
    if isinstance(event, RulesChanged):
        text = f"{event.name} changed the house rules of {_title(event.game)}: {'; '.join(event.changes)}."
        return Message("rules_changed", group, name, None, text, f"{base}/g/{group}")
    return None


def body_of(message: Message, format: str) -> bytes:
    """The request body in the group's chosen format."""
    if format == "discord":
        return orjson.dumps({"content": f"{message.text} {message.url}", "allowed_mentions": {"parse": []}})
    return orjson.dumps(
        {
            "event": message.event,
            "group": {"code": message.group, "name": message.group_name},
            "table": message.table,
            "text": message.text,
            "url": message.url,
        }
    )


def masked(url: str) -> str:
    """A webhook URL as its owner sees it unless they ask for it: the scheme and host, and the
    last four characters (the secret is the rest)."""
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.host}/…{url[-4:]}" if len(url) > 12 else "…"


def retry_after_s(reply: httpx.Response) -> float | None:
    value = reply.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date, or nothing: the usual backoff


class Webhooks:
    """The Notifier channel for groups' webhooks (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        outbound: Outbound,
        public_url: str | None = None,
        backoff_scale: float = 1.0,
        backoff_s: Sequence[float] = BACKOFF_S,
        retry_after_max_s: float = RETRY_AFTER_MAX_S,
        inbox: int = 1000,
        lane: int = 20,
        lanes: int = 256,
        node: str | None = None,
        shared: bool = False,
        lease_s: float = LEASE_S,
        sweep_s: float = SWEEP_S,
    ) -> None:
        """``node`` names this process in the outbox's claims (``shared``: other servers use the
        same database, so only claims that ran out are taken over; else every claim left by an
        earlier process is released at the start)."""
        self.db, self.outbound = db, outbound
        self.base = (public_url or "").rstrip("/")
        self.scale, self.backoff_s, self.retry_after_max_s = backoff_scale, tuple(backoff_s), retry_after_max_s
        self.inbox: deque[Event | RulesChanged] = deque(maxlen=inbox)
        self.lane_max, self.lanes_max = lane, lanes
        self.lanes: dict[str, asyncio.Task] = {}
        # A process of its own name: a node started again under the same name is another process.
        self.node = f"{node or f'{socket.gethostname()}-{os.getpid()}'}/{secrets.token_hex(3)}"[:64]
        self.shared, self.lease_s, self.sweep_s = shared, lease_s, sweep_s
        self.dropped = 0  # events and messages dropped because a queue was full
        self.sent = 0
        self.failed = 0
        self._pending: dict[str, int] = {}  # messages in the outbox, by group, as this node last saw
        self._groups: dict[str, tuple[str | None, float]] = {}
        self._unlinked: OrderedDict[str, TableOpened] = OrderedDict()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._clock: Callable[[], float] = time.monotonic
        self._wall: Callable[[], float] = time.time

    # ---- the channel -----------------------------------------------------------------------

    def start(self, outbox_ready: asyncio.Event | None = None) -> None:
        """Route events from now on; look in the outbox once ``outbox_ready`` is set (the
        schema is brought up after the start)."""
        if not self._tasks:
            loop = asyncio.get_running_loop()
            self._tasks = [loop.create_task(self._dispatch()), loop.create_task(self._sweep(outbox_ready))]

    def offer(self, event: Event | RulesChanged) -> None:
        if isinstance(event, YourTurn) and event.clock_s < SLOW_CLOCK_S:
            return
        if not isinstance(event, TableOpened | YourTurn | MatchFinished | RulesChanged):
            return
        if len(self.inbox) == self.inbox.maxlen:
            self.dropped += 1  # the deque drops the oldest
        self.inbox.append(event)
        self._idle.clear()
        self._wake.set()

    def queued(self) -> int:
        """Events waiting to be routed and messages waiting in the outbox (as last seen)."""
        return len(self.inbox) + sum(self._pending.values())

    def table_linked(self, table: str, group: str) -> None:
        """Table ``table`` was made a table of ``group`` (right after it opened): its opening,
        held until now, goes to the group's chat."""
        self._remember(table, group)
        opened = self._unlinked.pop(table, None)
        if opened is not None:
            self.offer(opened)

    async def close(self, drain_s: float = 2.0) -> None:
        """Stop; the events already offered are first written to the outbox (for ``drain_s`` at
        most), and this process's claims end, so that the next start sends what waits at once."""
        if self._tasks and not self._idle.is_set():
            try:
                await asyncio.wait_for(self._idle.wait(), drain_s)
            except TimeoutError:
                log.warning("webhooks: %d events not written at the stop", len(self.inbox))
        tasks = [*self._tasks, *self.lanes.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks = []
        self.lanes.clear()
        try:
            await self.db.call(self._release, self.node, timeout_s=1.0)
        except Exception as exc:  # noqa: BLE001 - the claims run out by themselves
            log.warning("webhooks: claims not released at the stop (%s)", type(exc).__name__)

    # ---- from events to messages -----------------------------------------------------------

    async def _dispatch(self) -> None:
        while True:
            if not self.inbox:
                self._idle.set()
                await self._wake.wait()
            self._wake.clear()
            while self.inbox:
                await self._route_until_stored(self.inbox.popleft())

    async def _route_until_stored(self, event: Event | RulesChanged) -> None:
        """Route ``event``, again and again while the database is away (the events after it
        wait in the bounded inbox); its message is written once, however often that is tried
        (a write whose answer was lost may have been stored)."""
        key = secrets.token_hex(16)
        for outages in itertools.count(1):
            try:
                await self._route(event, key)
                return
            except OUTAGE_ERRORS as exc:
                log.warning("webhooks: the database is away, events wait (%s)", type(exc).__name__)
                await asyncio.sleep(min(OUTAGE_WAIT_MAX_S, 0.25 * 2**outages))
            except Exception as exc:  # noqa: BLE001 - the next event still goes out
                log.warning("webhooks: an event was not routed (%s)", type(exc).__name__)
                return

    async def _route(self, event: Event | RulesChanged, key: str) -> None:
        group = event.group if isinstance(event, RulesChanged) else await self._group_of(event.table)
        if group is None:
            if isinstance(event, TableOpened):  # perhaps a group's, linked in a moment
                self._unlinked[event.table] = event
                while len(self._unlinked) > _UNLINKED_MAX:
                    self._unlinked.popitem(last=False)
            return
        hook = await self.db.call(self._read_hook, group)
        if hook is None:
            return
        message = compose(event, hook, self.base)
        if message is not None:
            count, dropped = await self.db.call(self._put, message, key)
            self._pending[group] = count
            self.dropped += dropped
            self._lane(group)

    def _read_hook(self, group: str) -> dict[str, Any] | None:
        with self.db.session() as session:
            return groups.webhook_of(session, group)

    async def _group_of(self, table: str) -> str | None:
        now = self._clock()
        hit = self._groups.get(table)
        if hit is not None and hit[1] > now:
            return hit[0]

        def read() -> str | None:
            with self.db.session() as session:
                return groups.group_of_table(session, table)

        found = await self.db.call(read)
        hit = self._groups.get(table)
        if found is None and hit is not None and hit[0] is not None:
            return hit[0]  # linked while the database was asked
        self._remember(table, found)
        return found

    def _remember(self, table: str, group: str | None) -> None:
        if len(self._groups) >= _CACHE_MAX and table not in self._groups:
            self._groups.clear()
        self._groups[table] = (group, self._clock() + GROUP_CACHE_S)

    # ---- the outbox ------------------------------------------------------------------------

    def _put(self, message: Message, key: str) -> tuple[int, int]:
        with self.db.session() as session:
            return outbox.put(session, message.group, asdict(message), self._wall(), self.lane_max, key)

    def _claim(self, group: str) -> outbox.Pending | float | None:
        with self.db.session() as session:
            return outbox.claim(session, group, self.node, self._wall(), self.lease_s)

    def _done(self, pending: outbox.Pending) -> None:
        with self.db.session() as session:
            outbox.done(session, pending, self.node)

    def _later(self, pending: outbox.Pending, wait_s: float) -> None:
        with self.db.session() as session:
            outbox.later(session, pending, self.node, self._wall() + wait_s)

    def _due(self) -> list[str]:
        with self.db.session() as session:
            return outbox.due_groups(session, self._wall(), self.lanes_max)

    def _release(self, node: str | None) -> int:
        with self.db.session() as session:
            return outbox.release(session, node)

    def _release_earlier(self) -> int:
        """A single server's earlier processes are gone: their claims end now."""
        with self.db.session() as session:
            return outbox.release(session, None, but=self.node)

    async def _sweep(self, ready: asyncio.Event | None) -> None:
        """Look in the outbox for groups with a message due that nobody sends: what an earlier
        process left (at the start), what another node queued or gave up the claim of."""
        if ready is not None:
            await ready.wait()
        released = self.shared
        while True:
            try:
                if not released:
                    await self.db.call(self._release_earlier)
                    released = True
                for group in await self.db.call(self._due):
                    self._lane(group)
                await asyncio.sleep(self.sweep_s)
            except Exception as exc:  # noqa: BLE001 - the next look still comes
                log.warning("webhooks: the outbox was not read (%s)", type(exc).__name__)
                await asyncio.sleep(min(self.sweep_s, 1.0))

    # ---- sending ---------------------------------------------------------------------------

    def _lane(self, group: str) -> None:
        """The group's messages are sent, in order, by a task of the group's own."""
        if group in self.lanes or len(self.lanes) >= self.lanes_max:
            return  # a full house: the sweep starts the lane later
        self.lanes[group] = asyncio.get_running_loop().create_task(self._drain(group))

    async def _drain(self, group: str) -> None:
        try:
            while True:
                got = await self.db.call(self._claim, group)
                if got is None:
                    self._pending.pop(group, None)
                    return
                if isinstance(got, float):
                    if got <= 0:  # another node sends the group's first message; the sweep looks again
                        self._pending.pop(group, None)  # and that node counts them meanwhile
                        return
                    await asyncio.sleep(min(got, self.sweep_s))  # another node may try it meanwhile
                    continue
                await self._send(got)
        except Exception as exc:  # noqa: BLE001 - the message waits in the outbox for the sweep
            log.warning("webhook of group %s: sending paused (%s)", group, type(exc).__name__)
        finally:
            if self.lanes.get(group) is asyncio.current_task():
                del self.lanes[group]

    async def _send(self, pending: outbox.Pending) -> None:
        """One try of a claimed message, to the group's webhook as it is now."""
        group = pending.group
        hook = await self.db.call(self._read_hook, group)
        if hook is None:  # the webhook was removed: nobody to tell
            await self.db.call(self._done, pending)
            self._forget_one(group)
            return
        body = body_of(Message(**pending.message), hook["format"])
        failure, wait = await self._try(hook["url"], body, pending.tries)
        if failure is not None and wait is not None and pending.tries + 1 < len(self.backoff_s) + 1:
            await self.db.call(self._later, pending, wait)
            return
        await self.db.call(self._done, pending)
        self._forget_one(group)
        await self._outcome(group, hook["url"], failure)

    def _forget_one(self, group: str) -> None:
        if self._pending.get(group):
            self._pending[group] -= 1

    async def deliver(self, group: str, url: str, body: bytes, tries: int | None = None) -> str | None:
        """Send ``body`` to ``url`` now (not through the outbox: a test the owner waits for),
        trying again after failures that may pass; the outcome is stored for the owner. None
        when delivered, else the last failure ("404", "timeout"...)."""
        tries = len(self.backoff_s) + 1 if tries is None else tries
        failure: str | None = None
        for attempt in range(tries):
            failure, wait = await self._try(url, body, attempt)
            if failure is None or wait is None or attempt + 1 >= tries:
                break
            await asyncio.sleep(wait)
        await self._outcome(group, url, failure)
        return failure

    async def _outcome(self, group: str, url: str, failure: str | None) -> None:
        """A message delivered (``failure`` None) or given up on: counted, and stored for the owner."""
        if failure is None:
            self.sent += 1
        else:
            self.failed += 1
            log.info("webhook of group %s: delivery failed (%s)", group, failure)
        try:
            await self.db.call(self._record, group, url, failure)
        except Exception as exc:  # noqa: BLE001 - an outcome not stored is only that
            log.warning("webhook of group %s: outcome not stored (%s)", group, type(exc).__name__)

    def _record(self, group: str, url: str, failure: str | None) -> None:
        with self.db.session() as session:
            groups.record_delivery(session, group, url, failure)

    async def _try(self, url: str, body: bytes, attempt: int) -> tuple[str | None, float | None]:
        """One request: (None, None) delivered; (failure, None) not worth trying again;
        (failure, seconds) try again after that long."""
        backoff = self.backoff_s[min(attempt, len(self.backoff_s) - 1)] * self.scale
        headers = {"Content-Type": "application/json", "User-Agent": "Felt-Webhook"}
        try:
            reply = await asyncio.wait_for(self.outbound.post(url, body, headers), TRY_DEADLINE_S)
        except OutboundRefused:
            return "refused", None
        except (httpx.TimeoutException, TimeoutError):
            return "timeout", backoff
        except httpx.TooManyRedirects:
            return "redirects", None
        except httpx.HTTPError:
            return "unreachable", backoff
        except Exception as exc:  # noqa: BLE001 - anything else (the message may hold the URL)
            return type(exc).__name__[:64], None
        status = reply.status_code
        if 200 <= status < 300:
            return None, None
        if status == 429:
            after = retry_after_s(reply)
            return "429", backoff if after is None else min(after, self.retry_after_max_s) * self.scale
        if status >= 500 or status == 408:
            return str(status), backoff
        return str(status), None  # the chat says the URL is wrong: trying again will not help

    def test_message(self, group: str, group_name: str) -> Message:
        text = f"Felt: this chat will hear of the tables of {group_name}."
        return Message("test", group, group_name, None, text, f"{self.base}/g/{group}")
