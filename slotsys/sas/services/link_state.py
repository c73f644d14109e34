"""Each SAS machine's link as the host last saw it, for the console: the host publishes its channels'
snapshots (:class:`~slotsys.sas.services.host.MachineSnapshot`) every few seconds (:meth:`LinkStateService.publish`,
called by :class:`~slotsys.sas.services.host.SasHost`'s reporter), the console reads them
(:meth:`LinkStateService.links`, ``GET /api/v1/sas/links``).

A row older than ``stale_after_s`` is marked ``stale``: the host that polls the machine has stopped publishing
(stopped, crashed, or cut from the database), so its counters say nothing about the link now. Operational state
only: the games, money and events of a SAS machine are on the ledger and the event log, never here.

Errors: :meth:`links` raises ``Forbidden`` (403) for a principal outside :data:`READERS`; :meth:`publish`
raises what the database raises (the host logs it, counts it and publishes again at the next interval).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any, Sequence

from pydantic import BaseModel, Field

from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.sas.services.host import MachineSnapshot

__all__ = ["READERS", "LinkView", "LinkStates", "LinkStateService"]

READERS = ("operator", "attendant", "auditor", "supervisor")  # and admin


class LinkView(BaseModel):
    """One SAS machine's link: counters since the host started; ``cycle_p99_ms`` the 99th percentile time between
    two general polls (SAS asks ≤ 200 ms); ``stale`` True when the host has not published it for ``stale_after_s``."""

    asset: str
    channel: str
    address: int = Field(ge=1, le=127)
    state: str
    enrolled: bool
    polls: int
    retries: int
    timeouts: int
    crc_errors: int
    last_exception: str | None
    signature: str = Field(description="unknown | pending | ok | mismatch")
    queued_long_polls: int
    cycle_p99_ms: float | None
    reported_at: datetime
    stale: bool


class LinkStates(BaseModel):
    """Every SAS machine's link, by channel and address, as of ``as_of`` (UTC)."""

    as_of: datetime
    stale_after_s: int
    links: list[LinkView]


class LinkStateService:
    """Publish and read the SAS links' state (see the module)."""

    def __init__(self, ctx: ServiceContext, *, stale_after_s: int = 15) -> None:
        self.ctx = ctx
        self.stale_after_s = stale_after_s

    def publish(self, channel: str, snapshots: Sequence[MachineSnapshot]) -> None:
        """Overwrite each machine's row with its snapshot, stamped with the clock's now (one transaction)."""
        now = self.ctx.clock.now()
        rows = []
        for s in snapshots:
            row = asdict(s)
            row.pop("cycle_p50_ms", None)
            rows.append({**row, "channel": channel[:120], "reported_at": now})
        if not rows:
            return
        with self.ctx.uow() as uow:
            uow.sas_links.publish(rows)
            uow.commit()

    def links(self, principal: Principal) -> LinkStates:
        """Every SAS machine's link (403 outside :data:`READERS`)."""
        require_role(principal, *READERS)
        now = self.ctx.clock.now()
        horizon = now - timedelta(seconds=self.stale_after_s)
        with self.ctx.uow(readonly=True) as uow:
            rows: list[Any] = uow.sas_links.all()
            links = [LinkView(asset=r.asset, channel=r.channel, address=r.address, state=r.state, enrolled=r.enrolled,
                              polls=r.polls, retries=r.retries, timeouts=r.timeouts, crc_errors=r.crc_errors,
                              last_exception=r.last_exception, signature=r.signature,
                              queued_long_polls=r.queued_long_polls, cycle_p99_ms=r.cycle_p99_ms,
                              reported_at=r.reported_at, stale=r.reported_at < horizon) for r in rows]
        return LinkStates(as_of=now, stale_after_s=self.stale_after_s, links=links)
