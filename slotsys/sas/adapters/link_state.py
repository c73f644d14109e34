"""The SAS links' state as the host last published it (migration 0026_sas_link_state): one row per machine,
overwritten at each publication (every few seconds), so the console shows every SAS machine's link without
reaching into the host process. Operational state, not a record: the money and the events are on the ledger and
the event log; nothing here is audited.

``sas_link_states``: ``asset`` (primary key: a machine sits on one channel), ``channel`` (the host's channel name:
its serial device or TCP address), SAS ``address`` 1–127, ``state`` (the link state machine: ``online``,
``offline``, …), ``enrolled``, the link counters since the host started (``polls``, ``retries``, ``timeouts``,
``crc_errors``), ``last_exception`` (``0x51``, the last non-zero general-poll answer), ``signature`` (``unknown``
| ``pending`` | ``ok`` | ``mismatch``), ``queued_long_polls``, ``cycle_p99_ms`` (time between two general polls of
the machine, 99th percentile) and ``reported_at`` (aware UTC, the host's clock at publication).
"""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

from sqlalchemy import BigInteger, Boolean, Float, Integer, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from slotsys.kernel.adapters.db import Base, TZDateTime

__all__ = ["SasLinkState", "SasLinkRepo"]


class SasLinkState(Base):
    __tablename__ = "sas_link_states"
    asset: Mapped[str] = mapped_column(String(20), primary_key=True)
    channel: Mapped[str] = mapped_column(String(120))
    address: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(20))
    enrolled: Mapped[bool] = mapped_column(Boolean)
    polls: Mapped[int] = mapped_column(BigInteger)
    retries: Mapped[int] = mapped_column(BigInteger)
    timeouts: Mapped[int] = mapped_column(BigInteger)
    crc_errors: Mapped[int] = mapped_column(BigInteger)
    last_exception: Mapped[str | None] = mapped_column(String(8), nullable=True)
    signature: Mapped[str] = mapped_column(String(10))
    queued_long_polls: Mapped[int] = mapped_column(Integer)
    cycle_p99_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    reported_at: Mapped[datetime] = mapped_column(TZDateTime)


_FIELDS = ("channel", "address", "state", "enrolled", "polls", "retries", "timeouts", "crc_errors",
           "last_exception", "signature", "queued_long_polls", "cycle_p99_ms", "reported_at")


class SasLinkRepo:
    """``uow.sas_links``: ``publish(rows)`` overwrites each machine's row (``rows``: mappings with ``asset`` and
    every field above); ``all()`` every row by channel and address."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def publish(self, rows: Sequence[dict]) -> None:
        assets = [r["asset"] for r in rows]
        have = {x.asset: x for x in self.s.scalars(select(SasLinkState).where(SasLinkState.asset.in_(assets)))}
        for r in rows:
            row = have.get(r["asset"])
            if row is None:
                self.s.add(SasLinkState(**{"asset": r["asset"], **{k: r[k] for k in _FIELDS}}))
            else:
                for k in _FIELDS:
                    setattr(row, k, r[k])
        self.s.flush()

    def all(self) -> list[SasLinkState]:
        return list(self.s.scalars(select(SasLinkState).order_by(SasLinkState.channel, SasLinkState.address)))
