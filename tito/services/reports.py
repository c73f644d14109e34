"""TITO reports for the auditor (GLI-13 via NY 5317.38 / OK 325:85-21-18; G2S voucher class).

Every report takes an inclusive range of casino-local dates ``from``..``to`` (ISO
``YYYY-MM-DD``; default today; at most 366 days) where it is dated, and returns integer won:

- ``issued``: by issue date, issuing machine (or station) and type;
- ``redeemed``: by redemption date and channel (machine, cage, kiosk), with locations;
- ``outstanding``: every unredeemed ticket (issued, pending, expired) by issue date, issuer
  and sequence, with the ledger's ``tito:outstanding`` beside the total (they must agree);
- ``expired``: tickets now expired and unpaid, and those the cage honoured after expiry;
- ``voided``: voids with who, when, why and whether they were breakage;
- ``reconciliation``: each machine's tickets-out / tickets-in meters against the tickets on file;
- ``security``: unknown and mistyped presentations, refusals and terminal lock-outs, validation-ID
  rotations, and each SAS machine whose tickets arrived out of sequence (``sas_sequence``).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from slotsys.kernel import accounts
from slotsys.kernel.errors import ValidationFailed
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_role
from tito.adapters.repo import TicketRepo
from tito.adapters.tables import Ticket
from tito.domain import reports as R
from tito.domain.tickets import EXPIRED, ISSUED, OUTSTANDING_STATES, PENDING
from tito.domain.validation import sequence_breaks
from tito.settings import get_tito_settings

MAX_DAYS = 366


def _row(t: Ticket, **extra) -> R.TicketRow:
    return R.TicketRow(t.validation_number, t.type, t.amount, t.status, t.issued_at, t.issued_by, t.sequence,
                       t.expires_at, tuple(extra.items()))


class TicketReports:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def _range(self, start: str | None, end: str | None) -> tuple[date, date, datetime, datetime]:
        tz = get_tito_settings().tz
        today = self.ctx.clock.now().astimezone(tz).date()
        days = []
        for name, raw in (("from", start), ("to", end)):
            if raw in (None, ""):
                days.append(today)
                continue
            try:
                days.append(date.fromisoformat(raw))
            except (TypeError, ValueError):
                raise ValidationFailed(f"{name} must be a date YYYY-MM-DD, got {raw!r}", field=name) from None
        first, last = days
        if last < first:
            raise ValidationFailed("to is before from", field="to")
        if (last - first).days >= MAX_DAYS:
            raise ValidationFailed(f"a report covers at most {MAX_DAYS} days", field="to")
        # bounds in UTC: every timestamp is stored in UTC (SQLite compares them as text)
        since = datetime.combine(first, time.min, tz).astimezone(timezone.utc)
        until = datetime.combine(last + timedelta(days=1), time.min, tz).astimezone(timezone.utc)
        return first, last, since, until

    def _head(self, kind: str, first: date | None = None, last: date | None = None) -> dict:
        head = {"report": kind, "generated_at": self.ctx.clock.now().isoformat(), "timezone": get_tito_settings().timezone}
        if first is not None:
            head.update({"from": first.isoformat(), "to": last.isoformat()})
        return head

    def issued(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        with self.ctx.uow(readonly=True) as uow:
            rows = [R.IssuedRow(*r) for r in TicketRepo(uow.session).issued_between(since, until)]
        return {**self._head("issued", first, last), **R.group_issued(rows, get_tito_settings().tz)}

    def redeemed(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        with self.ctx.uow(readonly=True) as uow:
            rows = [R.RedeemedRow(*r) for r in TicketRepo(uow.session).redeemed_between(since, until)]
        return {**self._head("redeemed", first, last), **R.group_redeemed(rows, get_tito_settings().tz)}

    def outstanding(self, principal: Principal) -> dict:
        require_role(principal, "auditor")
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            repo = TicketRepo(uow.session)
            tickets = repo.list_where(Ticket.status.in_(OUTSTANDING_STATES), limit=1_000_000)
            ledger = uow.ledger.balance(accounts.TICKETS_OUTSTANDING)
            rows = [_row(t, expired=t.status == EXPIRED or (t.status in (ISSUED, PENDING) and t.expires_at <= now))
                    for t in tickets]
        out = R.outstanding_by_date(rows, get_tito_settings().tz)
        out["ledger_outstanding"] = ledger
        out["agrees"] = ledger == out["total"]["amount"]
        return {**self._head("outstanding"), **out}

    def expired(self, principal: Principal, start: str | None, end: str | None) -> dict:
        """Expired and unpaid (by expiry date in range), and honoured after expiry (by payment date)."""
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        now = self.ctx.clock.now()
        tz = get_tito_settings().tz
        with self.ctx.uow(readonly=True) as uow:
            repo = TicketRepo(uow.session)
            unpaid = repo.list_where(Ticket.status.in_(OUTSTANDING_STATES), Ticket.expires_at >= since,
                                     Ticket.expires_at < min(until, now))
            honoured = repo.list_where(Ticket.status == "redeemed", Ticket.expiry_override_by.is_not(None),
                                       Ticket.redeemed_at >= since, Ticket.redeemed_at < until)
            unpaid_rows = [R.ticket_dict(_row(t), tz) for t in unpaid]
            honoured_rows = [R.ticket_dict(_row(t, redeemed_at=t.redeemed_at.isoformat(), redeemed_by=t.redeemed_by,
                                                approved_by=t.expiry_override_by,
                                                approval_reason=t.expiry_override_reason), tz) for t in honoured]
        return {**self._head("expired", first, last),
                "expired_unpaid": {"tickets": unpaid_rows, "count": len(unpaid_rows),
                                   "amount": sum(t["amount"] for t in unpaid_rows)},
                "honoured_after_expiry": {"tickets": honoured_rows, "count": len(honoured_rows),
                                          "amount": sum(t["amount"] for t in honoured_rows)}}

    def voided(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor")
        first, last, since, until = self._range(start, end)
        tz = get_tito_settings().tz
        with self.ctx.uow(readonly=True) as uow:
            voids = TicketRepo(uow.session).list_where(Ticket.status == "voided", Ticket.voided_at >= since,
                                                       Ticket.voided_at < until)
            rows = [R.ticket_dict(_row(t, voided_at=t.voided_at.isoformat(), voided_by=t.voided_by,
                                       reason=t.void_reason, breakage=t.expires_at <= t.voided_at), tz) for t in voids]
        return {**self._head("voided", first, last), "tickets": rows, "count": len(rows),
                "amount": sum(r["amount"] for r in rows),
                "breakage_amount": sum(r["amount"] for r in rows if r["breakage"])}

    def reconciliation(self, principal: Principal) -> dict:
        require_role(principal, "auditor")
        with self.ctx.uow(readonly=True) as uow:
            totals = TicketRepo(uow.session).machine_ticket_totals()
            machines = []
            for m in uow.machines.all(include_retired=True):  # a retired machine's tickets still count
                t = totals.get(m.id, {})
                (ic, ia), (ac, aa) = t.get("issued", (0, 0)), t.get("accepted", (0, 0))
                machines.append(R.MachineMeters(m.asset_number, m.tickets_out, m.tickets_out_count, m.tickets_in,
                                                m.tickets_in_count, ia, ic, aa, ac))
        return {**self._head("reconciliation"), **R.reconcile_machines(machines)}

    def security(self, principal: Principal, start: str | None, end: str | None) -> dict:
        require_role(principal, "auditor", "supervisor")
        first, last, since, until = self._range(start, end)
        kinds = ("unknown_presented", "mistyped_presented", "refused", "terminal_locked", "voided", "expiry_override",
                 "validation_id_rotated", "validation_id_set")
        with self.ctx.uow(readonly=True) as uow:
            repo = TicketRepo(uow.session)
            events = repo.events_of_kind(kinds, since, until, limit=5000)
            sas = repo.sas_tickets_between(since, until)
            rows = [{"kind": e.kind, "at": e.at.isoformat(), "terminal": e.actor, "channel": e.channel,
                     "location": e.location, "validation_number": e.validation_number, **(e.detail or {})}
                    for e in events]
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["kind"]] = counts.get(r["kind"], 0) + 1
        return {**self._head("security", first, last), "counts": counts, "events": rows,
                "sas_sequence": sas_sequence_check(sas)}


def sas_sequence_check(rows) -> dict:
    """Per SAS machine, its tickets of the period in arrival order checked against its sequence
    (:func:`tito.domain.validation.sequence_breaks`): ``flagged`` lists each machine with a gap, a
    repeat or a backwards jump — tickets printed and never reported, or numbers someone computed
    and got printed — with the tickets that broke the chain. A chain restarts at each rotation of
    the machine's validation ID; the first ticket of the period has no predecessor here."""
    by_machine: dict[str, list[tuple[str, int, int]]] = {}
    for asset, vn, gen, seq in rows:
        by_machine.setdefault(asset, []).append((vn, gen or 0, seq))
    flagged = []
    for asset, tickets in sorted(by_machine.items()):
        breaks = sequence_breaks(tickets)
        if breaks:
            flagged.append({"machine": asset, "tickets": len(tickets), "breaks": breaks,
                            "kinds": sorted({b["kind"] for b in breaks})})
    return {"machines_checked": len(by_machine), "tickets_checked": len(rows), "flagged": flagged}
