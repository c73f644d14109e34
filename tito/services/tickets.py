"""Ticket use cases: issue on cash-out, look up, redeem (cage or another machine).

Redemption is one atomic state change ``issued → redeemed`` (a conditional UPDATE on a
row locked FOR UPDATE), so a ticket pays once whichever channel presents it, and the
second presentation is told when and where it was paid (reference: TITO incidents).
"""

from __future__ import annotations

from datetime import timedelta

from slotsys.adapters.db import Machine
from slotsys.domain import ledger as L
from slotsys.domain.errors import Conflict, NotFound, ValidationFailed
from tito.adapters.tables import Ticket
from tito.domain.validation import (
    CheckDigitError,
    InvalidValidationNumber,
    SystemValidation,
    format_for_reading,
    normalize,
)


class TicketAlreadyRedeemed(Conflict):
    code = "ticket-already-redeemed"
    title = "Ticket already redeemed"


class TicketNotPayable(Conflict):
    code = "ticket-not-payable"
    title = "Ticket cannot be paid"


class TicketNotOnFile(NotFound):
    code = "ticket-not-on-file"
    title = "Ticket not on file"


class CheckDigitWrong(ValidationFailed):
    code = "check-digit-wrong"
    title = "Validation number mistyped (check digit wrong)"


def parse_number(raw: object) -> str:
    """A presented validation number → 18 digits, or a 422 naming ``validation_number``."""
    try:
        return normalize(raw)  # type: ignore[arg-type]
    except CheckDigitError as e:
        raise CheckDigitWrong(f"{e.reason}; please re-enter the number", field="validation_number") from None
    except InvalidValidationNumber as e:
        raise ValidationFailed(str(e), field="validation_number") from None


def ticket_view(t: Ticket, asset: str | None = None) -> dict:
    return {
        "validation_number": t.validation_number,
        "display_number": format_for_reading(t.validation_number),
        "type": t.type,
        "amount": t.amount,
        "status": t.status,
        "issued_by": asset,
        "issued_location": t.issued_location,
        "sequence": t.sequence,
        "issued_at": t.issued_at.isoformat(),
        "expires_at": t.expires_at.isoformat(),
        "redeemed_at": t.redeemed_at.isoformat() if t.redeemed_at else None,
        "redeemed_channel": t.redeemed_channel,
        "redeemed_location": t.redeemed_location,
        "redeemed_by": t.redeemed_by,
        "barcode_url": f"/api/v1/tickets/{t.validation_number}/barcode.png",
    }


def issue_cashout(uow, ctx, machine: Machine, amount: int) -> dict:
    """Move ``amount`` won from the machine's credits to outstanding tickets and print a ticket.

    Ledger: Dr ``machine:<asset>:credits`` / Cr ``tito:outstanding``.
    """
    gen = SystemValidation(ctx.rng.randbelow)
    for _ in range(10):
        vn = gen.next_number()
        if not uow.tickets.exists(vn):
            break
    else:  # pragma: no cover - 10 clashes in a 2**56 space
        raise Conflict("could not draw a unique validation number")
    now = ctx.clock.now()
    asset = machine.asset_number
    e = L.EntryBuilder("tito.issue", f"cash-out ticket {asset}")
    e.add(debit=L.machine_credits(asset), credit=L.TICKETS_OUTSTANDING, amount=amount)
    entry_id = uow.ledger.post(e.build({"machine": asset, "validation_number": vn}))
    machine.ticket_seq = (machine.ticket_seq or 0) + 1
    t = uow.tickets.add(
        Ticket(
            validation_number=vn, type="cashable", amount=amount, status="issued", issued_machine_id=machine.id,
            issued_location=f"{machine.zone}/{asset}", sequence=machine.ticket_seq, issued_at=now,
            expires_at=now + timedelta(days=ctx.settings.ticket_expiry_days), issue_entry_id=entry_id,
        )
    )
    uow.machines.add_meters(machine.id, tickets_out=amount, tickets_out_count=1)
    return ticket_view(t, asset)


def _refuse_unpayable(uow, t: Ticket, now) -> None:
    if t.status == "redeemed":
        raise TicketAlreadyRedeemed(
            f"ticket already redeemed at {t.redeemed_channel} {t.redeemed_location} on {t.redeemed_at.isoformat()}",
            field="validation_number", redeemed_at=t.redeemed_at.isoformat(), redeemed_channel=t.redeemed_channel,
            redeemed_location=t.redeemed_location,
        )
    if t.status == "expired" or (t.status == "issued" and t.expires_at <= now):
        raise TicketNotPayable(f"ticket expired on {t.expires_at.isoformat()}", field="validation_number", reason="expired")
    if t.status != "issued":
        raise TicketNotPayable(f"ticket is {t.status}", field="validation_number", reason=t.status)


def redeem(uow, ctx, vn: str, *, channel: str, location: str, by: str, credit_account: str,
           expected_amount: int | None = None) -> dict:
    """Redeem a ticket exactly once, moving its amount from outstanding tickets to
    ``credit_account`` (a machine's credits, a cage drawer). Raises TicketNotOnFile (404),
    TicketAlreadyRedeemed / TicketNotPayable (409), ValidationFailed on an amount mismatch."""
    t = uow.tickets.get(vn, for_update=True)
    if t is None:
        raise TicketNotOnFile("validation number not on file", field="validation_number")
    now = ctx.clock.now()
    _refuse_unpayable(uow, t, now)
    if expected_amount is not None and expected_amount != t.amount:
        raise ValidationFailed(
            f"amount differs from the one on file (₩{t.amount:,})", field="amount", amount_on_file=t.amount
        )
    if not uow.tickets.mark_redeemed(t.id, at=now, channel=channel, location=location, by=by):
        raise TicketAlreadyRedeemed("ticket already redeemed", field="validation_number")
    e = L.EntryBuilder("tito.redeem", f"ticket redeemed at {channel} {location}")
    e.add(debit=L.TICKETS_OUTSTANDING, credit=credit_account, amount=t.amount)
    entry_id = uow.ledger.post(e.build({"validation_number": vn, "channel": channel}))
    uow.tickets.set_redeem_entry(t.id, entry_id)
    uow.session.refresh(t)
    issuer = uow.machines.get_by_id(t.issued_machine_id).asset_number
    return ticket_view(t, issuer)


def lookup(uow, vn: str) -> dict:
    t = uow.tickets.get(vn)
    if t is None:
        raise TicketNotOnFile("validation number not on file", field="validation_number")
    return ticket_view(t, uow.machines.get_by_id(t.issued_machine_id).asset_number)
