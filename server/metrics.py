"""Prometheus metrics: what an operator watches, served as text at ``GET /metrics``.

Counted where things happen (sockets, action latency, refusals, database errors at the
edges) and read at scrape time where they already are (rooms by state, actions applied,
the storage writer's backlog and failed writes), so the room code carries no metrics library.
Each app has its own registry: several apps in one process (tests) never collide.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric

# From half a millisecond (a bare move) to a second (a room stuck behind something).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
ROOM_STATES = ("waiting", "playing", "finished")


class _Live:
    """A collector reading the app's rooms and storage writer at scrape time."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        state = self.metrics.app_state
        rooms = getattr(state, "rooms", None)
        writer = getattr(state, "writer", None)
        by_state = GaugeMetricFamily("felt_rooms", "Open rooms by state.", labels=["state"])
        tally = Tally(r.status for r in list(rooms.rooms.values()) if not r.closed) if rooms else Tally()
        for name in ROOM_STATES:
            by_state.add_metric([name], tally.get(name, 0))
        yield by_state
        yield CounterMetricFamily(
            "felt_actions_applied",
            "Actions applied to games (players and bots).",
            value=getattr(rooms, "actions_applied", 0),
        )
        yield GaugeMetricFamily(
            "felt_writer_backlog",
            "Table log entries and finished matches not yet durable.",
            value=writer.pending if writer is not None else 0,
        )
        yield GaugeMetricFamily(
            "felt_writer_spooled",
            "1 while writes wait in the local spool for the database.",
            value=1 if writer is not None and writer.spooled else 0,
        )
        yield GaugeMetricFamily(
            "felt_writer_outage",
            "1 while the database is unreachable and changes are refused (cluster mode: no spool).",
            value=1 if writer is not None and writer.outage else 0,
        )
        yield from _garbage_collection(getattr(state, "collector", None))
        errors = CounterMetricFamily(
            "felt_database_errors",
            "Database operations that failed (requests and the writer's batches).",
            labels=["where"],
        )
        errors.add_metric(["request"], self.metrics.database_errors)
        errors.add_metric(["writer"], getattr(writer, "failures", 0))
        yield errors
        yield CounterMetricFamily(
            "felt_recap_images_drawn",
            "Night recap images drawn (in the worker processes; a cached one is not drawn again).",
            value=getattr(getattr(state, "recap_painters", None), "drawn", 0),
        )
        yield from _webhooks(getattr(state, "webhooks", None))
        yield _push_messages(state)


def _garbage_collection(tender: Any) -> Iterator[Metric]:
    """The full collections the server's collector tender made, and what they walk."""
    yield GaugeMetricFamily(
        "felt_gc_frozen_objects",
        "Objects kept out of the collector's sight (gc.freeze) after the last full collection: "
        "the heap the next one walks, grown since by what the process has kept.",
        value=tender.frozen_after_full if tender is not None else 0,
    )
    yield CounterMetricFamily(
        "felt_gc_full_collections",
        "Full collections (the one pause that walks the whole heap).",
        value=tender.full_passes if tender is not None else 0,
    )
    yield GaugeMetricFamily(
        "felt_gc_last_full_seconds",
        "How long the last full collection held the event loop.",
        value=tender.last_full_s if tender is not None else 0,
    )


def _webhooks(webhooks: Any) -> Iterator[Metric]:
    """Groups' webhooks: what went out, what failed after its tries, what a full queue dropped."""
    deliveries = CounterMetricFamily(
        "felt_webhook_deliveries", "Webhook messages delivered or given up on.", labels=["outcome"]
    )
    deliveries.add_metric(["sent"], getattr(webhooks, "sent", 0))
    deliveries.add_metric(["failed"], getattr(webhooks, "failed", 0))
    yield deliveries
    yield CounterMetricFamily(
        "felt_webhook_dropped",
        "Webhook events and messages dropped because their queue was full (the oldest go first).",
        value=getattr(webhooks, "dropped", 0),
    )
    yield GaugeMetricFamily(
        "felt_webhook_queued",
        "Webhook events and messages waiting to be sent.",
        value=webhooks.queued() if webhooks is not None else 0,
    )


class Metrics:
    """One app's metrics."""

    def __init__(self, app_state: Any) -> None:
        self.app_state = app_state
        self.registry = CollectorRegistry(auto_describe=True)
        self.database_errors = 0
        self.sockets = Gauge("felt_sockets_open", "Open room WebSockets.", registry=self.registry)
        self.action_seconds = Histogram(
            "felt_action_seconds",
            "From an action's frame in to every frame it causes queued.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.refusals = Counter(
            "felt_refusals",
            "Refused requests and frames, by edge and error code.",
            labelnames=("edge", "code"),
            registry=self.registry,
        )
        self.registry.register(_Live(self))

    def refused(self, edge: str, code: str) -> None:
        self.refusals.labels(edge, code).inc()

    def render(self) -> tuple[bytes, str]:
        """The text exposition and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


def _push_messages(state: Any) -> CounterMetricFamily:
    push = getattr(state, "push", None)
    pushed = CounterMetricFamily(
        "felt_push_messages",
        "Web Push messages by outcome: sent, failed (given up), dropped (too many waiting), gone (404/410).",
        labels=["outcome"],
    )
    for outcome, count in (push.counts if push is not None else {}).items():
        pushed.add_metric([outcome], count)
    return pushed
