"""Ticket use cases shared by every channel: issue, present, redeem, look up.

Issue (SAS §15 / G2S voucher class): a machine's cash-out prints one ticket per credit
type (cashable, promotional); an attendant's handpay prints a handpay receipt; a station
prints promotional tickets. Each issue is one balanced journal entry
``Dr <source> / Cr tito:outstanding`` in the issuing transaction.

Present: every channel (machine, cage, kiosk) goes through :func:`lock_for_presentation`:
the ticket row is locked ``FOR UPDATE`` and judged by the pure
:func:`tito.domain.tickets.check_presentation`, so a ticket pays once whichever channel
presents it, and the others are told *why not* with a distinct problem type:

=====================================  ======  ========================================
refusal                                status  problem type
=====================================  ======  ========================================
malformed number                       422     validation-failed
check digit wrong (mistyped)           422     check-digit-wrong
not on file                            404     ticket-not-on-file
already redeemed (where, when)         409     ticket-already-redeemed
in process at another location         409     ticket-pending-elsewhere
expired                                409     ticket-expired
voided (when, by whom, why)            409     ticket-voided
amount differs from the one on file    422     ticket-amount-mismatch (field ``amount``)
promotional ticket at the cage         409     ticket-promotional-not-cashable
type not paid by this channel          409     ticket-not-accepted-here
terminal locked out (brute force)      429     too-many-unknown-tickets
=====================================  ======  ========================================

Redeem: :func:`redeem_locked` posts ``Dr tito:outstanding / Cr <channel account>`` and
moves the row ``from_status → redeemed`` with a conditional UPDATE, in the caller's
transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import structlog

from slotsys.floor.adapters.tables import Machine
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import Conflict, DomainError, HandpayRequired, InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.context import ServiceContext
from tito.adapters.repo import TicketRepo
from tito.adapters.tables import Ticket
from tito.domain import guard as G
from tito.domain.tickets import (
    CASHABLE,
    HANDPAY_RECEIPT,
    PROMOTIONAL,
    Refusal,
    TicketSnapshot,
    check_presentation,
    effective_status,
)
from tito.domain.validation import (
    CheckDigitError,
    InvalidValidationNumber,
    SasSecureEnhanced,
    SystemValidation,
    format_for_reading,
    normalize,
)
from tito.settings import get_tito_settings

log = structlog.get_logger("tito")


# ------------------------------------------------------------------- errors
class CheckDigitWrong(ValidationFailed):
    code = "check-digit-wrong"
    title = "Validation number mistyped (check digit wrong)"


class TicketNotOnFile(NotFound):
    code = "ticket-not-on-file"
    title = "Ticket not on file"


class TicketRefused(Conflict):
    """Base of the refusals of a ticket that is on file."""

    code = "ticket-not-payable"
    title = "Ticket cannot be paid"


class TicketAlreadyRedeemed(TicketRefused):
    code = "ticket-already-redeemed"
    title = "Ticket already redeemed"


class TicketPendingElsewhere(TicketRefused):
    code = "ticket-pending-elsewhere"
    title = "Ticket in process at another location"


class TicketExpired(TicketRefused):
    code = "ticket-expired"
    title = "Ticket expired"


class TicketVoided(TicketRefused):
    code = "ticket-voided"
    title = "Ticket voided"


class PromotionalAtCage(TicketRefused):
    code = "ticket-promotional-not-cashable"
    title = "Promotional ticket: not cashable"


class TicketNotAcceptedHere(TicketRefused):
    code = "ticket-not-accepted-here"
    title = "Ticket type not accepted here"


class TicketZeroAmount(TicketRefused):
    code = "ticket-zero-amount"
    title = "Ticket amount is zero"


class TicketAmountMismatch(ValidationFailed):
    code = "ticket-amount-mismatch"
    title = "Amount differs from the one on file"


class TerminalThrottled(DomainError):
    status = 429
    code = "too-many-unknown-tickets"
    title = "Too many unknown ticket numbers from this terminal"


_REFUSALS: dict[str, type[DomainError]] = {
    "already_redeemed": TicketAlreadyRedeemed,
    "pending_elsewhere": TicketPendingElsewhere,
    "expired": TicketExpired,
    "voided": TicketVoided,
    "promotional_at_cage": PromotionalAtCage,
    "not_accepted_here": TicketNotAcceptedHere,
    "zero_amount": TicketZeroAmount,
    "amount_mismatch": TicketAmountMismatch,
}


def refusal_error(r: Refusal) -> DomainError:
    cls = _REFUSALS[r.reason]
    field = "amount" if r.reason == "amount_mismatch" else "validation_number"
    return cls(r.detail, field=field, reason=r.reason, **r.extra)


# ------------------------------------------------------------------ numbers
def parse_number(raw: object) -> str:
    """A presented validation number (spaces and hyphens allowed) → its 18 digits.

    Raises :class:`CheckDigitWrong` (422, mistyped: the check digit fails) or
    ``ValidationFailed`` (422, not a validation number), both naming ``validation_number``.
    """
    try:
        return normalize(raw)  # type: ignore[arg-type]
    except CheckDigitError as e:
        raise CheckDigitWrong(f"{e.reason}; please re-enter the number", field="validation_number",
                              scheme=e.scheme) from None
    except InvalidValidationNumber as e:
        raise ValidationFailed(str(e), field="validation_number") from None


# -------------------------------------------------------------------- views
def snapshot(t: Ticket) -> TicketSnapshot:
    return TicketSnapshot(
        status=t.status, type=t.type, amount=t.amount, expires_at=t.expires_at, pending_location=t.pending_location,
        pending_until=t.pending_until, pending_since=t.pending_since, redeemed_at=t.redeemed_at,
        redeemed_channel=t.redeemed_channel, redeemed_location=t.redeemed_location, voided_at=t.voided_at,
        voided_by=t.voided_by, void_reason=t.void_reason, expiry_override_by=t.expiry_override_by,
    )


def _iso(ts) -> str | None:
    return ts.isoformat() if ts else None


def ticket_view(t: Ticket, now=None) -> dict:
    """A ticket as the API shows it (amount in won, times ISO 8601 UTC)."""
    vn = t.validation_number
    view = {
        "validation_number": vn,
        "display_number": format_for_reading(vn),
        "scheme": t.scheme,
        "type": t.type,
        "amount": t.amount,
        "status": t.status,
        "issued_by": t.issued_by,
        "issued_location": t.issued_location,
        "sequence": t.sequence,
        "issued_at": t.issued_at.isoformat(),
        "expires_at": t.expires_at.isoformat(),
        "redeemed_at": _iso(t.redeemed_at),
        "redeemed_channel": t.redeemed_channel,
        "redeemed_location": t.redeemed_location,
        "redeemed_by": t.redeemed_by,
        "barcode_url": f"/api/v1/tickets/{vn}/barcode.png",
        "qr_url": f"/api/v1/tickets/{vn}/qr.png",
        "ticket_png_url": f"/api/v1/tickets/{vn}/ticket.png",
        "ticket_pdf_url": f"/api/v1/tickets/{vn}/ticket.pdf",
    }
    if now is not None:
        view["effective_status"] = effective_status(snapshot(t), now)
    if t.pending_location:
        view.update(pending_location=t.pending_location, pending_since=_iso(t.pending_since),
                    pending_until=_iso(t.pending_until))
    if t.voided_at:
        view.update(voided_at=_iso(t.voided_at), voided_by=t.voided_by, void_reason=t.void_reason)
    if t.expiry_override_by:
        view.update(expiry_override_by=t.expiry_override_by, expiry_override_at=_iso(t.expiry_override_at),
                    expiry_override_reason=t.expiry_override_reason)
    return view


# -------------------------------------------------------------------- issue
def _next_number(repo: TicketRepo, ctx: ServiceContext, machine: Machine | None) -> tuple[str, str, int | None]:
    """(validation number, scheme, SAS sequence used or None) for the next ticket of ``machine``
    (or of a station: system). A SAS sequence skipped here (its number still on file after a
    2**24 wrap) shows as a gap in the security report."""
    if machine is not None and machine.validation_scheme == "sas" and machine.sas_validation_id is not None:
        gen = SasSecureEnhanced(machine.sas_validation_id, machine.sas_sequence or 0)
        for _ in range(64):  # after a 2**24 wrap a number may still be on file: skip its sequence
            seq = gen.next_sequence
            vn = gen.next_number()
            if not repo.exists(vn):
                machine.sas_sequence = gen.next_sequence
                return vn, "sas", seq
        raise Conflict("no free SAS validation number in 64 sequences: rotate the machine's validation ID")
    gen_sys = SystemValidation(ctx.rng.randbelow)
    for _ in range(10):
        vn = gen_sys.next_number()
        if not repo.exists(vn):
            return vn, "system", None
    raise Conflict("could not draw a unique validation number")  # pragma: no cover - 10 clashes in ~2**56


def issue_ticket(uow, ctx: ServiceContext, *, ticket_type: str, amount: int, debit_account: str | None = None,
                 debit_accounts: list[tuple[str, int]] | None = None, machine: Machine | None = None,
                 station: str | None = None, actor: str, expiry_days: int | None = None) -> Ticket:
    """Issue one ticket of ``ticket_type`` for ``amount`` won, moving it from ``debit_account``
    (or from several: ``debit_accounts`` [(account, won)], summing to ``amount``).

    Issued by ``machine`` (its validation scheme and ticket sequence; location zone/asset) or
    by ``station`` (system validation; sequence from the station's counter). Ledger:
    ``Dr debit_account / Cr tito:outstanding``. Expiry: ``expiry_days`` or the floor's
    ``ticket_expiry_days`` (default 30). The caller holds the machine's row lock.
    """
    repo = TicketRepo(uow.session)
    now = ctx.clock.now()
    vn, scheme, sas_sequence = _next_number(repo, ctx, machine)
    if machine is not None:
        issuer, location = machine.asset_number, f"{machine.zone}/{machine.asset_number}"
        machine.ticket_seq = (machine.ticket_seq or 0) + 1
        sequence = machine.ticket_seq
    else:
        issuer = location = station or "STATION"
        sequence = repo.next_value(f"station:{issuer}")
    e = L.EntryBuilder("tito.issue", f"{ticket_type} ticket {issuer}")
    sources = debit_accounts if debit_accounts is not None else [(debit_account, amount)]
    if sum(won for _, won in sources) != amount:
        raise ValueError("the debited accounts must sum to the ticket amount")  # pragma: no cover - caller bug
    for account, won in sources:
        e.add(debit=account, credit=accounts.TICKETS_OUTSTANDING, amount=won)
    entry_id = uow.ledger.post(e.build({"issued_by": issuer, "validation_number": vn, "type": ticket_type}))
    days = expiry_days or ctx.settings.ticket_expiry_days
    t = repo.add(Ticket(
        validation_number=vn, scheme=scheme, type=ticket_type, amount=amount, status="issued",
        issued_machine_id=machine.id if machine is not None else None, issued_by=issuer, issued_location=location,
        sequence=sequence, issued_at=now, expires_at=now + timedelta(days=days), issue_entry_id=entry_id,
        sas_sequence=sas_sequence,
        sas_generation=(machine.sas_generation or 0) if sas_sequence is not None and machine is not None else None,
    ))
    repo.log("issued", actor=actor, at=now, ticket_id=t.id, channel="machine" if machine else "station",
             location=issuer, amount=amount, type=ticket_type)
    return t


def promo_credits(uow, asset: str) -> int:
    """Promotional credits (won) on a machine: restricted + non-restricted (0 if never used)."""
    return uow.machines.credits(asset).promotional


def credit_view(credits) -> dict:
    """A machine's credit meters as responses show them: ``credits`` (cashable),
    ``restricted_credits``, ``nonrestricted_credits`` and ``promo_credits`` (their sum), won."""
    return {"credits": credits.cashable, "promo_credits": credits.promotional,
            "restricted_credits": credits.restricted, "nonrestricted_credits": credits.nonrestricted}


def ensure_promo_meter(uow, asset: str) -> str:
    """The machine's restricted promotional meter (``machine:<asset>:promo``), created if needed."""
    return _ensure(uow, accounts.machine_restricted(asset), L.AccountType.LIABILITY, non_negative=True)


def ensure_nonrestricted_meter(uow, asset: str) -> str:
    """The machine's non-restricted promotional meter (``machine:<asset>:nonrestricted``)."""
    return _ensure(uow, accounts.machine_nonrestricted(asset), L.AccountType.LIABILITY, non_negative=True)


def _ensure(uow, code: str, type_: L.AccountType, non_negative: bool = False) -> str:
    uow.ledger.ensure_account(code, type_, non_negative=non_negative)
    return code


def cash_out_machine(uow, ctx: ServiceContext, m: Machine) -> dict:
    """Cash out everything on a machine (caller holds its row lock): one ticket per credit type.

    Cashable and non-restricted promotional credits → one ``cashable`` ticket (non-restricted
    promotional credits are the player's to cash, SAS §15); restricted promotional credits → a
    ``promotional`` (restricted) ticket, never cash (SAS §15: one credit type per ticket). Ledger:
    ``Dr machine:<a>:credits, Dr machine:<a>:nonrestricted / Cr tito:outstanding`` and
    ``Dr machine:<a>:promo / Cr tito:outstanding``. Raises ``InsufficientFunds`` (409) when every
    meter is 0, :class:`HandpayRequired` (409) when the cashable ticket would exceed
    ``SLOTSYS_TITO_TICKET_LIMIT_WON`` (an attendant pays it: ``POST …/handpay``). Meters:
    tickets_out / tickets_out_count per ticket. Returns ``{"machine", "ticket" (the first),
    "tickets", "credits", "promo_credits", "restricted_credits", "nonrestricted_credits"}``.
    """
    asset = m.asset_number
    meters = uow.machines.credits(asset)
    cashable = meters.cashable + meters.nonrestricted
    if meters.total <= 0:
        raise InsufficientFunds("there are no credits to cash out")
    limit = get_tito_settings().ticket_limit_won
    if limit and cashable > limit:
        raise HandpayRequired(f"₩{cashable:,} is above the ticket limit ₩{limit:,}: an attendant pays it as a handpay",
                              amount=cashable, ticket_limit=limit)
    issued = []
    if cashable > 0:
        issued.append(issue_ticket(uow, ctx, ticket_type=CASHABLE, amount=cashable,
                                   debit_accounts=_cashable_sources(asset, meters), machine=m, actor=f"machine:{asset}"))
    if meters.restricted > 0:
        issued.append(issue_ticket(uow, ctx, ticket_type=PROMOTIONAL, amount=meters.restricted,
                                   debit_account=accounts.machine_restricted(asset), machine=m, actor=f"machine:{asset}"))
    uow.machines.add_meters(m.id, tickets_out=sum(t.amount for t in issued), tickets_out_count=len(issued))
    views = [ticket_view(t) for t in issued]
    return {"machine": asset, "ticket": views[0], "tickets": views, **credit_view(uow.machines.credits(asset))}


def _cashable_sources(asset: str, meters) -> list[tuple[str, int]]:
    """The meters a cashable ticket or handpay is paid from: cashable, then non-restricted promo."""
    return [(code, won) for code, won in ((accounts.machine_credits(asset), meters.cashable),
                                          (accounts.machine_nonrestricted(asset), meters.nonrestricted)) if won > 0]


def issue_handpay_receipt(uow, ctx: ServiceContext, m: Machine, attendant: str) -> dict:
    """An attendant's handpay of a machine's cashable (and non-restricted promotional) credits,
    with a handpay receipt ticket.

    Ledger: ``Dr machine:<asset>:credits (+ Dr machine:<asset>:nonrestricted) / Cr tito:outstanding``;
    the receipt is paid at the cage or a kiosk (not a machine voucher). Restricted promotional
    credits stay on the machine. Meters: handpay_out / handpay_out_count.
    Raises ``InsufficientFunds`` (409) when there are no cashable credits.
    """
    asset = m.asset_number
    meters = uow.machines.credits(asset)
    amount = meters.cashable + meters.nonrestricted
    if amount <= 0:
        raise InsufficientFunds("there are no cashable credits to pay by hand")
    t = issue_ticket(uow, ctx, ticket_type=HANDPAY_RECEIPT, amount=amount, debit_accounts=_cashable_sources(asset, meters),
                     machine=m, actor=f"staff:{attendant}")
    uow.machines.add_meters(m.id, handpay_out=amount, handpay_out_count=1)
    return {"machine": asset, "ticket": ticket_view(t), "credits": uow.ledger.balance(accounts.machine_credits(asset)),
            "attendant": attendant}


# ------------------------------------------------------------------ present
def lock_for_presentation(uow, ctx: ServiceContext, vn: str, *, channel: str, location: str, terminal: str,
                          expected_amount: int | None = None) -> Ticket:
    """The ticket row locked ``FOR UPDATE`` (with the terminal's guard state, one round trip) and
    judged for ``channel`` at ``location``.

    Returns the locked ticket, or raises :class:`TerminalThrottled`, :class:`TicketNotOnFile`
    or the refusal's error (see the module table). Changes nothing.
    """
    now = ctx.clock.now()
    t, blocked = TicketRepo(uow.session).get_for_presentation(vn, terminal)
    if t is None:
        raise TicketNotOnFile("validation number not on file", field="validation_number")
    if blocked is not None and blocked > now:
        raise TerminalThrottled(
            f"too many unknown or mistyped ticket numbers from this terminal: try again after {blocked.isoformat()}",
            field="validation_number", retry_after=blocked.isoformat())
    refusal = check_presentation(snapshot(t), channel=channel, location=location, now=now,
                                 expected_amount=expected_amount)
    if refusal is not None:
        raise refusal_error(refusal)
    return t


def redeem_locked(uow, ctx: ServiceContext, t: Ticket, *, channel: str, location: str, by: str, credit_account: str,
                  session_id: int | None = None, event: str = "redeemed", **detail) -> dict:
    """Redeem a ticket already locked and judged by :func:`lock_for_presentation`.

    One journal entry ``Dr tito:outstanding / Cr credit_account`` (a machine's credit or
    promo meter, a cashier drawer, a kiosk cassette; ``InsufficientFunds`` 409 if a drawer
    or cassette cannot pay it) and the row ``status → redeemed`` recording channel,
    location, who and when. Returns the ticket view.
    """
    now = ctx.clock.now()
    repo = TicketRepo(uow.session)
    e = L.EntryBuilder("tito.redeem", f"ticket redeemed at {channel} {location}")
    e.add(debit=accounts.TICKETS_OUTSTANDING, credit=credit_account, amount=t.amount)
    entry_id = uow.ledger.post(e.build({"validation_number": t.validation_number, "channel": channel,
                                        "location": location}))
    if not repo.mark_redeemed(t.id, from_status=t.status, at=now, channel=channel, location=location, by=by,
                              entry_id=entry_id, session_id=session_id):
        raise TicketAlreadyRedeemed("ticket already redeemed", field="validation_number")  # pragma: no cover - row lock
    repo.log(event, actor=by, at=now, ticket_id=t.id, channel=channel, location=location, amount=t.amount, **detail)
    view = ticket_view(t)
    view.update(status="redeemed", redeemed_at=now.isoformat(), redeemed_channel=channel, redeemed_location=location,
                redeemed_by=by)
    return view


def presenting(ctx: ServiceContext, *, terminal: str, channel: str, location: str, raw: object,
               run: Callable[[str], Any]) -> Any:
    """Run ``run(validation_number)`` for a presentation, with the guard and the refusal log.

    A check-digit failure or a number not on file counts against ``terminal`` in the
    brute-force guard (:mod:`tito.domain.guard`) and is logged; reaching the limit locks the
    terminal out (429 from then on, logged once as ``terminal_locked``). A refusal of a
    ticket on file (already redeemed, pending elsewhere ...) is logged as ``refused`` with
    the reason: a photocopied ticket leaves a trail. Logs are written in their own
    transaction after the refused one rolled back.
    """
    try:
        vn = parse_number(raw)
    except CheckDigitWrong as e:
        _guard_failure(ctx, terminal, channel, location, str(raw)[:18], "check_digit_wrong")
        raise e from None
    try:
        return run(vn)
    except TicketNotOnFile:
        _guard_failure(ctx, terminal, channel, location, vn, "not_on_file")
        raise
    except (TicketRefused, TicketAmountMismatch) as e:
        _log_refusal(ctx, terminal, channel, location, vn, e)
        raise


def _guard_failure(ctx: ServiceContext, terminal: str, channel: str, location: str, number: str, reason: str) -> None:
    now = ctx.clock.now()
    policy = get_tito_settings().guard
    with ctx.uow() as uow:
        repo = TicketRepo(uow.session)
        row = repo.guard(terminal, for_update=True)
        state = G.GuardState(row.window_start, row.failures, row.blocked_until)
        was_blocked = G.blocked_until(state, now)
        new, newly = G.record_failure(state, now, policy)
        row.window_start, row.failures, row.blocked_until = new.window_start, new.failures, new.blocked_until
        repo.log("unknown_presented" if reason == "not_on_file" else "mistyped_presented", actor=terminal, at=now,
                 validation_number=number if number.isdigit() and len(number) == 18 else None, channel=channel,
                 location=location, reason=reason, failures=new.failures)
        if newly:
            repo.log("terminal_locked", actor=terminal, at=now, channel=channel, location=location,
                     failures=new.failures, blocked_until=new.blocked_until.isoformat())
            log.warning("tito.terminal_locked", terminal=terminal, failures=new.failures,
                        blocked_until=new.blocked_until.isoformat())
        uow.commit()
    log.info("tito.presentation_failed", terminal=terminal, reason=reason, failures=new.failures)
    if was_blocked is not None:
        raise TerminalThrottled(
            f"too many unknown or mistyped ticket numbers from this terminal: try again after {was_blocked.isoformat()}",
            field="validation_number", retry_after=was_blocked.isoformat())


def _log_refusal(ctx: ServiceContext, terminal: str, channel: str, location: str, vn: str, err: DomainError) -> None:
    now = ctx.clock.now()
    try:
        with ctx.uow() as uow:
            repo = TicketRepo(uow.session)
            t = repo.get(vn)
            repo.log("refused", actor=terminal, at=now, ticket_id=t.id if t else None, validation_number=vn,
                     channel=channel, location=location, reason=err.extra.get("reason", err.code))
            uow.commit()
    except Exception:  # the refusal stands even if its log line cannot be written
        log.warning("tito.refusal_log_failed", exc_info=True)
    log.info("tito.refused", terminal=terminal, channel=channel, location=location, reason=err.code)


def lookup(uow, vn: str, now=None) -> dict:
    """The ticket on file (404 :class:`TicketNotOnFile` otherwise), with its event trail."""
    repo = TicketRepo(uow.session)
    t = repo.get(vn)
    if t is None:
        raise TicketNotOnFile("validation number not on file", field="validation_number")
    view = ticket_view(t, now)
    view["events"] = [
        {"kind": ev.kind, "at": ev.at.isoformat(), "actor": ev.actor, "channel": ev.channel, "location": ev.location,
         **{k: v for k, v in (ev.detail or {}).items() if k not in ("kind", "at", "actor", "channel", "location")}}
        for ev in repo.events(t.id)
    ]
    return view
