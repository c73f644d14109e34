"""Jackpot controller tables (migrations 0001 + 0002_jackpots). Meters in milli-won, awards in won.

* ``jackpot_levels``: parameters of the current cycle (columns), parameters pending until the
  next hit (``pending`` JSON), meters (value, reserve, overflow, coin-in, hits, total won) and
  the secret mystery trigger.
* ``jackpot_wagers``: every wager of an eligible-zone machine, recorded in the spin's
  transaction; ``fold_id`` is set once, by the sequencer fold that applied it (the partial index
  keeps the unfolded ones cheap to find). Unique per (machine, game number).
* ``jackpot_folds``: one row per sequencer fold (its id is the fold order) with its journal entry.
* ``jackpot_hits``: one row per (level, cycle) — the database refuses a second award of a cycle.
  Status: ``hit`` → ``claimed`` → ``awarded`` (credited) | ``handpay`` → ``awarded`` (paid by an
  attendant) | ``verification`` → ``handpay`` or ``void``. (``credited`` rows predate 0002.)
* ``jackpot_events``: the auditor-visible log (corrections with reasons, parameter changes,
  pauses, second hits, verifications with raw values, claim timeouts, zone moves).
* ``jackpot_zone_moves``: a machine's zone history, so a move counts at each level's next reset.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, Integer, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow

_BIGID = BigInteger().with_variant(Integer, "sqlite")


class JackpotLevel(Base):
    __tablename__ = "jackpot_levels"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(16), default="mystery")  # standalone | linked | mystery
    # eligibility of the current cycle: scope + its target (zone keeps its FK to zones)
    scope: Mapped[str] = mapped_column(String(10), default="floor", server_default="floor")
    zone: Mapped[str | None] = mapped_column(ForeignKey("zones.code"), nullable=True)
    scope_machine: Mapped[str | None] = mapped_column(String(20), nullable=True)
    scope_bank: Mapped[str | None] = mapped_column(String(20), nullable=True)
    # parameters of the current cycle (won, ppm)
    start_won: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    reset_won: Mapped[int] = mapped_column(BigInteger)
    ceiling_won: Mapped[int] = mapped_column(BigInteger)
    rate_ppm: Mapped[int] = mapped_column(Integer)
    reserve_rate_ppm: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    min_bet_won: Mapped[int] = mapped_column(BigInteger, default=0)
    overflow_rule: Mapped[str] = mapped_column(String(10), default="carry", server_default="carry")
    overflow_to: Mapped[str | None] = mapped_column(String(40), nullable=True)
    combination: Mapped[str | None] = mapped_column(String(40), nullable=True)
    max_award_won: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    second_hit_rule: Mapped[str] = mapped_column(String(16), default="next_value", server_default="next_value")
    pending: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # parameters taking effect after the next hit
    pending_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    # meters
    value_milli: Mapped[int] = mapped_column(BigInteger)
    trigger_milli: Mapped[int] = mapped_column(BigInteger)  # secret: never served by the API
    reserve_milli: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    overflow_milli: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    cycle: Mapped[int] = mapped_column(Integer, default=1)
    cycle_started_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    qualifying_coin_in: Mapped[int] = mapped_column(BigInteger, default=0)
    contributed_milli: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    seeded_won: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    hits: Mapped[int] = mapped_column(Integer, default=0)
    total_won: Mapped[int] = mapped_column(BigInteger, default=0)
    updated_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)


class JackpotWager(Base):
    __tablename__ = "jackpot_wagers"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    asset: Mapped[str] = mapped_column(String(20))
    zone: Mapped[str] = mapped_column(String(20))
    bank: Mapped[str] = mapped_column(String(20), default="")
    game_number: Mapped[int] = mapped_column(BigInteger)
    bet_won: Mapped[int] = mapped_column(BigInteger)
    progressive: Mapped[str] = mapped_column(String(200), default="")  # level keys, comma-separated
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    fold_id: Mapped[int | None] = mapped_column(_BIGID, nullable=True)
    __table_args__ = (
        UniqueConstraint("machine_id", "game_number", name="uq_jackpot_wagers_machine_game"),
        Index("ix_jackpot_wagers_pending", "id", postgresql_where=text("fold_id IS NULL"),
              sqlite_where=text("fold_id IS NULL")),
    )


class JackpotFold(Base):
    __tablename__ = "jackpot_folds"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    wagers: Mapped[int] = mapped_column(Integer)
    first_wager: Mapped[int] = mapped_column(BigInteger)
    last_wager: Mapped[int] = mapped_column(BigInteger)
    hits: Mapped[int] = mapped_column(Integer, default=0)
    entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)


class JackpotHit(Base):
    __tablename__ = "jackpot_hits"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    level_id: Mapped[int] = mapped_column(ForeignKey("jackpot_levels.id"), index=True)
    cycle: Mapped[int] = mapped_column(Integer)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    zone: Mapped[str] = mapped_column(String(20))
    game_number: Mapped[int] = mapped_column(BigInteger)
    amount_won: Mapped[int] = mapped_column(BigInteger)
    trigger_milli: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="hit")
    announced: Mapped[bool] = mapped_column(Boolean, default=False)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))  # the fold that decided it
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    # 0002_jackpots
    wager_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    player_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    value_milli: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")  # raw meter at the hit
    topup_won: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    pay_method: Mapped[str | None] = mapped_column(String(12), nullable=True)  # credit | handpay | verification | on_machine
    claim_token: Mapped[str | None] = mapped_column(String(32), nullable=True)
    claimed_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    awarded_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    paid_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    award_entry_id: Mapped[int | None] = mapped_column(ForeignKey("journal_entries.id"), nullable=True)
    note: Mapped[str] = mapped_column(String(300), default="", server_default="")
    # 0025_hit_bonus_meter: an award paid on the machine (status at_machine): its legacy bonus meter (won) before
    bonus_meter_before: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    __table_args__ = (UniqueConstraint("level_id", "cycle", name="uq_jackpot_hits_level_cycle"),)


class JackpotEvent(Base):
    __tablename__ = "jackpot_events"
    id: Mapped[int] = mapped_column(_BIGID, primary_key=True)
    kind: Mapped[str] = mapped_column(String(30))
    level_code: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    hit_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    machine: Mapped[str | None] = mapped_column(String(20), nullable=True)
    actor: Mapped[str] = mapped_column(String(80), default="system")
    reason: Mapped[str] = mapped_column(String(300), default="")
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)


class JackpotZoneMove(Base):
    __tablename__ = "jackpot_zone_moves"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"), index=True)
    zone: Mapped[str] = mapped_column(ForeignKey("zones.code"))
    since: Mapped[datetime] = mapped_column(TZDateTime)
    by: Mapped[str] = mapped_column(String(80), default="")
