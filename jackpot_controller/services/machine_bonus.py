"""Mystery awards a machine pays itself (a SAS machine: a legacy bonus, long poll 8A): the awards left
``at_machine`` by :meth:`AwardService.settle` (see :mod:`jackpot_controller.services.awards`), read and settled by
whoever drives the machine (the SAS host's floor adapter), never importing it.

Flow (amounts in won; one hit = one award, its id the idempotency key):

1. :meth:`MachineBonuses.pending` — the machine's awards waiting to be paid on it, oldest first, each with the
   legacy bonus meter recorded before its first send (None until then).
2. :meth:`MachineBonuses.sending` — before the first 8A, the driver records the machine's bonus meter; the first
   value recorded is kept and returned to every later caller (a restarted host): an award is paid once the meter
   reaches that value plus the award, so a bonus the meter already shows is never sent again.
3. :meth:`MachineBonuses.paid` — the meter confirmed it: ``Dr jackpot:<L>:payable / Cr machine:<asset>:credits``
   (kind ``jackpot.award``, refs ``paid_on: on_machine``), the hit ``awarded``, the machine's jackpot meter and
   the game's recall, as a credited award. :meth:`MachineBonuses.refused` — the machine (or the host's guard)
   refused it: the hit becomes a ``handpay`` for the attendant's queue (paid from the cage as any jackpot
   handpay; the machine is not locked on the floor: it keeps playing and reporting).

Both are idempotent on the hit's status under its machine's row lock (lock order: machine row → hit row →
accounts): a repeated call after a lost answer changes nothing and returns what the hit is.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from jackpot_controller.domain.records import Hit
from jackpot_controller.services.ports import JackpotUnitOfWork, MachinePort
from jackpot_controller.services.views import award_view
from slotsys.kernel import accounts
from slotsys.kernel.context import ServiceContext
from slotsys.kernel.errors import NotFound

log = structlog.get_logger("jackpot_controller.machine_bonus")

AT_MACHINE = "at_machine"


@dataclass(frozen=True)
class PendingBonus:
    """An award to pay on machine ``asset``: ``hit`` its id, ``level`` its code, ``amount_won`` (whole credits of
    the machine), ``meter_before_won`` the machine's legacy bonus meter before the first send (None: not sent)."""

    hit: int
    level: str
    asset: str
    amount_won: int
    meter_before_won: int | None


@dataclass(frozen=True)
class BonusSettled:
    """What became of an at-machine award: ``status`` ``awarded`` | ``handpay`` (or what else it already was),
    ``entry`` the payment's journal entry (None unless awarded), ``changed`` False for a repeat."""

    hit: int
    status: str
    entry: int | None
    changed: bool


class MachineBonuses:
    """See the module. ``machines``: the floor's machines (:class:`MachinePort`)."""

    def __init__(self, ctx: ServiceContext, *, machines: MachinePort) -> None:
        self.ctx = ctx
        self.machines = machines

    def pending(self, asset: str, limit: int = 20) -> list[PendingBonus]:
        """The awards of machine ``asset`` waiting ``at_machine``, oldest first (at most ``limit``). An unknown
        asset has none."""
        with self.ctx.uow(readonly=True) as uow:
            try:
                machine_id = self.machines.machine_id(uow, asset)
            except NotFound:
                return []
            hits = uow.levels.hits_with_status((AT_MACHINE,), machine_id=machine_id, limit=limit)
            return [PendingBonus(h.id, uow.levels.by_id(h.level_id).code, asset, h.amount_won, h.bonus_meter_before)
                    for h in hits]

    def sending(self, hit_id: int, meter_before_won: int, *, asset: str | None = None) -> int | None:
        """Record the machine's legacy bonus meter (won, ≥ 0) before the award's first send; returns the value
        kept (the first recorded: a repeat or a restarted host gets the original), or None when the hit is no
        longer waiting at the machine (do not send). ``NotFound`` (``hit``) for an unknown hit, or one of another
        machine than ``asset`` (when given)."""
        with self.ctx.uow() as uow:
            hit = self._locked(uow, hit_id, asset)
            if hit.status != AT_MACHINE:
                return None
            if hit.bonus_meter_before is None:
                hit = uow.levels.update_hit(hit_id, bonus_meter_before=int(meter_before_won))
                uow.commit()
            return hit.bonus_meter_before

    def paid(self, hit_id: int, *, asset: str | None = None) -> BonusSettled:
        """The machine's bonus meter shows the award: credit it (see the module). A hit not ``at_machine``
        is returned as it is (``changed`` False). ``NotFound`` (``hit``; also one of another machine than
        ``asset``, when given)."""
        with self.ctx.uow() as uow:
            hit = self._locked(uow, hit_id, asset)
            if hit.status != AT_MACHINE:
                return BonusSettled(hit.id, hit.status, hit.award_entry_id, False)
            level = uow.levels.by_id(hit.level_id)
            m = self.machines.current(uow, hit.machine_id)
            now = self.ctx.clock.now()
            entry_id = self.machines.credit_bonus(
                uow, m, hit.amount_won, source_account=accounts.jackpot_payable(level.code), kind="jackpot.award",
                description=f"jackpot {level.code} cycle {hit.cycle} paid on {m.asset} as a machine bonus",
                memo=f"jackpot {level.code}",
                refs={"hit": hit.id, "level": level.code, "machine": m.asset, "paid_on": "on_machine"})
            hit = uow.levels.update_hit(hit.id, award_entry_id=entry_id, status="awarded", awarded_at=now)
            self.machines.add_jackpot_meter(uow, m.id, hit.amount_won)
            self.machines.record_award_on_round(uow, hit.machine_id, hit.game_number, award_view(hit, level))
            uow.levels.add_event(kind="bonus_paid", level_code=level.code, hit_id=hit.id, machine=m.asset,
                                 detail={"amount_won": hit.amount_won, "entry": entry_id,
                                         "meter_before_won": hit.bonus_meter_before}, created_at=now)
            uow.commit()
        log.info("jackpot.bonus_paid", hit=hit_id, entry=entry_id)
        return BonusSettled(hit_id, "awarded", entry_id, True)

    def refused(self, hit_id: int, reason: str, *, asset: str | None = None) -> BonusSettled:
        """The machine cannot pay the award (``reason``): it becomes a handpay for the attendant's queue (see the
        module). A hit not ``at_machine`` is returned as it is. ``NotFound`` (``hit``; also one of another
        machine than ``asset``, when given)."""
        with self.ctx.uow() as uow:
            hit = self._locked(uow, hit_id, asset)
            if hit.status != AT_MACHINE:
                return BonusSettled(hit.id, hit.status, hit.award_entry_id, False)
            level = uow.levels.by_id(hit.level_id)
            m = self.machines.current(uow, hit.machine_id)
            uow.levels.update_hit(hit.id, status="handpay", pay_method="handpay")
            uow.levels.add_event(kind="bonus_refused", level_code=level.code, hit_id=hit.id, machine=m.asset,
                                 reason=f"the machine did not pay it: {reason}"[:300],
                                 detail={"amount_won": hit.amount_won}, created_at=self.ctx.clock.now())
            uow.commit()
        log.warning("jackpot.bonus_refused", hit=hit_id, reason=reason)
        return BonusSettled(hit_id, "handpay", None, True)

    def _locked(self, uow: JackpotUnitOfWork, hit_id: int, asset: str | None) -> Hit:
        """The hit under its machine's row lock (then its own), checked to be ``asset``'s when given."""
        hit = uow.levels.hit(hit_id)
        if hit is None:
            raise NotFound(f"jackpot hit {hit_id} does not exist", field="hit")
        m = self.machines.lock_for_award(uow, hit.machine_id)
        if asset is not None and m.asset != asset:
            raise NotFound(f"jackpot hit {hit_id} is not an award of machine {asset}", field="hit")
        locked = uow.levels.hit(hit_id, for_update=True)
        assert locked is not None
        return locked
