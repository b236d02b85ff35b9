"""Configuration: one Settings class, the only reader of the environment."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


def normalize_database_url(url: str) -> str:
    """Pick the SQLAlchemy driver for plain URLs: sqlite stays, postgresql gets psycopg."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


class Settings(BaseSettings):
    """Everything Felt reads from its environment, with defaults that run out of the box."""

    model_config = SettingsConfigDict(env_prefix="FELT_", extra="ignore", populate_by_name=True)

    database_url: str = Field(
        default="sqlite:///felt.db",
        validation_alias=AliasChoices("DATABASE_URL", "FELT_DATABASE_URL"),
        description="SQLAlchemy URL; a SQLite file in the working folder by default.",
    )
    host: str = Field(default="127.0.0.1", validation_alias=AliasChoices("HOST", "FELT_HOST"))
    port: int = Field(default=8000, validation_alias=AliasChoices("PORT", "FELT_PORT"))
    log_level: str = "info"
    web_dir: Path = ROOT / "web"

    bot_delay_ms: int = Field(default=700, ge=0, description="How long a bot waits before acting.")
    bot_think_ms: float = Field(
        default=150.0, gt=0, description="A Strong bot's time budget per decision, on top of the bot delay."
    )
    bot_workers: int = Field(
        default=1, ge=1, description="Worker processes that run Strong bots' searches off the event loop."
    )
    reconnect_grace_s: float = Field(
        default=30.0, ge=0, description="How long a dropped player's seat waits before a bot plays it."
    )
    turn_timer_scale: float = Field(
        default=1.0, gt=0, le=1.0, description="Multiplies every table's turn timer (tests use a small value)."
    )
    slow_clock_poll_s: float = Field(
        default=30.0,
        gt=0,
        description="How often the store is asked for slow clocks (hours or days a decision) that ran out "
        "while their table was parked or no server ran: each fires that late at most.",
    )
    max_slow_tables_per_player: int = Field(
        default=30, ge=1, description="Slow tables (a clock of an hour or more a decision) a player may sit at."
    )
    outbound_allow_private: bool = Field(
        default=False,
        description="Let webhooks and push endpoints reach loopback and private addresses (tests only).",
    )
    outbound_allow_networks: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Private networks (comma-separated, e.g. 10.1.2.0/24) webhooks may reach all the same.",
    )
    public_url: str | None = Field(
        default=None,
        description="The server's public address (e.g. https://cards.example.org): links sent to chats and "
        "devices are absolute with it, paths without it.",
    )
    webhook_backoff_scale: float = Field(
        default=1.0,
        gt=0,
        le=1.0,
        description="Multiplies every wait between a webhook's tries (1 s, 4 s, 16 s) and a 429's Retry-After "
        "(tests use a small value).",
    )
    webhook_queue: int = Field(
        default=1000, ge=1, description="Events waiting for groups' webhooks; past it the oldest is dropped."
    )
    vapid_private_key: SecretStr | None = Field(
        default=None,
        description="The VAPID key Web Push requests are signed with (base64url of the P-256 private key, "
        "or a PEM document); unset, one is made once and kept in the database for every node.",
    )
    push_contact: str = Field(
        default="mailto:felt@localhost",
        pattern=r"^(mailto:.+@.+|https://.+)$",
        description="How a push service may reach the server's operator (a mailto: or https: URL, in "
        "every VAPID token).",
    )
    push_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long one Web Push request may take, its whole reply included, before it is retried.",
    )
    push_senders: int = Field(default=64, ge=1, description="Web Push requests sent at once, in all.")
    push_senders_per_host: int = Field(
        default=8, ge=1, description="Web Push requests sent at once to one push service host."
    )
    max_devices_per_player: int = Field(
        default=20, ge=1, description="Devices (not signed out) a player may have; a further one is refused."
    )
    max_push_subscriptions_per_player: int = Field(
        default=10, ge=1, description="A player's devices subscribed to Web Push at once; a further one is refused."
    )
    room_idle_close_s: float = Field(
        default=900.0, gt=0, description="A table nobody has been connected to for this long is parked."
    )
    finished_room_close_s: float = Field(
        default=3600.0, gt=0, description="How long a finished room stays open for its players."
    )
    max_frame_bytes: int = Field(default=4096, ge=256, description="Largest WebSocket frame accepted.")
    max_frames_per_second: float = Field(default=20.0, gt=0, description="Sustained frames a connection may send.")
    frame_burst: int = Field(default=40, ge=10, description="Frames a connection may send in a burst.")
    max_bad_frames: int = Field(default=3, ge=1, description="Bad frames in a row before a socket is closed (1008).")
    chat_max_chars: int = Field(default=300, ge=1)
    chat_history: int = Field(default=50, ge=1)
    chat_per_minute: int = Field(default=20, ge=1, description="Chat lines a player may send a room per minute.")
    chat_spectators_per_minute: int = Field(
        default=20, ge=1, description="Chat lines all of a room's spectators together may send per minute."
    )
    max_open_rooms_per_player: int = Field(default=5, ge=1)
    max_groups_per_player: int = Field(default=20, ge=1, description="Groups one player may own.")
    max_spectators_per_room: int = Field(
        default=64, ge=0, description="Sockets of people not seated at a table; its players always get in."
    )
    presence_delay_s: float = Field(
        default=1.0,
        ge=0,
        description="How long a socket opening or closing waits before the other players are told (one "
        "logged change for all of them; a reconnect within it costs nothing).",
    )
    send_queue_limit: int = Field(
        default=256, ge=8, description="Frames queued for one connection before it is closed as too slow."
    )
    table_log: bool = Field(
        default=True,
        description="Log every change to a table before showing it (off only to measure the log's cost).",
    )
    loop_monitor: bool = Field(
        default=False,
        description="Measure the event loop's longest block (reported and reset by /healthz; for the bench).",
    )
    table_retention_days: float = Field(
        default=30.0, gt=0, description="How long a parked table is kept before it is deleted."
    )
    spool_path: Path = Field(
        default=Path("felt-spool.jsonl"),
        description="Where log entries and matches wait (fsync'ed) while the database is unreachable.",
    )
    replay_builds: int = Field(
        default=1,
        ge=1,
        description="Replays built at once, each in a worker process of its own (a 20,000-action one: about 30 MB).",
    )
    replay_queue: int = Field(
        default=8, ge=0, description="Replay requests that may wait for a build; more get 503 with Retry-After."
    )
    replay_cache_entries: int = Field(
        default=16, ge=0, description="Encoded replays kept (as files, see server/edges/api/replays.py)."
    )
    replay_cache_mb: int = Field(default=64, ge=0, description="Largest total size of the kept replays.")
    recap_renders: int = Field(
        default=1,
        ge=1,
        description="Night recap images drawn at once, each in a worker process of its own (niced).",
    )
    recap_queue: int = Field(
        default=4, ge=0, description="Recap image requests that may wait for a drawing; more get 503 with Retry-After."
    )
    recap_cache_entries: int = Field(
        default=64, ge=0, description="Recap images kept, one per group and night's version (about 200 KB each)."
    )
    recap_cache_mb: int = Field(default=16, ge=0, description="Largest total size of the kept recap images.")
    db_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="Deadline of every database call (connect, statement, SQLite's busy wait, a commit); "
        "past it the database counts as down.",
    )
    db_retry_max_s: float = Field(default=30.0, gt=0, description="Longest wait between retries of a failed write.")

    # Cluster mode (docs/scaling.md): with a Redis URL, tables are owned by Redis leases.
    redis_url: str | None = Field(
        default=None, description="Redis URL; set it (with a PostgreSQL DATABASE_URL) to run as one node of many."
    )
    redis_prefix: str = Field(default="felt:", description="Prefix of every Redis key and channel this cluster uses.")
    redis_connections: int = Field(
        default=100,
        ge=2,
        description="Cluster mode: Redis connections a node keeps open at most; a command past them waits for "
        "one to be free (up to redis_wait_s) rather than failing.",
    )
    redis_wait_s: float = Field(
        default=5.0, gt=0, description="Cluster mode: the longest a Redis command waits for a free connection."
    )
    node_id: str | None = Field(default=None, description="This node's name in the cluster (default: host and pid).")
    lease_ms: int = Field(
        default=5000, ge=200, description="How long a node's claim on a table lasts unless it is renewed."
    )
    slow_seat_hold_ms: int = Field(
        default=60_000,
        ge=1000,
        description="Cluster mode: how long a slow seat is held in Redis, unrenewed, before the store has "
        "it (renewed while its node waits for the write; a dead node's holds run out after this).",
    )
    lobby_publish_s: float = Field(
        default=0.5, gt=0, description="How often a node publishes its public tables to the shared lobby."
    )

    # ---- operations: logs, limits against exhaustion, per-address rates ---------------------
    log_format: Literal["text", "json"] = Field(
        default="text", description="'json': one JSON object per log line; 'text': plain lines."
    )
    access_log: bool = Field(default=True, description="Log every request (player tokens are never logged).")
    header_timeout_s: float = Field(
        default=10.0, gt=0, description="A connection must finish sending a request's headers within this."
    )
    body_timeout_s: float = Field(default=20.0, gt=0, description="A request's whole body must arrive within this.")
    keep_alive_s: float = Field(
        default=5.0, gt=0, description="An idle HTTP keep-alive connection is closed after this."
    )
    max_body_bytes: int = Field(default=65536, ge=1024, description="Larger request bodies are refused with 413.")
    max_header_bytes: int = Field(default=16384, ge=1024, description="Larger request headers are refused.")
    max_connections: int = Field(
        default=50_000,
        ge=16,
        description="Open connections (HTTP and WebSocket) before new ones get 503; lowered to the "
        "file-descriptor limit less a reserve the server keeps for itself.",
    )
    fd_reserve: int = Field(default=512, ge=16, description="File descriptors kept back from connections.")
    backlog: int = Field(default=2048, ge=16, description="The listening socket's accept queue.")
    ws_send_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="A socket whose unsent backlog does not drain for this long is cut (a client not reading).",
    )
    ws_send_buffer_bytes: int = Field(
        default=262_144, ge=16_384, description="The kernel's send buffer per WebSocket (bounds what one can hold)."
    )
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Proxy addresses (comma-separated) whose X-Forwarded-For names the client.",
    )
    rate_players_per_minute: float = Field(default=10.0, gt=0, description="New players per address, sustained.")
    rate_players_burst: int = Field(default=20, ge=1)
    rate_links_per_minute: float = Field(
        default=5.0, gt=0, description="Device link codes tried per address, sustained (against guessing)."
    )
    rate_links_burst: int = Field(default=10, ge=1)
    rate_rooms_per_minute: float = Field(default=20.0, gt=0, description="New rooms per address, sustained.")
    rate_rooms_burst: int = Field(default=30, ge=1)
    rate_lookups_per_minute: float = Field(
        default=12.0, gt=0, description="Failed room lookups (unknown codes) per address, sustained."
    )
    rate_lookups_burst: int = Field(default=20, ge=1)
    rate_connects_per_minute: float = Field(
        default=120.0, gt=0, description="WebSockets an address may open to rooms, sustained."
    )
    rate_connects_burst: int = Field(default=60, ge=1)
    rate_token_connects_per_minute: float = Field(
        default=30.0, gt=0, description="WebSockets opened with one player token, sustained."
    )
    rate_token_connects_burst: int = Field(default=20, ge=1)
    rate_recap_images_per_minute: float = Field(
        default=6.0, gt=0, description="Recap images one player may ask for, sustained (cached or drawn)."
    )
    rate_recap_images_burst: int = Field(default=4, ge=1)
    rate_webhook_tests_per_minute: float = Field(
        default=2.0, gt=0, description="Test messages a group's owner may have sent to its chat, sustained."
    )
    rate_webhook_tests_burst: int = Field(default=5, ge=1)
    max_sockets_per_address: int = Field(
        default=256, ge=1, description="Room WebSockets one address may hold open at once."
    )
    spectator_connections_share: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="Share of the connection cap that sockets of people who may not sit may fill; the "
        "rest is kept for the players of the tables.",
    )

    @field_validator("trusted_proxies", "outbound_allow_networks", mode="before")
    @classmethod
    def _split_proxies(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("outbound_allow_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for network in value:
            ipaddress.ip_network(network, strict=False)  # a ValueError names the bad one
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("FELT_PUBLIC_URL is an http:// or https:// address")
        return value.rstrip("/")

    @field_validator("database_url")
    @classmethod
    def _normalize(cls, value: str) -> str:
        return normalize_database_url(value)


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
