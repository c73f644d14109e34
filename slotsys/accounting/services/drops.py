"""Drop and count as use cases: the drop schedule, a stacker's count with its variances against the closed days'
meters and the ticket system, and a supervisor's acceptance of a variance. Rules: ``slotsys.accounting.domain.drop``.

Roles: counting ``cashier``, ``attendant`` or ``supervisor``; accepting a variance and setting the schedule
``supervisor``; listing variances ``supervisor`` or ``auditor`` (admin holds every role). The counter of a count
may not accept its variances (segregation of duties); a refused self-acceptance is audit-logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from slotsys.accounting.domain.closing import RecordedVariance
from slotsys.accounting.domain.drop import (
    OPEN, CountedTicket, DropRule, StackerCount, count_variances, expectation,
)
from slotsys.accounting.services.ports import AccountingUnitOfWork
from slotsys.accounting.services.results import CountResult, DropRuleResult, VarianceList, VarianceResult
from slotsys.kernel import audit_log
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, Forbidden, NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once

COUNTERS = ("cashier", "attendant", "supervisor")
ACCEPTERS = ("supervisor",)
VARIANCE_READERS = ("supervisor", "auditor")
SCHEDULERS = ("supervisor",)
STATES = (OPEN, "accepted", "balanced")


@dataclass(frozen=True)
class CountCommand:
    """One stacker as counted: machine ``asset``, its ``stacker``, the gaming ``day`` it was dropped on, the notes
    per denomination (won → number) and the tickets found (validation number, amount won)."""

    asset: str
    day: date
    stacker: str
    bills: Mapping[int, int]
    tickets: tuple[CountedTicket, ...] = ()


@dataclass(frozen=True)
class DropRuleCommand:
    """A machine's drop days (``asset`` ``*``: the floor's default): ISO ``weekdays`` (1 = Monday), or every
    ``every_days`` gaming days from ``anchor``; ``reason`` required."""

    weekdays: tuple[int, ...] | None
    every_days: int | None
    anchor: date | None
    reason: str


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


class DropService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    # ------------------------------------------------------------------ schedule
    def set_rule(self, principal: Principal, asset: str, cmd: DropRuleCommand) -> DropRuleResult:
        """Set the drop days of ``asset`` (supervisor). Raises :class:`ValidationFailed` (a bad rule: field
        ``weekdays`` / ``every_days`` / ``anchor``; no ``reason``), :class:`NotFound` (no such machine)."""
        require_role(principal, *SCHEDULERS)
        why = (cmd.reason or "").strip()
        if not why:
            raise ValidationFailed("a drop schedule change needs a reason", field="reason")
        try:
            rule = DropRule(every_days=cmd.every_days, anchor=cmd.anchor) if cmd.every_days is not None else \
                DropRule(weekdays=frozenset(cmd.weekdays if cmd.weekdays is not None else range(1, 8)))
        except ValueError as e:
            raise ValidationFailed(str(e), field="every_days" if cmd.every_days is not None else "weekdays") from None
        with self.ctx.uow() as uow:
            if asset != "*" and not uow.day_sources.asset_exists(asset):
                raise NotFound(f"machine {asset} is not on the floor", field="asset")
            uow.drops.add_rule(asset, rule, by=principal.name, at=self.ctx.clock.now(), reason=why[:400])
            out = DropRuleResult(asset=asset, weekdays=None if rule.every_days else sorted(rule.weekdays),
                                 every_days=rule.every_days, anchor=rule.anchor)
            audit_log.record(uow, principal, "drop.schedule", f"drop_schedule:{asset}", after=out.model_dump(mode="json"),
                             reason=why)
            uow.commit()
        return out

    # ------------------------------------------------------------------ count
    def record_count(self, principal: Principal, cmd: CountCommand, key: OnceKey) -> Once[CountResult]:
        """Record a stacker's count and its three variances (see ``domain.drop``), exactly once per
        Idempotency-Key. The drop's period (the gaming days since the machine's previous drop day, from the
        first closed day on) must be closed (409 ``day`` otherwise); a day that is no drop day of the machine is
        422 ``day``; a stacker counted already for that day 409 ``stacker``; notes of an unknown denomination or
        a ticket counted twice 422 ``bills`` / ``tickets``."""
        require_role(principal, *COUNTERS)

        def fn(uow: AccountingUnitOfWork) -> CountResult:
            now = self.ctx.clock.now()
            count = StackerCount(cmd.asset, cmd.stacker, cmd.day, principal.name, now, dict(cmd.bills), cmd.tickets)
            schedule = uow.drops.schedule()
            try:
                first, last = schedule.period(cmd.asset, cmd.day, since=uow.day_close.first_closed_day())
            except ValueError as e:
                raise ValidationFailed(str(e), field="day") from None
            closed = uow.day_close.closed_days(first, last)
            missing = [d for d in _days(first, last) if d not in closed]
            if missing:
                raise Conflict(f"close gaming day {missing[0].isoformat()} first: the drop of {cmd.day.isoformat()} "
                               f"holds {first.isoformat()} … {last.isoformat()}", field="day")
            days = uow.day_close.machine_days(cmd.asset, first, last)
            if not days:
                raise NotFound(f"machine {cmd.asset} is on no closed gaming day of the drop period", field="asset")
            rows = [days[d].figures for d in sorted(days)]
            system = uow.day_sources.machine_redemptions(cmd.asset, datetime.fromisoformat(rows[0]["opened_at"]),
                                                         datetime.fromisoformat(rows[-1]["closed_at"]))
            try:
                expected = expectation(cmd.asset, cmd.day, rows, system)
            except ValueError as e:
                raise Conflict(str(e), field="day") from None
            count_id = uow.drops.add_count(count)
            if count_id is None:
                raise Conflict(f"stacker {cmd.stacker} of {cmd.asset} was counted for {cmd.day.isoformat()} already",
                               field="stacker")
            recorded = uow.drops.add_variances(count_variances(count, expected), at=now, count_id=count_id)
            audit_log.record(uow, principal, "drop.count", f"stacker:{cmd.asset}:{cmd.stacker}",
                             after={"day": cmd.day.isoformat(), "bills_won": count.bills_won,
                                    "tickets_won": count.tickets_won},
                             detail={"variances": {r.variance.kind: r.variance.difference for r in recorded}}, at=now)
            return CountResult(count_id=count_id, asset=cmd.asset, stacker=cmd.stacker, day=cmd.day,
                               counter=principal.name, counted_at=now,
                               notes={str(d): n for d, n in sorted(count.bills.items())}, bills_won=count.bills_won,
                               tickets=len(count.tickets), tickets_won=count.tickets_won,
                               period={"first": first, "last": last},
                               variances=[VarianceResult.of(r) for r in recorded])

        return run_once(self.ctx, key, fn, result=CountResult)

    # ------------------------------------------------------------------ variances
    def accept(self, principal: Principal, variance_id: int, reason: str | None, key: OnceKey) -> Once[VarianceResult]:
        """Accept a variance (supervisor, not its counter, with a reason), exactly once per Idempotency-Key.
        Raises :class:`NotFound` (field ``variance_id``), :class:`Forbidden` (the counter; recorded in the audit
        log as refused), :class:`ValidationFailed` (no ``reason``), :class:`Conflict` (balanced or accepted)."""
        require_role(principal, *ACCEPTERS)

        def fn(uow: AccountingUnitOfWork) -> VarianceResult:
            rec = uow.drops.variance(variance_id)
            if rec is None:
                raise NotFound(f"variance {variance_id} does not exist", field="variance_id")
            now = self.ctx.clock.now()
            accepted = rec.variance.accept(by=principal.name, role=principal.role or "", reason=reason or "", at=now)
            if not uow.drops.accept(variance_id, by=principal.name, role=principal.role or "",
                                    reason=accepted.reason or "", at=now):
                raise Conflict(f"variance {variance_id} was accepted meanwhile", field="variance")
            v = accepted
            audit_log.record(uow, principal, "variance.accept", f"variance:{variance_id}",
                             before={"state": rec.variance.state}, after={"state": v.state}, reason=v.reason or "",
                             detail={"kind": v.kind, "subject": v.subject, "day": v.day.isoformat(),
                                     "difference": v.difference, "count_difference": v.count_difference,
                                     "counter": v.counter}, at=now)
            return VarianceResult.of(RecordedVariance(variance_id, v, rec.count_id))

        try:
            return run_once(self.ctx, key, fn, result=VarianceResult)
        except Forbidden as e:
            audit_log.record_refusal(self.ctx.uow, principal, "variance.accept", f"variance:{variance_id}", e.detail,
                                     reason=(reason or "")[:400])
            raise

    def variances(self, principal: Principal, *, state: str | None = None, day: date | None = None,
                  limit: int = 500) -> VarianceList:
        """Variances by ``state`` (open, accepted, balanced; None: all) and gaming ``day`` (supervisor, auditor)."""
        require_role(principal, *VARIANCE_READERS)
        if state is not None and state not in STATES:
            raise ValidationFailed(f"state must be one of {', '.join(STATES)}", field="state")
        with self.ctx.uow(readonly=True) as uow:
            rows = uow.drops.variances(state=state, day=day, limit=limit)
        return VarianceList(variances=[VarianceResult.of(r) for r in rows])
