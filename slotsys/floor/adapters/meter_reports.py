"""The machine's side of its meters (migration 0020_machine_games): every meter set a machine reported, with a
game (``POST /machines/<asset>/games``) or alone at game end (``POST /machines/<asset>/meters``).

Append-only: rows are only inserted and read. The newest row of a machine is the baseline the next
meters-at-game-end report is differenced against, and the machine's figures in the reconciliation.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime, utcnow
from slotsys.kernel.adapters.write_behind import execute_or_defer


class MachineMeterReport(Base):
    """One meter set as the machine reported it (won, counts): ``coin_in``, ``coin_out``, ``games_played``
    always; ``jackpot`` (system bonus / progressive awards the machine credited) and ``games_won`` when the
    machine reports them. ``source``: ``game`` (with a reported game) or ``meters`` (a meters-at-game-end
    report); ``game_number``: the machine's game number after the report."""

    __tablename__ = "machine_meter_reports"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id"))
    at: Mapped[datetime] = mapped_column(TZDateTime, default=utcnow)
    source: Mapped[str] = mapped_column(String(8))
    game_number: Mapped[int] = mapped_column(BigInteger)
    coin_in: Mapped[int] = mapped_column(BigInteger)
    coin_out: Mapped[int] = mapped_column(BigInteger)
    games_played: Mapped[int] = mapped_column(BigInteger)
    jackpot: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    games_won: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    __table_args__ = (Index("ix_machine_meter_reports_machine_id", "machine_id", "id"),)


_NEW = insert(MachineMeterReport.__table__).inline()
METER_NAMES = ("coin_in", "coin_out", "games_played", "jackpot", "games_won")


class MachineMeterReportRepo:
    def __init__(self, session: Session) -> None:
        self.s = session

    def latest(self, machine_id: int) -> MachineMeterReport | None:
        """The machine's newest report (the caller holds the machine's row lock when it builds on it)."""
        return self.s.scalar(select(MachineMeterReport).where(MachineMeterReport.machine_id == machine_id)
                             .order_by(MachineMeterReport.id.desc()).limit(1))

    def add(self, machine_id: int, *, source: str, game_number: int, meters: dict[str, int | None],
            at: datetime | None = None) -> None:
        """Append one report (a Core INSERT: it may go with the commit, never read back in the transaction)."""
        row = {k: meters.get(k) for k in METER_NAMES}
        execute_or_defer(self.s, _NEW, {"machine_id": machine_id, "source": source, "game_number": game_number,
                                        "at": at or utcnow(), **row})
