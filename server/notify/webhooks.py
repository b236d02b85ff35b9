"""A group's chat hears of its tables: the Notifier channel that posts to groups' webhooks.

What a group's webhook receives: a table of the group opened, whose turn it is at a slow table
of the group (a clock of an hour or more a decision, and only for players not looking at the
table), and each finished match's result line. Nothing else, and never a card.

Two formats, the owner's choice: ``discord`` (``{"content": text}``, which Discord and the
chats that copied its webhooks take; mentions are switched off, so a player named
``@everyone`` pings nobody) and ``json`` (``{"event", "group", "table", "text", "url"}``).
Links are absolute when the server knows its public address (``FELT_PUBLIC_URL``), else paths.

A dead or hanging webhook never slows a table: ``offer`` only appends to a bounded inbox (the
oldest event is dropped when it is full, and counted); one task reads it, finds each table's
group (cached briefly) and its webhook, and hands the message to the group's own lane, a
bounded queue with its own task, so one group's slow chat delays only that group's messages.
Every request goes through ``Outbound`` (the guard against requests to inside addresses) with
its deadline; a failure is tried again after backoff (``backoff_s``, scaled by a setting that
tests shrink), a 429's Retry-After is honoured up to a cap, and the last outcome is stored for
the owner ("last delivery failed: 404"). A webhook URL is a secret: it is never logged (a
failure is logged by the group's code and the kind of failure only).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from server.groups.ledger import side_of
from server.notify.events import Event, MatchFinished, TableOpened, YourTurn
from server.notify.outbound import Outbound, OutboundRefused
from server.rules.games import get_game
from server.storage import groups
from server.storage.db import Database

log = logging.getLogger("felt.notify.webhooks")

FORMATS = ("discord", "json")
SLOW_CLOCK_S = 3600  # a turn is told to the group's chat only at tables this slow or slower
BACKOFF_S = (1.0, 4.0, 16.0)  # the waits before the second, third... try
RETRY_AFTER_MAX_S = 60.0
TRY_DEADLINE_S = 10.0  # a whole try, however slowly a receiver trickles its reply
GROUP_CACHE_S = 60.0
_CACHE_MAX = 10_000  # tables whose group is remembered; forgotten wholesale past it
_UNLINKED_MAX = 256  # opened tables waiting to be told whether they are a group's


@dataclass(frozen=True, slots=True)
class Message:
    """One post to a group's chat."""

    event: str  # "table_open", "your_turn", "match_finished", "test"
    group: str
    group_name: str
    table: str | None
    text: str
    url: str


@dataclass(slots=True)
class _Lane:
    """A group's messages waiting to be sent, in order, by the lane's own task."""

    queue: deque = field(default_factory=deque)
    task: asyncio.Task | None = None


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


def compose(event: Event, hook: dict[str, Any], base: str) -> Message | None:
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
    ) -> None:
        self.db, self.outbound = db, outbound
        self.base = (public_url or "").rstrip("/")
        self.scale, self.backoff_s, self.retry_after_max_s = backoff_scale, tuple(backoff_s), retry_after_max_s
        self.inbox: deque[Event] = deque(maxlen=inbox)
        self.lane_max, self.lanes_max = lane, lanes
        self.lanes: dict[str, _Lane] = {}
        self.dropped = 0  # events and messages dropped because a queue was full
        self.sent = 0
        self.failed = 0
        self._groups: dict[str, tuple[str | None, float]] = {}
        self._unlinked: OrderedDict[str, TableOpened] = OrderedDict()
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._clock: Callable[[], float] = time.monotonic

    # ---- the channel -----------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._dispatch())

    def offer(self, event: Event) -> None:
        if isinstance(event, YourTurn) and event.clock_s < SLOW_CLOCK_S:
            return
        if not isinstance(event, TableOpened | YourTurn | MatchFinished):
            return
        if len(self.inbox) == self.inbox.maxlen:
            self.dropped += 1  # the deque drops the oldest
        self.inbox.append(event)
        self._wake.set()

    def queued(self) -> int:
        """Events and messages waiting (a message being sent is not counted)."""
        return len(self.inbox) + sum(len(lane.queue) for lane in self.lanes.values())

    def table_linked(self, table: str, group: str) -> None:
        """Table ``table`` was made a table of ``group`` (right after it opened): its opening,
        held until now, goes to the group's chat."""
        self._remember(table, group)
        opened = self._unlinked.pop(table, None)
        if opened is not None:
            self.offer(opened)

    async def close(self) -> None:
        tasks = [t for t in [self._task, *(lane.task for lane in self.lanes.values())] if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._task = None
        self.lanes.clear()

    # ---- from events to messages -----------------------------------------------------------

    async def _dispatch(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.inbox:
                event = self.inbox.popleft()
                try:
                    await self._route(event)
                except Exception as exc:  # noqa: BLE001 - the next event still goes out
                    log.warning("webhooks: an event was not routed (%s)", type(exc).__name__)

    async def _route(self, event: Event) -> None:
        group = await self._group_of(event.table)
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
            self._enqueue(message, hook)

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

    # ---- sending ---------------------------------------------------------------------------

    def _enqueue(self, message: Message, hook: dict[str, Any]) -> None:
        lane = self.lanes.get(message.group)
        if lane is None:
            if len(self.lanes) >= self.lanes_max:
                self.dropped += 1
                return
            lane = self.lanes[message.group] = _Lane(deque(maxlen=self.lane_max))
        if len(lane.queue) == lane.queue.maxlen:
            self.dropped += 1
        lane.queue.append((message, hook["url"], hook["format"]))
        if lane.task is None:
            lane.task = asyncio.get_running_loop().create_task(self._drain(message.group, lane))

    async def _drain(self, group: str, lane: _Lane) -> None:
        try:
            while lane.queue:
                message, url, format = lane.queue.popleft()
                try:
                    await self.deliver(group, url, body_of(message, format))
                except Exception as exc:  # noqa: BLE001 - the next message still goes out
                    log.warning("webhook of group %s: a message was lost (%s)", group, type(exc).__name__)
        finally:
            if self.lanes.get(group) is lane:
                del self.lanes[group]

    async def deliver(self, group: str, url: str, body: bytes, tries: int | None = None) -> str | None:
        """Send ``body`` to ``url``, trying again after failures that may pass; the outcome is
        stored for the owner. None when delivered, else the last failure ("404", "timeout"...)."""
        tries = len(self.backoff_s) + 1 if tries is None else tries
        failure: str | None = None
        for attempt in range(tries):
            failure, wait = await self._try(url, body, attempt)
            if failure is None or wait is None or attempt + 1 >= tries:
                break
            await asyncio.sleep(wait)
        if failure is None:
            self.sent += 1
        else:
            self.failed += 1
            log.info("webhook of group %s: delivery failed (%s)", group, failure)
        try:
            await self.db.call(self._record, group, url, failure)
        except Exception as exc:  # noqa: BLE001 - an outcome not stored is only that
            log.warning("webhook of group %s: outcome not stored (%s)", group, type(exc).__name__)
        return failure

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
