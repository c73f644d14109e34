"""Player tracking tables: program settings, tiers, accrual rules, players and cards, sessions,
the points journal, redemptions, cashless transfers, AFT transfers at SAS machines, table ratings, player tokens.

Points are BIGINT **milli-points** (1 point = 1,000); money is BIGINT won; theoretical win is
BIGINT milli-won. Wallet balances are NOT here: they are ledger accounts
(``player:<id>:cashable`` / ``player:<id>:promo``). Migration: 0004_players.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Column,
    Table,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, registry

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.players.domain.player import Player, PlayerSession

mapper_registry = registry(metadata=Base.metadata)

_BIGID = BigInteger().with_variant(Integer, "sqlite")


class LoyaltyProgram(Base):
    """The program's settings (one row, id 1)."""

    __tablename__ = "loyalty_program"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    points_idle_days: Mapped[int] = mapped_column(Integer, default=365)
    promo_won_per_point: Mapped[int] = mapped_column(Integer, default=10)  # 1 point = ₩10 of promotional credits
    cash_won_per_point: Mapped[int] = mapped_column(Integer, default=5)  # 1 point = ₩5 cashable
    per_transfer_max_won: Mapped[int] = mapped_column(BigInteger, default=5_000_000)
    daily_to_machine_max_won: Mapped[int] = mapped_column(BigInteger, default=20_000_000)
    daily_to_wallet_max_won: Mapped[int] = mapped_column(BigInteger, default=100_000_000)
    redemption_hold_seconds: Mapped[int] = mapped_column(Integer, default=60)
    updated_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("id = 1", name="single_row"),
        CheckConstraint("points_idle_days > 0 AND promo_won_per_point >= 0 AND cash_won_per_point >= 0", name="rates"),
        CheckConstraint("per_transfer_max_won > 0 AND daily_to_machine_max_won > 0 AND daily_to_wallet_max_won > 0",
                        name="limits"),
        CheckConstraint("redemption_hold_seconds > 0", name="times"),
    )


class LoyaltyTier(Base):
    __tablename__ = "loyalty_tiers"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    threshold_points: Mapped[int] = mapped_column(BigInteger)
    multiplier_permille: Mapped[int] = mapped_column(Integer)
    __table_args__ = (CheckConstraint("threshold_points >= 0 AND multiplier_permille > 0", name="values"),)


class AccrualRuleRow(Base):
    __tablename__ = "accrual_rules"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    scope: Mapped[str] = mapped_column(String(10))  # default | zone | machine | table
    key: Mapped[str] = mapped_column(String(40), default="")
    basis: Mapped[str] = mapped_column(String(10))  # coin_in | theo
    won_per_point: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        UniqueConstraint("scope", "key", name="scope_key"),
        CheckConstraint("won_per_point > 0", name="rate"),
        CheckConstraint("basis IN ('coin_in', 'theo')", name="basis"),
    )


# Player: a domain object (slotsys.players.domain.player.Player) mapped onto this table
players = Table(
    "players",
    Base.metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(120), nullable=False),
    Column("tier_code", String(20), ForeignKey("loyalty_tiers.code"), nullable=False),
    Column("tier_points_milli", BigInteger, default=0, nullable=False),
    Column("points_milli", BigInteger, default=0, nullable=False),  # = sum of its points journal
    Column("points_held_milli", BigInteger, default=0, nullable=False),  # pending machine redemptions
    Column("last_activity_at", TZDateTime, default=utcnow, nullable=False),
    Column("enrolled_at", TZDateTime, default=utcnow, nullable=False),
    CheckConstraint("points_held_milli >= 0 AND points_milli >= points_held_milli", name="points_non_negative"),
    CheckConstraint("tier_points_milli >= 0", name="tier_points"),
)

mapper_registry.map_imperatively(Player, players)


class PlayerCard(Base):
    __tablename__ = "player_cards"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    card_number: Mapped[str] = mapped_column(String(16), unique=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    status: Mapped[str] = mapped_column(String(10), default="active")  # active | lost | blocked | replaced
    pin_hash: Mapped[str] = mapped_column(String(200))
    pin_failures: Mapped[int] = mapped_column(SmallInteger, default=0)
    pin_last_failure_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    issued_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    status_changed_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    __table_args__ = (CheckConstraint("status IN ('active', 'lost', 'blocked', 'replaced')", name="status"),)


class CardEvent(Base):
    """Security log of a card: PIN failures, throttling, blocks, lost reports, unblocks."""

    __tablename__ = "card_events"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("player_cards.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    kind: Mapped[str] = mapped_column(String(20))
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    by: Mapped[str] = mapped_column(String(80), default="")
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)


# PlayerSession: a domain object (slotsys.players.domain.player.PlayerSession) mapped onto this table
player_sessions = Table(
    "player_sessions",
    Base.metadata,
    Column("id", _BIGID, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), index=True, nullable=False),
    Column("card_id", Integer, ForeignKey("player_cards.id"), nullable=False),
    Column("machine_id", Integer, ForeignKey("machines.id"), index=True, nullable=False),
    Column("status", String(8), default="open", nullable=False),  # open | closed
    Column("started_at", TZDateTime, nullable=False),
    Column("ended_at", TZDateTime, nullable=True),
    Column("last_game_at", TZDateTime, nullable=True),
    Column("ended_by", String(80), default="", nullable=False),
    Column("rule_scope", String(10), nullable=False),
    Column("rule_basis", String(10), nullable=False),
    Column("rule_won_per_point", Integer, nullable=False),
    Column("start_coin_in", BigInteger, nullable=False),
    Column("start_coin_out", BigInteger, nullable=False),
    Column("start_jackpot_out", BigInteger, nullable=False),
    Column("start_games_played", BigInteger, nullable=False),
    Column("start_games_won", BigInteger, nullable=False),
    Column("end_coin_in", BigInteger, nullable=True),
    Column("end_coin_out", BigInteger, nullable=True),
    Column("end_jackpot_out", BigInteger, nullable=True),
    Column("end_games_played", BigInteger, nullable=True),
    Column("end_games_won", BigInteger, nullable=True),
    Column("coin_in", BigInteger, default=0, nullable=False),
    Column("coin_out", BigInteger, default=0, nullable=False),
    Column("jackpot_out", BigInteger, default=0, nullable=False),
    Column("games_played", BigInteger, default=0, nullable=False),
    Column("games_won", BigInteger, default=0, nullable=False),
    Column("theo_milli", BigInteger, default=0, nullable=False),
    Column("points_milli", BigInteger, default=0, nullable=False),
    CheckConstraint("status IN ('open', 'closed')", name="status"),
    # one carded player per machine, one machine per player
    Index("uq_player_sessions_open_machine", "machine_id", unique=True,
          postgresql_where=text("status = 'open'"), sqlite_where=text("status = 'open'")),
    Index("uq_player_sessions_open_player", "player_id", unique=True,
          postgresql_where=text("status = 'open'"), sqlite_where=text("status = 'open'")),
)

mapper_registry.map_imperatively(PlayerSession, player_sessions)


class PointsJournal(Base):
    """Every change of a player's points, signed milli-points: ``play`` and ``rating`` accruals,
    ``redeem`` (negative), ``expire`` (negative), ``adjust``. ``players.points_milli`` equals
    the sum of a player's rows (the audit proves it)."""

    __tablename__ = "points_journal"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10))
    points_milli: Mapped[int] = mapped_column(BigInteger)
    balance_after_milli: Mapped[int] = mapped_column(BigInteger)
    session_id: Mapped[int | None] = mapped_column(ForeignKey("player_sessions.id"), nullable=True, index=True)
    rating_id: Mapped[int | None] = mapped_column(ForeignKey("table_ratings.id"), nullable=True)
    redemption_id: Mapped[int | None] = mapped_column(ForeignKey("point_redemptions.id"), nullable=True)
    entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    memo: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("points_milli <> 0", name="nonzero"),
        CheckConstraint("kind IN ('play', 'rating', 'redeem', 'expire', 'adjust')", name="kind"),
    )


class PointRedemption(Base):
    """Points → credits. At a machine it is two-phase: ``pending`` (points held, not debited)
    → ``completed`` when the machine acknowledges the credits, or ``cancelled`` / ``expired``
    (hold released). To the wallet it completes at once."""

    __tablename__ = "point_redemptions"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    target: Mapped[str] = mapped_column(String(8))  # machine | wallet
    machine_id: Mapped[int | None] = mapped_column(ForeignKey("machines.id"), nullable=True)
    kind: Mapped[str] = mapped_column(String(8))  # promo | cash
    points: Mapped[int] = mapped_column(BigInteger)
    amount_won: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(10))  # pending | completed | cancelled | expired
    requested_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    settled_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    __table_args__ = (
        CheckConstraint("points > 0 AND amount_won >= 0", name="amounts"),
        CheckConstraint("status IN ('pending', 'completed', 'cancelled', 'expired')", name="status"),
        Index("ix_point_redemptions_pending", "player_id", "status"),
    )


class WalletTransfer(Base):
    """A cashless (AFT-like) transfer between a player's wallet and a machine."""

    __tablename__ = "wallet_transfers"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"), index=True)
    session_id: Mapped[int | None] = mapped_column(ForeignKey("player_sessions.id"), nullable=True)
    direction: Mapped[str] = mapped_column(String(10))  # to_machine | to_wallet
    via: Mapped[str] = mapped_column(String(10), default="aft")  # aft | cash_out
    cashable_won: Mapped[int] = mapped_column(BigInteger, default=0)
    promo_won: Mapped[int] = mapped_column(BigInteger, default=0)
    gaming_day: Mapped[date] = mapped_column(Date)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("cashable_won >= 0 AND promo_won >= 0 AND cashable_won + promo_won > 0", name="amounts"),
        Index("ix_wallet_transfers_daily", "player_id", "gaming_day", "direction"),
    )


AFT_STATES = ("pending", "sent", "completed", "failed", "expired")


class AftTransferRow(Base):
    """A cashless AFT transfer between a player's wallet and a SAS machine (SAS 6.02 §8), two-phase: ``pending``
    (requested; to the machine the wallet money is held on ``machine:<asset>:aft_in_transit``, ``hold_entry_id``)
    → ``sent`` (handed to the SAS host) → ``completed`` (``moved_won`` what the machine moved, ``settle_entry_id``)
    / ``failed`` (the machine's final status ``status_code``; the hold returned) / ``expired`` (never sent within
    the timeout; the hold returned). ``transaction_id``: the SAS transaction ID (1–20 printable ASCII), unique.
    Amounts in won. Migration: 0028_aft_transfers."""

    __tablename__ = "aft_transfers"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    transaction_id: Mapped[str] = mapped_column(String(20), unique=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    session_id: Mapped[int | None] = mapped_column(ForeignKey("player_sessions.id"), nullable=True)
    direction: Mapped[str] = mapped_column(String(10))  # to_machine | to_wallet
    amount_won: Mapped[int] = mapped_column(BigInteger)
    moved_won: Mapped[int] = mapped_column(BigInteger, default=0)
    state: Mapped[str] = mapped_column(String(10), default="pending")
    status_code: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    reason: Mapped[str] = mapped_column(String(200), default="")
    gaming_day: Mapped[date] = mapped_column(Date)
    requested_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(TZDateTime)
    sent_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    settled_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    hold_entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    settle_entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    __table_args__ = (
        CheckConstraint("amount_won > 0 AND moved_won >= 0", name="amounts"),
        CheckConstraint("direction IN ('to_machine', 'to_wallet')", name="direction"),
        CheckConstraint("state IN ('pending', 'sent', 'completed', 'failed', 'expired')", name="state"),
        Index("ix_aft_transfers_machine_state", "machine_id", "state"),
    )


class TableRating(Base):
    __tablename__ = "table_ratings"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    table_code: Mapped[str] = mapped_column(String(20))
    area: Mapped[str] = mapped_column(String(20))
    game: Mapped[str] = mapped_column(String(40))
    average_bet_won: Mapped[int] = mapped_column(BigInteger)
    minutes: Mapped[int] = mapped_column(Integer)
    decisions_per_hour: Mapped[int] = mapped_column(Integer)
    house_edge_ppm: Mapped[int] = mapped_column(Integer)
    rule_scope: Mapped[str] = mapped_column(String(10))
    rule_basis: Mapped[str] = mapped_column(String(10))
    rule_won_per_point: Mapped[int] = mapped_column(Integer)
    handle_won: Mapped[int] = mapped_column(BigInteger)  # rounded down, for display
    theo_milli: Mapped[int] = mapped_column(BigInteger)
    points_milli: Mapped[int] = mapped_column(BigInteger)
    rated_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)


class PlayerToken(Base):
    __tablename__ = "player_tokens"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    expires_at: Mapped[datetime] = mapped_column(TZDateTime)
