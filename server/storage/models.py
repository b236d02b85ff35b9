"""Database tables (SQLAlchemy 2 typed ORM). Rows are storage only, never wire models.

A finished match is one ``matches`` row with its seats, hands and action log beside it,
written in one transaction. Timestamps are stored in UTC and always read back tz-aware
(SQLite hands back naive values; ``UTCDateTime`` puts the zone back).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Named constraints and indexes, so migrations and models agree on every name.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID_LENGTH = 64


class UTCDateTime(TypeDecorator):
    """A timestamp stored in UTC and read back tz-aware on every backend."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:  # naive values are taken to be UTC already
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    __table__: ClassVar[sa.Table]  # every model here maps one Table (the library types it as any FromClause)
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: sa.JSON(),
        list[Any]: sa.JSON(),
    }


class Player(Base):
    """A guest identity. Its tokens are its devices' (``Device``), one per device."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime]
    # The player's own settings, for every table: their only legal card is played for them.
    autoplay_forced: Mapped[bool] = mapped_column(default=False, server_default=sa.false())


class Device(Base):
    """One device's bearer token for a player: only the token's SHA-256 is kept.

    A revoked device keeps its row (``revoked_at`` set) so that the list of devices can say
    what was signed out; its token is refused from then on.
    """

    __tablename__ = "devices"
    __table_args__ = (sa.Index("ix_devices_player_id", "player_id"),)

    id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    player_id: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    label: Mapped[str] = mapped_column(sa.String(64))  # e.g. "Firefox on Android", from the User-Agent
    name: Mapped[str | None] = mapped_column(sa.String(64))  # the player's own, e.g. "Kitchen tablet"
    created_at: Mapped[datetime]
    last_seen_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class PushSubscription(Base):
    """A device's Web Push subscription (what the browser's ``PushManager.subscribe`` gave):
    where to send, and the keys the payload is encrypted to. One per device; dropped with its
    device, when the device is revoked, and when the push service says it is gone."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (sa.Index("ix_push_subscriptions_player_id", "player_id"),)

    device_id: Mapped[str] = mapped_column(sa.ForeignKey("devices.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    endpoint: Mapped[str] = mapped_column(sa.String(2048))
    p256dh: Mapped[str] = mapped_column(sa.String(128))  # base64url, 65 bytes: the browser's P-256 key
    auth: Mapped[str] = mapped_column(sa.String(32))  # base64url, 16 bytes: the shared auth secret
    lang: Mapped[str] = mapped_column(sa.String(8))  # the language the device is told in ("en", "pt")
    created_at: Mapped[datetime]


class NotifyPrefs(Base):
    """The kinds of notification one device turned off (``off``: a list of kind names), so
    that a kind added later starts on."""

    __tablename__ = "notify_prefs"

    device_id: Mapped[str] = mapped_column(sa.ForeignKey("devices.id", ondelete="CASCADE"), primary_key=True)
    off: Mapped[list[Any]]
    updated_at: Mapped[datetime]


class ServerKey(Base):
    """A secret the server made for itself once and every node shares (the VAPID key that
    signs Web Push requests): kept here so that every node of a cluster finds the same one."""

    __tablename__ = "server_keys"

    name: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    value: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[datetime]


class LinkCode(Base):
    """A one-time code that adds a device to a player: its SHA-256, its player, until when it
    works and when it was used (a used code never works again)."""

    __tablename__ = "link_codes"
    __table_args__ = (sa.Index("ix_link_codes_player_id", "player_id"),)

    code_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class Passkey(Base):
    """A WebAuthn credential (a passkey) that signs a player in on any device: its id, public
    key and signature counter. Signing in with it gives that device a token of its own."""

    __tablename__ = "passkeys"
    __table_args__ = (sa.Index("ix_passkeys_player_id", "player_id"),)

    credential_id: Mapped[str] = mapped_column(sa.String(512), primary_key=True)  # base64url
    player_id: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    public_key: Mapped[bytes] = mapped_column(sa.LargeBinary)
    sign_count: Mapped[int]
    label: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]


class PasskeyChallenge(Base):
    """A WebAuthn challenge handed out and not yet answered: for adding a passkey to
    ``player_id``, or (no player) for signing in. Used once, within a few minutes."""

    __tablename__ = "passkey_challenges"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    challenge: Mapped[str] = mapped_column(sa.String(128))  # base64url
    player_id: Mapped[str | None] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    expires_at: Mapped[datetime]


class Match(Base):
    """One finished match: what it was, how it ended, and when."""

    __tablename__ = "matches"
    __table_args__ = (
        # History pages: newest first, ties broken by id (the cursor is (finished_at, id)).
        sa.Index("ix_matches_finished_at_id", "finished_at", "id"),
        sa.Index("ix_matches_game_finished_at_id", "game", "finished_at", "id"),
        sa.Index("ix_matches_room_code", "room_code"),
    )

    id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(32))
    options: Mapped[dict[str, Any]]
    seed: Mapped[str] = mapped_column(sa.Text)
    commitment: Mapped[str] = mapped_column(sa.String(64))
    dealer: Mapped[int]
    room_code: Mapped[str | None] = mapped_column(sa.String(32))
    # Played at a private table: listed and readable only for its own players.
    private: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    scores: Mapped[list[Any]]
    winners: Mapped[list[Any]]
    player_count: Mapped[int]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime]


class MatchSeat(Base):
    """Who sat where in a match, and how they did."""

    __tablename__ = "match_seats"
    __table_args__ = (
        sa.Index("ix_match_seats_player_id_match_id", "player_id", "match_id"),
        # A player's history page is a range of this index, newest first (cursor: finished_at, id).
        sa.Index("ix_match_seats_player_id_finished_at_match_id", "player_id", "finished_at", "match_id"),
    )

    match_id: Mapped[str] = mapped_column(sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(sa.ForeignKey("players.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(sa.String(64))
    bot: Mapped[bool]
    # A bot seat's level ("easy" or "strong"); NULL for people (and for bots before 0005).
    bot_level: Mapped[str | None] = mapped_column(sa.String(16))
    score: Mapped[int]
    winner: Mapped[bool]
    # The match's finished_at, copied here so that one index serves a player's history.
    # Always written; nullable only because migration 0002 added it to existing rows.
    finished_at: Mapped[datetime | None]
    # Everyone who made this seat's decisions, when it changed hands during play: a list of
    # {"from" (the first action index that was theirs), "name", "player_id", "bot", "level"};
    # NULL when one occupant played it all (the columns above).
    occupants: Mapped[list | None] = mapped_column(sa.JSON)


class Hand(Base):
    """One hand of a match: its dealer, the deal, what it scored, and the game's other notes
    on it (contract, trump, discards...) in ``extra``."""

    __tablename__ = "hands"

    match_id: Mapped[str] = mapped_column(sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    index: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    dealer: Mapped[int]
    deal: Mapped[dict[str, Any]]
    scores: Mapped[list[Any] | None]
    extra: Mapped[dict[str, Any] | None]


class Action(Base):
    """One entry of a match's action log, in order."""

    __tablename__ = "actions"

    match_id: Mapped[str] = mapped_column(sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    seat: Mapped[int]
    action: Mapped[dict[str, Any]]


class Table(Base):
    """A table (room) that outlives processes: what it is and where it stands.

    ``status`` is waiting, playing, finished, parked (out of memory, resumes when opened) or
    closed. Its whole history is its log (``TableLogEntry``); this row is what the lobby and
    the restore read without replaying it. ``clock_s`` is its turn clock; a slow one's running
    ``deadline`` (Unix milliseconds, also while parked) is kept here, where the clocks due are
    found (server/rooms/slow_clocks.py).
    """

    __tablename__ = "tables"
    __table_args__ = (
        sa.Index("ix_tables_status_updated_at", "status", "updated_at"),
        sa.Index("ix_tables_deadline", "deadline"),
    )

    code: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(32))
    status: Mapped[str] = mapped_column(sa.String(16))
    private: Mapped[bool]
    host_id: Mapped[str | None] = mapped_column(sa.String(ID_LENGTH))
    version: Mapped[int]
    updated_at: Mapped[float] = mapped_column(sa.Float)  # Unix seconds of the last change
    clock_s: Mapped[int] = mapped_column(default=0, server_default="0")
    deadline: Mapped[int | None] = mapped_column(sa.BigInteger)


class TablePlayer(Base):
    """A player seated at a table (the lobby's "Your tables"), or one who left it in play
    (``left``: a bot keeps the seat, theirs to take back while the match goes on); ``to_act``:
    a slow table's clock awaits them."""

    __tablename__ = "table_players"
    __table_args__ = (sa.Index("ix_table_players_player_id", "player_id"),)

    code: Mapped[str] = mapped_column(sa.ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    left: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    to_act: Mapped[bool] = mapped_column(default=False, server_default=sa.false())


class TableLogEntry(Base):
    """One change to a table at one version: the write-ahead log a table is rebuilt from.

    The primary key (code, version) is the fence: a second writer of the same version fails.
    ``data`` is the change as JSON text (kind-specific; see server/rooms/room.py).
    """

    __tablename__ = "table_log"

    code: Mapped[str] = mapped_column(sa.ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(sa.String(16))
    data: Mapped[str] = mapped_column(sa.Text)
    at: Mapped[float] = mapped_column(sa.Float)  # Unix seconds


class Group(Base):
    """A circle of friends with a permanent link (``/g/{code}``) and an invite secret.

    ``invite`` is the secret of the current invite link (rotating it refuses the old one); it
    is shown to members only and never written to a log.
    """

    __tablename__ = "groups"

    code: Mapped[str] = mapped_column(sa.String(16), primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    owner_id: Mapped[str] = mapped_column(sa.String(ID_LENGTH))
    invite: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime]


class GroupMember(Base):
    """A player of a group, with their role (owner or member)."""

    __tablename__ = "group_members"
    __table_args__ = (sa.Index("ix_group_members_player_id", "player_id"),)

    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    role: Mapped[str] = mapped_column(sa.String(16))
    joined_at: Mapped[datetime]


class GroupRules(Base):
    """A group's house rules for one game: the options its next table of that game starts with,
    who changed them last (``changed_by``, a player id) and what that change was (``changes``:
    ``[{"key", "value", "before"}]``, the options whose value it changed)."""

    __tablename__ = "group_rules"

    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    options: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime]
    changed_by: Mapped[str | None] = mapped_column(sa.String(ID_LENGTH))
    changes: Mapped[list[dict[str, Any]] | None] = mapped_column(sa.JSON)
    # What its tables of the game chose beyond the game's options: {"watchers", "watch_delay"}.
    table_options: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)


class GroupSeason(Base):
    """One season of a group's ledger; the open one has no ``closed_at``."""

    __tablename__ = "group_seasons"

    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    started_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]


class GroupTable(Base):
    """A table opened for a group. No foreign key to ``tables``: the table row is written by the
    writer and purged with its table, while this link stays for the matches played at it."""

    __tablename__ = "group_tables"
    __table_args__ = (sa.Index("ix_group_tables_group_code_created_at", "group_code", "created_at"),)

    code: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(sa.String(32))
    created_at: Mapped[datetime]


class GroupMatch(Base):
    """A finished match played at a group's table, in the season that was open when it was
    stored (so a closed season's table never changes). The ledger's lines and meetings of
    the match are written with this link, from the match record; nothing here is a counter."""

    __tablename__ = "group_matches"
    __table_args__ = (
        # Standings: one range per (group, game, season); recent matches: newest first.
        sa.Index("ix_group_matches_group_code_game_season", "group_code", "game", "season", "match_id"),
        sa.Index("ix_group_matches_group_code_finished_at", "group_code", "finished_at"),
    )

    match_id: Mapped[str] = mapped_column(sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(sa.String(32))
    season: Mapped[int]
    finished_at: Mapped[datetime]


class GroupLedgerLine(Base):
    """One person's line of a group's match as the ledger counts it (``ledger.lines``): their
    side, its place, whether it won, its points for and against and the contracts it declared
    and made. Made from the match's record (``ledger.of_record``), written in the transaction
    that links the match to its group (a late record too) and never changed, so the standings
    add up small rows instead of reading every record's seats and hands. No counter: the lines
    of a match are a function of its record."""

    __tablename__ = "group_ledger_lines"
    __table_args__ = (
        # Standings: one range per (group, game) holding everything they add up, in the order
        # they are grouped by (no sort; a season's rows are picked from the range).
        sa.Index(
            "ix_group_ledger_lines_group_game_player",
            "group_code",
            "game",
            "player_id",
            "season",
            "won",
            "points",
            "against",
            "place",
        ),
    )

    match_id: Mapped[str] = mapped_column(sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(sa.String(32))
    season: Mapped[int]
    player_id: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    side: Mapped[int]
    place: Mapped[int]
    won: Mapped[int]  # 0 or 1, so that it adds up on every database
    points: Mapped[int]
    against: Mapped[float]
    bids: Mapped[int]
    bids_made: Mapped[int]


class GroupLedgerMeeting(Base):
    """Two people who sat in one of a group's matches (``ledger.meetings``): partners or not,
    who placed higher, and for partners their side's win and contracts. Written with the
    match's ledger lines, from its record, and never changed: head-to-head and partner pairs
    add these up."""

    __tablename__ = "group_ledger_meetings"
    __table_args__ = (
        sa.Index(  # as the lines' index: one range per (group, game), in grouping order
            "ix_group_ledger_meetings_group_game_pair",
            "group_code",
            "game",
            "a",
            "b",
            "together",
            "season",
            "a_higher",
            "b_higher",
            "won",
            "bids",
            "bids_made",
        ),
    )

    match_id: Mapped[str] = mapped_column(sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat_a: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    seat_b: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(sa.String(32))
    season: Mapped[int]
    a: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    b: Mapped[str] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    together: Mapped[int]  # 1: partners (the same side)
    a_higher: Mapped[int]
    b_higher: Mapped[int]
    won: Mapped[int]
    bids: Mapped[int]
    bids_made: Mapped[int]


class GroupWebhook(Base):
    """Where a group's chat hears of its tables (``server/notify/webhooks.py``), and how the last
    delivery went. ``url`` is a secret (anyone who has it can post to the chat): it is shown to
    the group's owner only, masked unless asked for, and never written to a log."""

    __tablename__ = "group_webhooks"

    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"), primary_key=True)
    url: Mapped[str] = mapped_column(sa.String(2048))
    format: Mapped[str] = mapped_column(sa.String(16))  # "discord" or "json"
    updated_at: Mapped[datetime]
    last_ok_at: Mapped[datetime | None]
    last_failed_at: Mapped[datetime | None]
    last_failure: Mapped[str | None] = mapped_column(sa.String(64))  # "404", "timeout", "refused"...


class WebhookOutbox(Base):
    """A message waiting for its group's chat (``server/notify/webhooks.py``): written when it
    is queued, deleted when it is delivered or given up on, so that a stop or a crash loses
    nothing queued. ``message`` is what it says (the event, the group's name, the table, the
    text, the link), never the URL: the URL (a secret) and the format are read when it is sent.
    ``tries`` and ``next_at`` (wall-clock seconds) are its retry schedule; ``claimed_by`` and
    ``claimed_until`` the node trying it now, whose claim another node may take once it ends."""

    __tablename__ = "webhook_outbox"
    __table_args__ = (
        sa.Index("ix_webhook_outbox_group_code_id", "group_code", "id"),
        sa.Index("ix_webhook_outbox_next_at", "next_at"),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(sa.String(32), unique=True)  # one per event: written once however often tried
    group_code: Mapped[str] = mapped_column(sa.ForeignKey("groups.code", ondelete="CASCADE"))
    message: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    tries: Mapped[int]
    next_at: Mapped[float] = mapped_column(sa.Double)
    claimed_by: Mapped[str | None] = mapped_column(sa.String(ID_LENGTH))
    claimed_until: Mapped[float | None] = mapped_column(sa.Double)
