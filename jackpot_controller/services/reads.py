"""The jackpot controller's reads: levels, hits, handpays waiting, the event log, the sequencer's queue.

Amounts in won unless ``_milli``; the mystery trigger is never shown. Any authenticated caller reads the
levels (staff also see reserve, overflow and pending changes); the routes check the other roles.
Errors: ``NotFound`` for an unknown level (field ``code`` or ``level``).
"""

from __future__ import annotations

from typing import Any

from jackpot_controller.domain.records import UNPAID, Hit
from jackpot_controller.services.ports import JackpotUnitOfWork, MachinePort
from jackpot_controller.services.views import event_row, hit_row, level_view
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import NotFound


class JackpotReads:
    """``machines``: the winners' asset numbers."""

    def __init__(self, ctx: ServiceContext, *, machines: MachinePort) -> None:
        self.ctx = ctx
        self.machines = machines

    def levels(self, principal: Principal | None = None) -> dict[str, Any]:
        """{"levels": [level view]}: every level with its live value; staff also see reserve, overflow and
        pending changes."""
        staff = principal is not None and principal.kind == "staff"
        with self.ctx.uow(readonly=True) as uow:
            return {"levels": [level_view(lv, staff=staff) for lv in uow.levels.all()]}

    def level(self, code: str) -> dict[str, Any]:
        """A level's parameters, meters and its last 25 hits (``history``)."""
        with self.ctx.uow(readonly=True) as uow:
            lv = uow.levels.get(code)
            if lv is None:
                raise NotFound(f"jackpot level {code!r} does not exist", field="code")
            return {**level_view(lv), "history": self._rows(uow, uow.levels.recent_hits(level_id=lv.id, limit=25))}

    def _rows(self, uow: JackpotUnitOfWork, hits: list[Hit]) -> list[dict[str, Any]]:
        levels = {lv.id: lv for lv in uow.levels.all()}
        assets = self.machines.assets(uow, {h.machine_id for h in hits}) if hits else {}
        return [hit_row(h, levels[h.level_id], assets[h.machine_id]) for h in hits]

    def hits(self, limit: int = 25, level: str | None = None) -> dict[str, Any]:
        """{"hits": [...]}: the last ``limit`` (1 … 500) hits, newest first, optionally of one level."""
        with self.ctx.uow(readonly=True) as uow:
            level_id = None
            if level:
                lv = uow.levels.get(level)
                if lv is None:
                    raise NotFound(f"jackpot level {level!r} does not exist", field="level")
                level_id = lv.id
            return {"hits": self._rows(uow, uow.levels.recent_hits(level_id=level_id, limit=max(1, min(limit, 500))))}

    def handpays(self) -> dict[str, Any]:
        """{"waiting": [...]}: hits waiting for an attendant (handpay) or an operator (verification)."""
        with self.ctx.uow(readonly=True) as uow:
            return {"waiting": self._rows(uow, uow.levels.hits_with_status(("handpay", "verification")))}

    def events(self, limit: int = 100, level: str | None = None) -> dict[str, Any]:
        """{"events": [...]}: the auditor-visible log, newest first: corrections (with reasons), parameter
        changes, pauses, second hits, verification locks with raw values, claim timeouts, zone moves."""
        with self.ctx.uow(readonly=True) as uow:
            return {"events": [event_row(e) for e in uow.levels.events(limit=max(1, min(limit, 1000)),
                                                                        level_code=level)]}

    def queue(self) -> dict[str, Any]:
        """The sequencer's queue: wagers waiting to be folded (``pending``), the oldest one's time, and the
        won decided but unpaid by level id."""
        with self.ctx.uow(readonly=True) as uow:
            oldest = uow.levels.oldest_pending_at()
            return {"pending": uow.levels.pending_count(), "oldest": oldest.isoformat() if oldest else None,
                    "unpaid": dict(uow.levels.unpaid_by_level()), "unpaid_statuses": list(UNPAID)}

    def levels_in_zone(self, uow: JackpotUnitOfWork, zone: str) -> list[str]:
        """Codes of the levels whose eligibility names ``zone`` (in the caller's transaction: the floor
        refuses to retire a zone a level still names)."""
        return uow.levels.codes_in_zone(zone)
