"""TITO reports for the auditor, pure: grouping and reconciliation over plain rows.

The reports the reference lists (GLI-13 via NY 5317.38 / OK 325:85-21-18; G2S voucher
class): issued by date and device, redeemed by date and channel, outstanding liability by
issue date and sequence, expired and voided tickets, and each machine's tickets-out meter
against the tickets on file. Dates are **gaming days** (the casino's accounting day, 06:00 to
06:00 local by default: ``day_of`` is passed in, :meth:`slotsys.kernel.gaming_day.GamingDay.day_of`),
so a ticket printed at 03:50 belongs with the night's play, not with the next morning; amounts integer won; every list is sorted so the same data gives the same
report. Standard library only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime

from tito.domain.validation import sequence_breaks

__all__ = [
    "IssuedRow",
    "MachineMeters",
    "RedeemedRow",
    "TicketRow",
    "group_issued",
    "group_redeemed",
    "DayOf",
    "outstanding_by_date",
    "reconcile_machines",
    "sas_sequence_check",
    "ticket_dict",
]


DayOf = Callable[[datetime], date]  # an aware instant → the gaming day it belongs to


@dataclass(frozen=True)
class IssuedRow:
    issued_at: datetime
    issued_by: str
    type: str
    amount: int


@dataclass(frozen=True)
class RedeemedRow:
    redeemed_at: datetime
    channel: str
    location: str
    type: str
    amount: int


@dataclass(frozen=True)
class TicketRow:
    """One ticket as listed in the outstanding, expired and voided reports."""

    validation_number: str
    type: str
    amount: int
    status: str
    issued_at: datetime
    issued_by: str
    sequence: int
    expires_at: datetime
    extra: tuple[tuple[str, object], ...] = ()


def _total(items: Iterable[dict]) -> dict:
    items = list(items)
    return {"count": sum(i["count"] for i in items), "amount": sum(i["amount"] for i in items)}


def group_issued(rows: Iterable[IssuedRow], day_of: DayOf) -> dict:
    """Tickets issued, by gaming day and issuing machine (or station) and type.

    ``{"rows": [{"date", "issued_by", "type", "count", "amount"}], "by_type": {type: {count, amount}},
    "total": {count, amount}}``.
    """
    acc: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        a = acc[(day_of(r.issued_at).isoformat(), r.issued_by, r.type)]
        a[0] += 1
        a[1] += r.amount
        by_type[r.type][0] += 1
        by_type[r.type][1] += r.amount
    out = [{"date": d, "issued_by": m, "type": t, "count": c, "amount": s} for (d, m, t), (c, s) in sorted(acc.items())]
    return {"rows": out, "by_type": {t: {"count": c, "amount": s} for t, (c, s) in sorted(by_type.items())},
            "total": _total(out)}


def group_redeemed(rows: Iterable[RedeemedRow], day_of: DayOf) -> dict:
    """Tickets redeemed, by gaming day and channel (machine, cage, kiosk), with locations.

    ``{"rows": [{"date", "channel", "count", "amount"}], "by_location": [{"date", "channel",
    "location", "count", "amount"}], "total": {count, amount}}``.
    """
    by_channel: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    by_location: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        d = day_of(r.redeemed_at).isoformat()
        for acc, key in ((by_channel, (d, r.channel)), (by_location, (d, r.channel, r.location))):
            acc[key][0] += 1
            acc[key][1] += r.amount
    out = [{"date": d, "channel": ch, "count": c, "amount": s} for (d, ch), (c, s) in sorted(by_channel.items())]
    locs = [{"date": d, "channel": ch, "location": loc, "count": c, "amount": s}
            for (d, ch, loc), (c, s) in sorted(by_location.items())]
    return {"rows": out, "by_location": locs, "total": _total(out)}


def ticket_dict(t: TicketRow, day_of: DayOf) -> dict:
    return {
        "validation_number": t.validation_number, "type": t.type, "amount": t.amount, "status": t.status,
        "issue_date": day_of(t.issued_at).isoformat(), "issued_at": t.issued_at.isoformat(),
        "issued_by": t.issued_by, "sequence": t.sequence, "expires_at": t.expires_at.isoformat(), **dict(t.extra),
    }


def outstanding_by_date(rows: Iterable[TicketRow], day_of: DayOf) -> dict:
    """Unredeemed tickets listed by the gaming day of issue, then issuer and sequence, with subtotals.

    ``{"dates": [{"date", "count", "amount", "tickets": [...]}], "total": {count, amount}}``.
    """
    days: dict[str, list[TicketRow]] = defaultdict(list)
    for r in rows:
        days[day_of(r.issued_at).isoformat()].append(r)
    out = []
    for d in sorted(days):
        tickets = sorted(days[d], key=lambda t: (t.issued_by, t.sequence, t.issued_at))
        out.append({"date": d, "count": len(tickets), "amount": sum(t.amount for t in tickets),
                    "tickets": [ticket_dict(t, day_of) for t in tickets]})
    return {"dates": out, "total": _total(out)}


@dataclass(frozen=True)
class MachineMeters:
    """A machine's ticket meters and what the ticket file says it issued and accepted."""

    asset: str
    tickets_out_meter: int
    tickets_out_count_meter: int
    tickets_in_meter: int
    tickets_in_count_meter: int
    issued_amount: int
    issued_count: int
    accepted_amount: int
    accepted_count: int


def reconcile_machines(machines: Iterable[MachineMeters]) -> dict:
    """Each machine's tickets-out (and tickets-in) meters against the tickets on file.

    ``issued`` counts the cash-out tickets the machine printed (cashable and
    promotional; handpay receipts are not tickets-out); ``accepted`` the tickets it
    redeemed. A machine agrees when both amounts and both counts match.
    ``{"machines": [{asset, tickets_out: {meter, count_meter, issued, issued_count, difference},
    tickets_in: {...}, "agrees"}], "all_agree": bool, "disagreeing": [asset]}``.
    """
    rows = []
    for m in sorted(machines, key=lambda m: m.asset):
        out = {"meter": m.tickets_out_meter, "count_meter": m.tickets_out_count_meter, "issued": m.issued_amount,
               "issued_count": m.issued_count, "difference": m.tickets_out_meter - m.issued_amount}
        inn = {"meter": m.tickets_in_meter, "count_meter": m.tickets_in_count_meter, "accepted": m.accepted_amount,
               "accepted_count": m.accepted_count, "difference": m.tickets_in_meter - m.accepted_amount}
        agrees = (out["difference"] == 0 and m.tickets_out_count_meter == m.issued_count
                  and inn["difference"] == 0 and m.tickets_in_count_meter == m.accepted_count)
        rows.append({"asset": m.asset, "tickets_out": out, "tickets_in": inn, "agrees": agrees})
    bad = [r["asset"] for r in rows if not r["agrees"]]
    return {"machines": rows, "all_agree": not bad, "disagreeing": bad}


def sas_sequence_check(rows: Iterable[tuple[str, str, int | None, int]]) -> dict:
    """Per SAS machine, its tickets of the period in arrival order checked against its sequence
    (:func:`tito.domain.validation.sequence_breaks`). ``rows``: (machine asset, validation number, ID
    generation, SAS sequence) per machine in arrival order.

    ``{"machines_checked", "tickets_checked", "flagged": [{"machine", "tickets", "breaks", "kinds"}]}``:
    ``flagged`` lists each machine with a gap, a repeat or a backwards jump — tickets printed and never
    reported, or numbers someone computed and got printed — with the tickets that broke the chain. A
    chain restarts at each rotation of the machine's validation ID; the first ticket of the period has
    no predecessor here."""
    rows = list(rows)
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
