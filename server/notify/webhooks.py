"""A group's chat hears of its tables: the Notifier channel that posts to groups' webhooks.

What a group's webhook receives: a table of the group opened, whose turn it is at a slow table
of the group (a clock of an hour or more a decision, and only for players not looking at the
table), each finished match's result line, and who changed the group's house rules and how.
Nothing else, and never a card.

Two formats, the owner's choice: ``discord`` (``{"content": text}``, which Discord and the
chats that copied its webhooks take) and ``json`` (``{"event", "group", "table", "text",
"url"}``). A message keeps what people wrote (player and group names) apart from Felt's own
words, and each format writes it so that the chat shows it as it was typed: in ``discord``
every ASCII punctuation mark in it is escaped with a backslash, so a name is never markdown, a
masked link (``[Win](https://evil.io)``), a mention (``@everyone``, ``<@id>``), an emoji or a
link, and mentions are switched off besides; ``json`` is data, not markup: its text is plain.
Links are absolute when the server knows its public address (``FELT_PUBLIC_URL``), else paths.

Every message waits in the outbox, a table in the database (``server/storage/outbox.py``): a
message queued survives a stop or a crash of the server, and the next start sends it, its
retry schedule kept. A table's opening is the answer to a request: it is written in the very
transaction that makes the table the group's (``announce``), so a table whose opening was
acknowledged always has its message kept. A table's own events (turns, results) never wait for
the database: ``offer`` only appends to a bounded inbox (the oldest event is dropped when it is
full, and counted); one task reads it, finds each table's group (cached briefly) and its
webhook, and writes the message to the outbox. A database that is away delays those messages
(the events wait in the inbox), never a table. Each group's messages are sent in
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
import re
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from server.games import get_game
from server.groups.ledger import side_of
from server.log_entry import StoreUnavailable
from server.notify.events import Event, MatchFinished, RulesChanged, TableOpened, YourTurn
from server.notify.outbound import Outbound, OutboundRefused
from server.storage import groups, outbox
from server.storage.db import Database

if TYPE_CHECKING:
    from server.storage.db import Session

log = logging.getLogger("felt.notify.webhooks")

FORMATS = ("discord", "json")
SLOW_CLOCK_S = 3600  # a turn is told to the group's chat only at tables this slow or slower
BACKOFF_S = (1.0, 4.0, 16.0)  # the waits before the second, third... try
RETRY_AFTER_MAX_S = 60.0
TRY_DEADLINE_S = 10.0  # a whole try, however slowly a receiver trickles its reply
GROUP_CACHE_S = 60.0
_CACHE_MAX = 10_000  # tables whose group is remembered; forgotten wholesale past it
LEASE_S = 3 * TRY_DEADLINE_S  # a claim on a message outlasts its try: past it, another node may send it
SWEEP_S = 5.0  # how often the outbox is looked at for messages nobody sends
OUTAGE_WAIT_MAX_S = 30.0  # the longest wait for a database that is away before routing again


@dataclass(frozen=True, slots=True)
class Message:
    """One post to a group's chat. ``said`` is ``text`` in parts, Felt's words and people's in
    turn (even places Felt's, odd ones a name), for the formats that escape people's words;
    a message queued without them has every word escaped."""

    event: str  # "table_open", "your_turn", "match_finished", "rules_changed", "test"
    group: str
    group_name: str
    table: str | None
    text: str
    url: str
    said: Sequence[str] = field(default=())


class Said:
    """A message's text as it is put together: Felt's words (``ours``) and what people wrote
    (``theirs``: names), kept apart."""

    def __init__(self) -> None:
        self.parts: list[str] = [""]

    def ours(self, text: str) -> Said:
        if len(self.parts) % 2 == 0:
            self.parts.append("")
        self.parts[-1] += text
        return self

    def theirs(self, text: str) -> Said:
        if len(self.parts) % 2 == 1:
            self.parts.append("")
        self.parts[-1] += text
        return self

    def extend(self, other: Said) -> Said:
        for i, part in enumerate(other.parts):
            (self.theirs if i % 2 else self.ours)(part)
        return self

    def text(self) -> str:
        return "".join(self.parts)


_DISCORD_MARKUP = re.compile(r"[!-/:-@\[-`{-~]")  # every ASCII punctuation mark


def discord_escaped(text: str) -> str:
    """``text`` as Discord shows it, letter for letter: a backslash before each punctuation mark
    (Discord's markdown shows the mark itself), so no markup, mention, emoji or link is made."""
    return _DISCORD_MARKUP.sub(lambda m: "\\" + m.group(), text)


def discord_text(message: Message) -> str:
    """The message's text for Discord: Felt's words as they are, people's escaped."""
    if not message.said:
        return discord_escaped(message.text)
    return "".join(part if i % 2 == 0 else discord_escaped(part) for i, part in enumerate(message.said))


def _title(game: str) -> str:
    try:
        return get_game(game).title
    except ValueError:
        return game


def _joined(names: Sequence[Said]) -> Said:
    said = Said()
    for i, name in enumerate(names):
        if i:
            said.ours(" & ")
        said.extend(name)
    return said if names else said.ours("nobody")


def _span(seconds: int) -> str:
    if seconds >= 86_400 and seconds % 86_400 == 0:
        return f"{seconds // 86_400} d"
    if seconds >= 3600:
        return f"{round(seconds / 3600)} h"
    return f"{max(1, round(seconds / 60))} min"


def _seat_name(player: dict[str, Any]) -> Said:
    if player.get("bot"):
        return Said().ours(f"Bot {player['seat'] + 1}")
    return Said().theirs(player.get("name") or "?")


def result_said(record: dict[str, Any]) -> Said:
    """A finished match in one line: who won, then the final scores by side, best first.
    ``Oh Hell: Rui won · Rui 23, Ana 18, Bot 3 9``."""
    game, players = record["game"], record.get("players") or []
    scores, won = record.get("scores") or [], set(record.get("winners") or [])
    sides: dict[int, list[dict[str, Any]]] = {}
    side_score: dict[int, Any] = {}
    for p in players:
        side = side_of(game, p["seat"], len(players))
        sides.setdefault(side, []).append(p)
        if p["seat"] < len(scores):
            side_score.setdefault(side, scores[p["seat"]])
    winners = _joined([_seat_name(p) for p in players if p["seat"] in won])
    said = Said().ours(f"{_title(game)}: ").extend(winners).ours(" won · ")
    for i, side in enumerate(sorted(sides, key=lambda s: -(side_score.get(s) or 0))):
        if i:
            said.ours(", ")
        said.extend(_joined([_seat_name(p) for p in sides[side]])).ours(f" {side_score.get(side, '?')}")
    return said


def result_line(record: dict[str, Any]) -> str:
    """``result_said`` as plain text."""
    return result_said(record).text()


def _message(event: str, hook: dict[str, Any], table: str | None, said: Said, url: str) -> Message:
    return Message(event, hook["group"], hook["group_name"], table, said.text(), url, tuple(said.parts))


def compose(event: Event | RulesChanged, hook: dict[str, Any], base: str) -> Message | None:
    """What ``event`` tells group ``hook['group']``'s chat, with links under ``base`` (the
    server's public address, or "" for paths); None when it tells nothing."""
    if isinstance(event, TableOpened):
        said = Said().theirs(event.host_name).ours(f" opened a new {_title(event.game)} table.")
        return _message("table_open", hook, event.table, said, f"{base}/r/{event.table}")
    if isinstance(event, YourTurn):
        away = [n for p, n in zip(event.players, event.names, strict=False) if p not in event.watching]
        if event.clock_s < SLOW_CLOCK_S or not away:
            return None
        said = _joined([Said().theirs(n) for n in away]).ours("'s turn at ").theirs(event.host_name)
        said.ours(f"'s {_title(event.game)} table ({_span(event.clock_s)} to decide).")
        return _message("your_turn", hook, event.table, said, f"{base}/r/{event.table}")
    if isinstance(event, MatchFinished):
        return _message("match_finished", hook, event.table, result_said(event.record), f"{base}/g/{hook['group']}")
    if isinstance(event, RulesChanged):
        said = Said().theirs(event.name).ours(f" changed the house rules of {_title(event.game)}: ")
        said.ours("; ".join(event.changes) + ".")
        return _message("rules_changed", hook, None, said, f"{base}/g/{hook['group']}")
    return None


def body_of(message: Message, format: str) -> bytes:
    """The request body in the group's chosen format."""
    if format == "discord":
        content = f"{discord_text(message)} {message.url}"
        return orjson.dumps({"content": content, "allowed_mentions": {"parse": []}})
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
        self.inbox: deque[Event] = deque(maxlen=inbox)
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

    def offer(self, event: Event) -> None:
        """A table's event (a slow turn, a result); a table's opening and a change of a group's
        house rules are not taken here: each is written with the change that causes it
        (``announce``)."""
        if isinstance(event, YourTurn) and event.clock_s < SLOW_CLOCK_S:
            return
        if not isinstance(event, YourTurn | MatchFinished):
            return
        if len(self.inbox) == self.inbox.maxlen:
            self.dropped += 1  # the deque drops the oldest
        self.inbox.append(event)
        self._idle.clear()
        self._wake.set()

    def queued(self) -> int:
        """Events waiting to be routed and messages waiting in the outbox (as last seen)."""
        return len(self.inbox) + sum(self._pending.values())

    def announce(self, session: Session, news: TableOpened | RulesChanged, group: str) -> tuple[int, int] | None:
        """Queue ``news`` for ``group``'s chat in ``session``'s transaction, the one that makes
        the change it tells (a table made the group's, its house rules changed): the change and
        its message are stored together or not at all.
        Runs in a database thread; (messages now queued, messages dropped), or None when the
        group has no webhook. ``announced`` follows once the transaction is committed."""
        hook = groups.webhook_of(session, group)
        message = None if hook is None else compose(news, hook, self.base)
        if message is None:
            return None
        return outbox.put(session, group, asdict(message), self._wall(), self.lane_max)

    def announced(self, table: str | None, group: str, queued: tuple[int, int] | None) -> None:
        """What ``announce`` said was committed: table ``table`` (if any) is a table of
        ``group``, and the group's lane sends what was ``queued``."""
        if table is not None:
            self._remember(table, group)
        if queued is not None:
            self._pending[group], dropped = queued
            self.dropped += dropped
            self._lane(group)

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

    async def _route_until_stored(self, event: Event) -> None:
        """Route ``event``, again and again while the database is away (the events after it
        wait in the bounded inbox); its message is written once, however often that is tried
        (a write whose answer was lost may have been stored)."""
        key = secrets.token_hex(16)
        for outages in itertools.count(1):
            try:
                await self._route(event, key)
                return
            except StoreUnavailable as exc:
                log.warning("webhooks: the database is away, events wait (%s)", type(exc).__name__)
                await asyncio.sleep(min(OUTAGE_WAIT_MAX_S, 0.25 * 2**outages))
            except Exception as exc:  # noqa: BLE001 - the next event still goes out
                log.warning("webhooks: an event was not routed (%s)", type(exc).__name__)
                return

    async def _route(self, event: Event, key: str) -> None:
        group = await self._group_of(event.table)
        if group is None:
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
        said = Said().ours("Felt: this chat will hear of the tables of ").theirs(group_name).ours(".")
        hook = {"group": group, "group_name": group_name}
        return _message("test", hook, None, said, f"{self.base}/g/{group}")
