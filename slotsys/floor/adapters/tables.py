"""The slot floor's tables: zones, machines (with their meters), game rounds (recall) and the machine event log.

Money columns are BIGINT won. Timestamps are UTC.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, SmallInteger, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow


class Zone(Base):
    """A floor zone (VIP, MASS …). ``code`` never changes (jackpot levels and banks reference it); ``name`` may be
    renamed; ``retired_at`` set when the zone is retired (migration 0018: only with no active machine or bank)."""

    __tablename__ = "zones"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    retired_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class Machine(Base):
    __tablename__ = "machines"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    asset_number: Mapped[str] = mapped_column(String(20), unique=True)
    zone: Mapped[str] = mapped_column(ForeignKey("zones.code"))
    bank: Mapped[str] = mapped_column(String(20), default="")
    denomination: Mapped[int] = mapped_column(Integer)  # won per credit
    game_id: Mapped[str] = mapped_column(String(60))
    variation: Mapped[str] = mapped_column(String(20), default="")
    status: Mapped[str] = mapped_column(String(16), default="active")  # active | locked
    lock_reason: Mapped[str] = mapped_column(String(200), default="")
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    game_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    ticket_seq: Mapped[int] = mapped_column(Integer, default=0)
    # TITO (migration 0003_tito): how this machine's validation numbers are made (SAS §15):
    # "system" (host CSPRNG + Damm) or "sas" (secure enhanced: validation ID + 3-byte sequence).
    validation_scheme: Mapped[str] = mapped_column(String(8), default="system", server_default="system")
    sas_validation_id: Mapped[int | None] = mapped_column(Integer, nullable=True, unique=True, index=True)
    sas_sequence: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # next, 0..0xFFFFFF
    # 0014_ticket_ids: how many times the host drew this machine's validation ID (rotation, re-enrolment)
    sas_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    handpay_out: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")  # handpay receipts, won
    handpay_out_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Meters (won unless stated); they change only with a game or money event and never go backwards.
    coin_in: Mapped[int] = mapped_column(BigInteger, default=0)
    coin_out: Mapped[int] = mapped_column(BigInteger, default=0)
    jackpot_out: Mapped[int] = mapped_column(BigInteger, default=0)  # progressive/mystery awards
    games_played: Mapped[int] = mapped_column(BigInteger, default=0)
    games_won: Mapped[int] = mapped_column(BigInteger, default=0)
    bills_in: Mapped[int] = mapped_column(BigInteger, default=0)
    tickets_in: Mapped[int] = mapped_column(BigInteger, default=0)
    tickets_out: Mapped[int] = mapped_column(BigInteger, default=0)
    tickets_in_count: Mapped[int] = mapped_column(Integer, default=0)
    tickets_out_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    # Promotional credits (migration 0013_promo_credits; docs/promotional-credits.md). SAS meters
    # "restricted / non-restricted promotional credits played" (won): the part of coin_in staked
    # from each promo meter, so cashable coin-in = coin_in - both. credit_limit: the machine's credit
    # limit in won (ticket-in above it is refused, SAS 0x84); NULL = SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON.
    restricted_played: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    nonrestricted_played: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credit_limit: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # Migration 0020_machine_games: who decides a game's outcome, "server" (the spin) or "machine" (the machine
    # decides and reports it: slotsys.floor.services.reported_games); a machine refuses the other mode's requests.
    outcome_source: Mapped[str] = mapped_column(String(8), default="server", server_default="server")
    # Floor administration (migration 0018_floor_admin; docs/floor-administration.md): the cabinet's serial,
    # manufacturer and model; ``denominations`` offered (won per credit, JSON list; NULL = only the active
    # ``denomination``); ``max_bet`` in won (NULL = the game's own maximum); the floor-plan cell (``plan_x``,
    # ``plan_y``: grid units, NULL = not placed; a cell holds one machine); ``retired_at`` once retired
    # (status "retired": the asset number is never reused). A disabled machine has status "disabled" and its
    # reason in ``lock_reason``.
    serial: Mapped[str] = mapped_column(String(40), default="", server_default="")
    manufacturer: Mapped[str] = mapped_column(String(60), default="", server_default="")
    model: Mapped[str] = mapped_column(String(60), default="", server_default="")
    denominations: Mapped[list | None] = mapped_column(JSON, nullable=True)
    max_bet: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    plan_x: Mapped[int | None] = mapped_column(Integer, nullable=True)
    plan_y: Mapped[int | None] = mapped_column(Integer, nullable=True)
    retired_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)


class GameRound(Base):
    __tablename__ = "game_rounds"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    game_number: Mapped[int] = mapped_column(BigInteger)
    bet: Mapped[dict] = mapped_column(JSON)
    bet_won: Mapped[int] = mapped_column(BigInteger)
    win_won: Mapped[int] = mapped_column(BigInteger)
    outcome: Mapped[dict] = mapped_column(JSON)  # stops, window, wins
    jackpots: Mapped[list] = mapped_column(JSON, default=list)
    credits_before: Mapped[int] = mapped_column(BigInteger)
    credits_after: Mapped[int] = mapped_column(BigInteger)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    created_at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("machine_id", "game_number", name="machine_game"),)


class MachineEventRow(Base):
    """The machine event log (migration 0017): one row per event a machine reported (``source`` ``api`` or
    ``sas``) or the system noticed (``system``: offline, a refused game report). ``kind`` is the event's name
    in the vocabulary of ``slotsys.floor.domain.machine_events`` (SAS general exception codes; ``sas_code`` the
    exception code where SAS has one), ``game_number`` the game in progress when known, ``at`` the time the
    service recorded it (UTC), ``reported_at`` the machine's own time stamp if it sent one."""

    __tablename__ = "machine_events"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    reported_at: Mapped[datetime | None] = mapped_column(TZDateTime, nullable=True)
    kind: Mapped[str] = mapped_column(String(40))
    sas_code: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    source: Mapped[str] = mapped_column(String(8), default="api")
    game_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    __table_args__ = (Index("ix_machine_events_machine_at", "machine_id", "at"),
                      Index("ix_machine_events_kind_at", "kind", "at"))


Index("ix_machines_plan_cell", Machine.plan_x, Machine.plan_y, unique=True)  # one machine per floor-plan cell (0018)
Index("ix_game_rounds_machine_recent", GameRound.machine_id, GameRound.game_number.desc())
Index("ix_game_rounds_created_at", GameRound.created_at)  # the floor screens' "today" figures (migration 0011)
