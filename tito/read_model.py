"""TITO reports for the auditor (GLI-13 via NY 5317.38 / OK 325:85-21-18; G2S voucher class): the queries
(SQLAlchemy over TITO's tables) and :class:`TicketReports`, the read-side use case the routes call.

Every report takes an inclusive range of gaming days ``from``..``to`` (ISO ``YYYY-MM-DD``; the
casino's accounting day, :class:`slotsys.kernel.gaming_day.GamingDay`, 06:00 to 06:00 Asia/Seoul by
default; default the current gaming day; at most 366 days) where it is dated, and returns integer won:

- ``issued``: by issue date, issuing machine (or station) and type;
- ``redeemed``: by redemption date and channel (machine, cage, kiosk), with locations;
- ``outstanding``: every unredeemed ticket (issued, pending, expired) by issue date, issuer
  and sequence, with the ledger's ``tito:outstanding`` beside the total (they must agree);
- ``expired``: tickets now expired and unpaid, and those the cage honoured after expiry;
- ``voided``: voids with who, when, why and whether they were breakage;
- ``reconciliation``: each machine's tickets-out / tickets-in meters against the tickets on file;
- ``security``: unknown and mistyped presentations, refusals and terminal lock-outs, validation-ID
  rotations, and each SAS machine whose tickets arrived out of sequence (``sas_sequence``).

The grouping is pure (:mod:`tito.domain.reports`); the machines' meters come through
:class:`tito.services.ports.TicketMachines`.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from slotsys.kernel import accounts
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel.errors import ValidationFailed
from tito.adapters.tables import Ticket, TicketEvent
from tito.domain import reports as R
from tito.domain.tickets import EXPIRED, ISSUED, MACHINE, OUTSTANDING_STATES, PENDING, REDEEMED
from tito.services.ports import TicketMachines
from tito.settings import TitoSettings

MAX_DAYS = 366


# ------------------------------------------------------------------ queries
def issued_between(s: Session, since: datetime, until: datetime) -> list[R.IssuedRow]:
    return [R.IssuedRow(*r) for r in s.execute(
        select(Ticket.issued_at, Ticket.issued_by, Ticket.type, Ticket.amount)
        .where(Ticket.issued_at >= since, Ticket.issued_at < until))]


def redeemed_between(s: Session, since: datetime, until: datetime) -> list[R.RedeemedRow]:
    return [R.RedeemedRow(*r) for r in s.execute(
        select(Ticket.redeemed_at, Ticket.redeemed_channel, Ticket.redeemed_location, Ticket.type, Ticket.amount)
        .where(Ticket.status == REDEEMED, Ticket.redeemed_at >= since, Ticket.redeemed_at < until))]


def tickets_where(s: Session, *conditions, limit: int = 10_000) -> list[Ticket]:
    """Ticket rows by issue time, issuer and sequence."""
    return list(s.scalars(
        select(Ticket).where(*conditions).order_by(Ticket.issued_at, Ticket.issued_by, Ticket.sequence).limit(limit)))


def events_of_kind(s: Session, kinds: tuple[str, ...], since: datetime, until: datetime,
                   limit: int = 1000) -> list[TicketEvent]:
    return list(s.scalars(
        select(TicketEvent).where(TicketEvent.kind.in_(kinds), TicketEvent.at >= since, TicketEvent.at < until)
        .order_by(TicketEvent.id).limit(limit)))


def sas_tickets_between(s: Session, since: datetime, until: datetime) -> list[tuple[str, str, int | None, int]]:
    """(machine asset, validation number, ID generation, SAS sequence) of the SAS tickets issued
    in [since, until), per machine in arrival order (ticket id)."""
    return [tuple(r) for r in s.execute(  # type: ignore[misc]
        select(Ticket.issued_by, Ticket.validation_number, Ticket.sas_generation, Ticket.sas_sequence)
        .where(Ticket.scheme == "sas", Ticket.sas_sequence.is_not(None), Ticket.issued_at >= since,
               Ticket.issued_at < until)
        .order_by(Ticket.issued_by, Ticket.id))]


def machine_ticket_totals(s: Session) -> tuple[dict[int, tuple[int, int]], dict[str, tuple[int, int]]]:
    """The tickets on file per machine: (count, won) printed (cashable + promotional) by issuing machine id,
    and (count, won) accepted by the asset number of the machine that redeemed them."""
    issued = {int(mid): (int(n), int(won)) for mid, n, won in s.execute(
        select(Ticket.issued_machine_id, func.count(), func.coalesce(func.sum(Ticket.amount), 0))
        .where(Ticket.issued_machine_id.is_not(None), Ticket.type.in_(("cashable", "promotional")))
        .group_by(Ticket.issued_machine_id))}
    accepted = {loc: (int(n), int(won)) for loc, n, won in s.execute(
        select(Ticket.redeemed_location, func.count(), func.coalesce(func.sum(Ticket.amount), 0))
        .where(Ticket.status == REDEEMED, Ticket.redeemed_channel == MACHINE)
        .group_by(Ticket.redeemed_location))}
    return issued, accepted


def _row(t: Ticket, **extra) -> R.TicketRow:
    return R.TicketRow(t.validation_number, t.type, t.amount, t.status, t.issued_at, t.issued_by, t.sequence,
                       t.expires_at, tuple(extra.items()))


# ------------------------------------------------------------------ the reports
class TicketReports:
    """The auditor's reports (auditor; the security report also for supervisors), as plain JSON-able dicts.

    ``settings``: TITO's settings; ``machines``: the machines' ticket meters (reconciliation);
    ``gaming_day``: the floor's one gaming day, which dates every row and bounds every range."""

    def __init__(self, ctx: ServiceContext, settings: TitoSettings, machines: TicketMachines, *,
                 gaming_day: GamingDay) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines
        self.gaming_day = gaming_day
        self.day_of = gaming_day.day_of

    def _range(self, start: str | None, end: str | None) -> tuple[date, date, datetime, datetime]:
        today = self.day_of(self.ctx.clock.now())
        days = []
        for name, raw in (("from", start), ("to", end)):
            if raw in (None, ""):
                days.append(today)
                continue
            try:
                days.append(date.fromisoformat(raw))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValidationFailed(f"{name} must be a date YYYY-MM-DD, got {raw!r}", field=name) from None
        first, last = days
        if last < first:
            raise ValidationFailed("to is before from", field="to")
        if (last - first).days >= MAX_DAYS:
            raise ValidationFailed(f"a report covers at most {MAX_DAYS} days", field="to")
        # bounds in UTC: every timestamp is stored in UTC (SQLite compares them as text)
        since, until = self.gaming_day.bounds(first)[0], self.gaming_day.bounds(last)[1]
        return first, last, since, until

    def _head(self, kind: str, first: date | None = None, last: date | None = None) -> dict:
        gd = self.gaming_day
        head = {"report": kind, "generated_at": self.ctx.clock.now().isoformat(), "timezone": gd.zone,
                "gaming_day_starts": f"{gd.start_time:%H:%M}"}
        if first is not None and last is not None:
            head.update({"from": first.isoformat(), "to": last.isoformat(),
                         "from_instant": gd.bounds(first)[0].isoformat(), "to_instant": gd.bounds(last)[1].isoformat()})
        return head

    def issued(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        with self.ctx.uow(readonly=True) as uow:
            rows = issued_between(uow.session, since, until)
        return {**self._head("issued", first, last), **R.group_issued(rows, self.day_of)}

    def redeemed(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        with self.ctx.uow(readonly=True) as uow:
            rows = redeemed_between(uow.session, since, until)
        return {**self._head("redeemed", first, last), **R.group_redeemed(rows, self.day_of)}

    def outstanding(self, principal: Principal) -> dict:
        require_role(principal, "auditor")
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            tickets = tickets_where(uow.session, Ticket.status.in_(OUTSTANDING_STATES), limit=1_000_000)
            ledger = uow.ledger.balance(accounts.TICKETS_OUTSTANDING)
            rows = [_row(t, expired=t.status == EXPIRED or (t.status in (ISSUED, PENDING) and t.expires_at <= now))
                    for t in tickets]
        out = R.outstanding_by_date(rows, self.day_of)
        out["ledger_outstanding"] = ledger
        out["agrees"] = ledger == out["total"]["amount"]
        return {**self._head("outstanding"), **out}

    def expired(self, principal: Principal, start: str | None, end: str | None) -> dict:
        """Expired and unpaid (by expiry date in range), and honoured after expiry (by payment date)."""
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        now = self.ctx.clock.now()
        day_of = self.day_of
        with self.ctx.uow(readonly=True) as uow:
            unpaid = tickets_where(uow.session, Ticket.status.in_(OUTSTANDING_STATES), Ticket.expires_at >= since,
                                   Ticket.expires_at < min(until, now))
            honoured = tickets_where(uow.session, Ticket.status == REDEEMED, Ticket.expiry_override_by.is_not(None),
                                     Ticket.redeemed_at >= since, Ticket.redeemed_at < until)
            unpaid_rows = [R.ticket_dict(_row(t), day_of) for t in unpaid]
            honoured_rows = [R.ticket_dict(_row(t, redeemed_at=t.redeemed_at.isoformat(), redeemed_by=t.redeemed_by,
                                                approved_by=t.expiry_override_by,
                                                approval_reason=t.expiry_override_reason), day_of) for t in honoured]
        return {**self._head("expired", first, last),
                "expired_unpaid": {"tickets": unpaid_rows, "count": len(unpaid_rows),
                                   "amount": sum(t["amount"] for t in unpaid_rows)},
                "honoured_after_expiry": {"tickets": honoured_rows, "count": len(honoured_rows),
                                          "amount": sum(t["amount"] for t in honoured_rows)}}

    def voided(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        day_of = self.day_of
        with self.ctx.uow(readonly=True) as uow:
            voids = tickets_where(uow.session, Ticket.status == "voided", Ticket.voided_at >= since,
                                  Ticket.voided_at < until)
            rows = [R.ticket_dict(_row(t, voided_at=t.voided_at.isoformat(), voided_by=t.voided_by,
                                       reason=t.void_reason, breakage=t.expires_at <= t.voided_at), day_of) for t in voids]
        return {**self._head("voided", first, last), "tickets": rows, "count": len(rows),
                "amount": sum(r["amount"] for r in rows),
                "breakage_amount": sum(r["amount"] for r in rows if r["breakage"])}

    def reconciliation(self, principal: Principal) -> dict:
        require_role(principal, "auditor")
        with self.ctx.uow(readonly=True) as uow:
            issued, accepted = machine_ticket_totals(uow.session)
            machines = []
            for m in self.machines.ticket_meters(uow):  # a retired machine's tickets still count
                (ic, ia), (ac, aa) = issued.get(m.id, (0, 0)), accepted.get(m.asset_number, (0, 0))
                machines.append(R.MachineMeters(m.asset_number, m.tickets_out, m.tickets_out_count, m.tickets_in,
                                                m.tickets_in_count, ia, ic, aa, ac))
        return {**self._head("reconciliation"), **R.reconcile_machines(machines)}

    def security(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor", "supervisor")
        first, last, since, until = self._range(start, end)
        kinds = ("unknown_presented", "mistyped_presented", "refused", "terminal_locked", "voided", "expiry_override",
                 "validation_id_rotated", "validation_id_set")
        with self.ctx.uow(readonly=True) as uow:
            events = events_of_kind(uow.session, kinds, since, until, limit=5000)
            sas = sas_tickets_between(uow.session, since, until)
            rows = [{"kind": e.kind, "at": e.at.isoformat(), "terminal": e.actor, "channel": e.channel,
                     "location": e.location, "validation_number": e.validation_number, **(e.detail or {})}
                    for e in events]
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["kind"]] = counts.get(r["kind"], 0) + 1
        return {**self._head("security", first, last), "counts": counts, "events": rows,
                "sas_sequence": R.sas_sequence_check(sas)}
