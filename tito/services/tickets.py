"""Ticket use cases shared by every channel: issue, present, redeem, look up (:class:`TicketBook`).

Issue (SAS §15 / G2S voucher class): a machine's cash-out prints one ticket per credit
type (cashable, promotional); an attendant's handpay prints a handpay receipt; a station
prints promotional tickets. Each issue is one balanced journal entry
``Dr <source> / Cr tito:outstanding`` in the issuing transaction.

Present: every channel (machine, cage, kiosk) goes through :meth:`TicketBook.lock_for_presentation`:
the ticket row is locked ``FOR UPDATE`` and judged by the pure
:func:`tito.domain.tickets.check_presentation`, so a ticket pays once whichever channel
presents it, and the others are told *why not* with a distinct problem type (the table in
:mod:`tito.domain.errors`).

Redeem: :meth:`TicketBook.redeem_locked` posts ``Dr tito:outstanding / Cr <channel account>`` and
moves the ticket ``from_status → redeemed`` with a conditional update, in the caller's
transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

import structlog

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import ServiceContext
from slotsys.kernel.credits import Credits
from slotsys.kernel.errors import Conflict, DomainError, InsufficientFunds, ValidationFailed
from tito.domain import guard as G
from tito.domain.errors import (  # noqa: F401 (re-exported: the refusals every channel raises)
    CheckDigitWrong,
    HandpayRequired,
    PromotionalAtCage,
    TerminalThrottled,
    TicketAlreadyRedeemed,
    TicketAmountMismatch,
    TicketExpired,
    TicketNotAcceptedHere,
    TicketNotOnFile,
    TicketPendingElsewhere,
    TicketRefused,
    TicketVoided,
    TicketZeroAmount,
    refusal_error,
)
from tito.domain.machines import MachineView
from tito.domain.tickets import (
    CASHABLE,
    HANDPAY_RECEIPT,
    PROMOTIONAL,
    NewTicket,
    Ticket,
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
    sas_secure_enhanced_number,
)
from tito.services.ports import TicketMachines, TitoUnitOfWork
from tito.services.results import CashOut, HandpayReceipt, TicketLookup, TicketPrinted, TicketView
from tito.settings import TitoSettings

log = structlog.get_logger("tito")
R = TypeVar("R")


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
def snapshot(t: Any) -> TicketSnapshot:
    """What the presentation rules read of a ticket: a :class:`~tito.domain.tickets.Ticket`, or any
    object with the ticket's attributes."""
    if isinstance(t, Ticket):
        return t.snapshot()
    return TicketSnapshot(
        status=t.status, type=t.type, amount=t.amount, expires_at=t.expires_at, pending_location=t.pending_location,
        pending_until=t.pending_until, pending_since=t.pending_since, redeemed_at=t.redeemed_at,
        redeemed_channel=t.redeemed_channel, redeemed_location=t.redeemed_location, voided_at=t.voided_at,
        voided_by=t.voided_by, void_reason=t.void_reason, expiry_override_by=t.expiry_override_by,
    )


def _iso(ts: datetime | None) -> str | None:
    return ts.isoformat() if ts else None


def ticket_view(t: Ticket, now: datetime | None = None) -> TicketView:
    """A ticket as the API shows it (amount in won, times ISO 8601 UTC; ``effective_status`` given ``now``)."""
    vn = t.validation_number
    return TicketView.model_construct(  # trusted values from the ticket on file: no validation on the hot path
        validation_number=vn, display_number=format_for_reading(vn), scheme=t.scheme, type=t.type, amount=t.amount,
        status=t.status, issued_by=t.issued_by, issued_location=t.issued_location, sequence=t.sequence,
        issued_at=t.issued_at.isoformat(), expires_at=t.expires_at.isoformat(), redeemed_at=_iso(t.redeemed_at),
        redeemed_channel=t.redeemed_channel, redeemed_location=t.redeemed_location, redeemed_by=t.redeemed_by,
        barcode_url=f"/api/v1/tickets/{vn}/barcode.png", qr_url=f"/api/v1/tickets/{vn}/qr.png",
        ticket_png_url=f"/api/v1/tickets/{vn}/ticket.png", ticket_pdf_url=f"/api/v1/tickets/{vn}/ticket.pdf",
        effective_status=effective_status(t.snapshot(), now) if now is not None else None,
        pending_location=t.pending_location, pending_since=_iso(t.pending_since), pending_until=_iso(t.pending_until),
        voided_at=_iso(t.voided_at), voided_by=t.voided_by, void_reason=t.void_reason,
        expiry_override_by=t.expiry_override_by, expiry_override_at=_iso(t.expiry_override_at),
        expiry_override_reason=t.expiry_override_reason,
    )


def credit_view(credits: Credits) -> dict[str, int]:
    """A machine's credit meters as results show them: ``credits`` (cashable),
    ``promo_credits`` (restricted + non-restricted), ``restricted_credits``, ``nonrestricted_credits``, won."""
    return {"credits": credits.cashable, "promo_credits": credits.promotional,
            "restricted_credits": credits.restricted, "nonrestricted_credits": credits.nonrestricted}


def cashable_sources(asset: str, meters: Credits) -> list[tuple[str, int]]:
    """The meters a cashable ticket or handpay is paid from: cashable, then non-restricted promo (won > 0)."""
    return [(code, won) for code, won in ((accounts.machine_credits(asset), meters.cashable),
                                          (accounts.machine_nonrestricted(asset), meters.nonrestricted)) if won > 0]


def ensure_promo_meter(uow, asset: str) -> str:
    """The machine's restricted promotional meter (``machine:<asset>:promo``), created if needed."""
    code = accounts.machine_restricted(asset)
    uow.ledger.ensure_account(code, L.AccountType.LIABILITY, non_negative=True)
    return code


def ensure_nonrestricted_meter(uow, asset: str) -> str:
    """The machine's non-restricted promotional meter (``machine:<asset>:nonrestricted``), created if needed."""
    code = accounts.machine_nonrestricted(asset)
    uow.ledger.ensure_account(code, L.AccountType.LIABILITY, non_negative=True)
    return code


def lookup_ticket(uow: TitoUnitOfWork, vn: str, now: datetime | None = None) -> TicketLookup:
    """The ticket on file (404 :class:`TicketNotOnFile` otherwise), with its event trail."""
    t = uow.tickets.get(vn)
    if t is None:
        raise TicketNotOnFile("validation number not on file", field="validation_number")
    reserved = ("kind", "at", "actor", "channel", "location")
    events = [{"kind": ev.kind, "at": ev.at.isoformat(), "actor": ev.actor, "channel": ev.channel,
               "location": ev.location, **{k: v for k, v in (ev.detail or {}).items() if k not in reserved}}
              for ev in uow.tickets.events(t.id)]
    return TicketLookup(**ticket_view(t, now).__dict__, events=events)


# ------------------------------------------------------------------ the book
class TicketBook:
    """Issue, present and redeem tickets, for every channel's use cases.

    ``settings``: the process's TITO settings (ticket limit, brute-force guard); ``machines``: the slot
    machines (:class:`~tito.services.ports.TicketMachines`)."""

    def __init__(self, ctx: ServiceContext, settings: TitoSettings, machines: TicketMachines) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines

    # ---------------------------------------------------------------- issue
    def _next_number(self, uow: TitoUnitOfWork, machine: MachineView | None) -> tuple[str, str, int | None, int]:
        """(validation number, scheme, SAS sequence used or None, next SAS sequence) for the next ticket of
        ``machine`` (or of a station: system). A SAS sequence skipped here (its number still on file after a
        2**24 wrap) shows as a gap in the security report."""
        if machine is not None and machine.numbering.uses_sas:
            n = machine.numbering
            gen = SasSecureEnhanced(n.sas_validation_id, n.sas_sequence or 0)  # type: ignore[arg-type]
            for _ in range(64):  # after a 2**24 wrap a number may still be on file: skip its sequence
                seq = gen.next_sequence
                vn = gen.next_number()
                if not uow.tickets.exists(vn):
                    return vn, "sas", seq, gen.next_sequence
            raise Conflict("no free SAS validation number in 64 sequences: rotate the machine's validation ID")
        gen_sys = SystemValidation(self.ctx.rng.randbelow)
        for _ in range(10):
            vn = gen_sys.next_number()
            if not uow.tickets.exists(vn):
                return vn, "system", None, 0
        raise Conflict("could not draw a unique validation number")  # pragma: no cover - 10 clashes in ~2**56

    def _printed_number(self, machine: MachineView, vn: str) -> tuple[str, str, int | None, int]:
        """(``vn``, scheme, SAS sequence used or None, next SAS sequence) for a number the machine itself printed
        (SAS §15: the machine numbers its secure enhanced tickets from the validation ID and sequence the host
        set; a system number came from the host by long poll 58). A secure enhanced number is matched against
        the next 64 sequences of the machine's validation ID, so the floor's sequence follows the machine's;
        one that matches none is put on file all the same (the player holds it) without a sequence."""
        n = machine.numbering
        if not vn.startswith("00") or not n.uses_sas:
            return vn, "system" if not vn.startswith("00") else "sas", None, n.sas_sequence or 0
        start = n.sas_sequence or 0
        for k in range(64):
            seq = (start + k) & 0xFFFFFF
            if sas_secure_enhanced_number(n.sas_validation_id, seq) == vn:  # type: ignore[arg-type]
                return vn, "sas", seq, (seq + 1) & 0xFFFFFF
        return vn, "sas", None, start

    def issue(self, uow: TitoUnitOfWork, *, ticket_type: str, amount: int, debit_accounts: list[tuple[str, int]],
              machine: MachineView | None = None, station: str | None = None, actor: str,
              expiry_days: int | None = None, printed_number: str | None = None) -> tuple[Ticket, MachineView | None]:
        """Issue one ticket of ``ticket_type`` for ``amount`` won, moving it from ``debit_accounts``
        [(account, won)], summing to ``amount``.

        Issued by ``machine`` (its validation scheme and ticket sequence; location zone/asset) or
        by ``station`` (system validation; sequence from the station's counter). Ledger:
        ``Dr <account> / Cr tito:outstanding``. Expiry: ``expiry_days`` or the floor's
        ``ticket_expiry_days`` (default 30). The caller holds the machine's row lock. Returns the
        ticket and the machine with its numbering advanced (for the next ticket of the same cash-out).
        ``printed_number``: the validation number the ``machine`` printed itself (:meth:`printed_cash_out`).
        """
        now = self.ctx.clock.now()
        if printed_number is not None and machine is not None:
            vn, scheme, sas_sequence, next_sas = self._printed_number(machine, printed_number)
        else:
            vn, scheme, sas_sequence, next_sas = self._next_number(uow, machine)
        if machine is not None:
            numbering = replace(machine.numbering, ticket_seq=machine.numbering.ticket_seq + 1,
                                **({"sas_sequence": next_sas} if sas_sequence is not None else {}))
            self.machines.save_numbering(uow, machine.id, numbering)
            machine = replace(machine, numbering=numbering)
            issuer, location, sequence = machine.asset_number, machine.location, numbering.ticket_seq
        else:
            issuer = location = station or "STATION"
            sequence = uow.tickets.next_value(f"station:{issuer}")
        if sum(won for _, won in debit_accounts) != amount:
            raise ValueError("the debited accounts must sum to the ticket amount")  # pragma: no cover - caller bug
        e = L.EntryBuilder("tito.issue", f"{ticket_type} ticket {issuer}")
        for account, won in debit_accounts:
            e.add(debit=account, credit=accounts.TICKETS_OUTSTANDING, amount=won)
        entry_id = uow.ledger.post(e.build({"issued_by": issuer, "validation_number": vn, "type": ticket_type}))
        days = expiry_days or self.ctx.settings.ticket_expiry_days
        t = uow.tickets.add(NewTicket(
            validation_number=vn, scheme=scheme, type=ticket_type, amount=amount,
            issued_machine_id=machine.id if machine is not None else None, issued_by=issuer, issued_location=location,
            sequence=sequence, issued_at=now, expires_at=now + timedelta(days=days), issue_entry_id=entry_id,
            sas_sequence=sas_sequence,
            sas_generation=machine.numbering.sas_generation if sas_sequence is not None and machine else None,
        ))
        uow.tickets.log("issued", actor=actor, at=now, ticket_id=t.id, channel="machine" if machine else "station",
                        location=issuer, amount=amount, type=ticket_type)
        return t, machine

    def cash_out(self, uow: TitoUnitOfWork, machine: MachineView) -> CashOut:
        """Cash out everything on a machine (the caller holds its row lock): one ticket per credit type.

        Cashable and non-restricted promotional credits → one ``cashable`` ticket (non-restricted
        promotional credits are the player's to cash, SAS §15); restricted promotional credits → a
        ``promotional`` (restricted) ticket, never cash (SAS §15: one credit type per ticket). Ledger:
        ``Dr machine:<a>:credits, Dr machine:<a>:nonrestricted / Cr tito:outstanding`` and
        ``Dr machine:<a>:promo / Cr tito:outstanding``. Raises ``InsufficientFunds`` (409) when every
        meter is 0, :class:`HandpayRequired` (409; ``amount``, ``ticket_limit``) when the cashable ticket
        would exceed ``SLOTSYS_TITO_TICKET_LIMIT_WON`` (an attendant pays it: ``POST …/handpay``). Meters:
        tickets_out / tickets_out_count per ticket.
        """
        asset = machine.asset_number
        meters = self.machines.credits(uow, asset)
        cashable = meters.cashable + meters.nonrestricted
        if meters.total <= 0:
            raise InsufficientFunds("there are no credits to cash out")
        limit = self.settings.ticket_limit_won
        if limit and cashable > limit:
            raise HandpayRequired(f"₩{cashable:,} is above the ticket limit ₩{limit:,}: an attendant pays it as a handpay",
                                  amount=cashable, ticket_limit=limit)
        issued: list[Ticket] = []
        m: MachineView | None = machine
        if cashable > 0:
            t, m = self.issue(uow, ticket_type=CASHABLE, amount=cashable, debit_accounts=cashable_sources(asset, meters),
                              machine=m, actor=f"machine:{asset}")
            issued.append(t)
        if meters.restricted > 0:
            t, m = self.issue(uow, ticket_type=PROMOTIONAL, amount=meters.restricted,
                              debit_accounts=[(accounts.machine_restricted(asset), meters.restricted)], machine=m,
                              actor=f"machine:{asset}")
            issued.append(t)
        self.machines.add_ticket_meters(uow, machine.id, tickets_out=sum(t.amount for t in issued),
                                        tickets_out_count=len(issued))
        views = [ticket_view(t) for t in issued]
        return CashOut(machine=asset, ticket=views[0], tickets=views, **credit_view(self.machines.credits(uow, asset)))

    def printed_cash_out(self, uow: TitoUnitOfWork, machine: MachineView, validation_number: object,
                         amount: int) -> TicketPrinted:
        """A cashable ticket the machine printed with its own number (a SAS machine: the machine decides its
        cash-out and numbers the ticket; the caller holds the machine's row lock). Puts ``validation_number``
        (18 digits, checked: :func:`parse_number`) on file for ``amount`` won, paid from the cashable meter, then
        the non-restricted promotional one, as :meth:`cash_out` pays a cashable ticket. Ledger: ``Dr
        machine:<a>:credits (+ Dr machine:<a>:nonrestricted) / Cr tito:outstanding``; meters tickets_out /
        tickets_out_count. Raises ``ValidationFailed`` / :class:`CheckDigitWrong` (422 ``validation_number``),
        ``Conflict`` (409 ``validation_number``: already on file), ``ValidationFailed`` (422 ``amount``: not
        positive) and ``InsufficientFunds`` (409 ``amount``) when the machine's cashable credits on the floor
        are less than the ticket."""
        vn = parse_number(validation_number)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise ValidationFailed("amount is a positive integer of won", field="amount")
        if uow.tickets.exists(vn):
            raise Conflict(f"validation number {vn} is already on file", field="validation_number")
        asset = machine.asset_number
        meters = self.machines.credits(uow, asset)
        if meters.cashable + meters.nonrestricted < amount:
            raise InsufficientFunds(f"the machine printed ₩{amount:,} but its cashable credits on the floor are "
                                    f"₩{meters.cashable + meters.nonrestricted:,}", field="amount",
                                    credits=meters.to_dict())
        cash = min(amount, meters.cashable)
        sources = [(code, won) for code, won in ((accounts.machine_credits(asset), cash),
                                                 (accounts.machine_nonrestricted(asset), amount - cash)) if won > 0]
        t, _ = self.issue(uow, ticket_type=CASHABLE, amount=amount, debit_accounts=sources, machine=machine,
                          actor=f"machine:{asset}", printed_number=vn)
        self.machines.add_ticket_meters(uow, machine.id, tickets_out=amount, tickets_out_count=1)
        return TicketPrinted(machine=asset, ticket=ticket_view(t), verified=t.sas_sequence is not None
                             or t.scheme == "system", **credit_view(self.machines.credits(uow, asset)))

    def handpay_receipt(self, uow: TitoUnitOfWork, machine: MachineView, attendant: str) -> HandpayReceipt:
        """An attendant's handpay of a machine's cashable (and non-restricted promotional) credits,
        with a handpay receipt ticket (the caller holds the machine's row lock).

        Ledger: ``Dr machine:<asset>:credits (+ Dr machine:<asset>:nonrestricted) / Cr tito:outstanding``;
        the receipt is paid at the cage or a kiosk (not a machine voucher). Restricted promotional
        credits stay on the machine. Meters: handpay_out / handpay_out_count.
        Raises ``InsufficientFunds`` (409) when there are no cashable credits.
        """
        asset = machine.asset_number
        meters = self.machines.credits(uow, asset)
        amount = meters.cashable + meters.nonrestricted
        if amount <= 0:
            raise InsufficientFunds("there are no cashable credits to pay by hand")
        t, _ = self.issue(uow, ticket_type=HANDPAY_RECEIPT, amount=amount, debit_accounts=cashable_sources(asset, meters),
                          machine=machine, actor=f"staff:{attendant}")
        self.machines.add_ticket_meters(uow, machine.id, handpay_out=amount, handpay_out_count=1)
        return HandpayReceipt(machine=asset, ticket=ticket_view(t),
                              credits=uow.ledger.balance(accounts.machine_credits(asset)), attendant=attendant)

    # ---------------------------------------------------------------- present
    def lock_for_presentation(self, uow: TitoUnitOfWork, vn: str, *, channel: str, location: str, terminal: str,
                              expected_amount: int | None = None) -> Ticket:
        """The ticket locked ``FOR UPDATE`` (with the terminal's guard state, one round trip) and
        judged for ``channel`` at ``location``.

        Returns the locked ticket, or raises :class:`TerminalThrottled`, :class:`TicketNotOnFile`
        or the refusal's error (:func:`tito.domain.errors.refusal_error`). Changes nothing.
        """
        now = self.ctx.clock.now()
        t, blocked = uow.tickets.get_for_presentation(vn, terminal)
        if t is None:
            raise TicketNotOnFile("validation number not on file", field="validation_number")
        if blocked is not None and blocked > now:
            raise TerminalThrottled(
                f"too many unknown or mistyped ticket numbers from this terminal: try again after {blocked.isoformat()}",
                field="validation_number", retry_after=blocked.isoformat())
        refusal = check_presentation(t.snapshot(), channel=channel, location=location, now=now,
                                     expected_amount=expected_amount)
        if refusal is not None:
            raise refusal_error(refusal)
        return t

    def redeem_locked(self, uow: TitoUnitOfWork, t: Ticket, *, channel: str, location: str, by: str,
                      credit_account: str, session_id: int | None = None, event: str = "redeemed",
                      **detail: Any) -> TicketView:
        """Redeem a ticket already locked and judged by :meth:`lock_for_presentation`.

        One journal entry ``Dr tito:outstanding / Cr credit_account`` (a machine's credit or
        promo meter, a cashier drawer, a kiosk cassette; ``InsufficientFunds`` 409 if a drawer
        or cassette cannot pay it) and the ticket ``status → redeemed`` recording channel,
        location, who and when. Returns the ticket view after it.
        """
        now = self.ctx.clock.now()
        e = L.EntryBuilder("tito.redeem", f"ticket redeemed at {channel} {location}")
        e.add(debit=accounts.TICKETS_OUTSTANDING, credit=credit_account, amount=t.amount)
        entry_id = uow.ledger.post(e.build({"validation_number": t.validation_number, "channel": channel,
                                            "location": location}))
        if not uow.tickets.mark_redeemed(t.id, from_status=t.status, at=now, channel=channel, location=location,
                                         by=by, entry_id=entry_id, session_id=session_id):
            raise TicketAlreadyRedeemed("ticket already redeemed", field="validation_number")  # pragma: no cover - row lock
        uow.tickets.log(event, actor=by, at=now, ticket_id=t.id, channel=channel, location=location, amount=t.amount,
                        **detail)
        # the ticket as presented (its hold, if a machine held it), now redeemed here
        return ticket_view(t).model_copy(update={"status": "redeemed", "redeemed_at": now.isoformat(),
                                                 "redeemed_channel": channel, "redeemed_location": location,
                                                 "redeemed_by": by})

    def presenting(self, *, terminal: str, channel: str, location: str, raw: object, run: Callable[[str], R]) -> R:
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
            self._guard_failure(terminal, channel, location, str(raw)[:18], "check_digit_wrong")
            raise e from None
        try:
            return run(vn)
        except TicketNotOnFile:
            self._guard_failure(terminal, channel, location, vn, "not_on_file")
            raise
        except (TicketRefused, TicketAmountMismatch) as e:
            self._log_refusal(terminal, channel, location, vn, e)
            raise

    def _guard_failure(self, terminal: str, channel: str, location: str, number: str, reason: str) -> None:
        now = self.ctx.clock.now()
        policy = self.settings.guard
        with self.ctx.uow() as uow:
            state = uow.tickets.guard_state(terminal)
            was_blocked = G.blocked_until(state, now)
            new, newly = G.record_failure(state, now, policy)
            uow.tickets.save_guard_state(terminal, new)
            uow.tickets.log("unknown_presented" if reason == "not_on_file" else "mistyped_presented", actor=terminal,
                            at=now, validation_number=number if number.isdigit() and len(number) == 18 else None,
                            channel=channel, location=location, reason=reason, failures=new.failures)
            if newly:
                assert new.blocked_until is not None
                uow.tickets.log("terminal_locked", actor=terminal, at=now, channel=channel, location=location,
                                failures=new.failures, blocked_until=new.blocked_until.isoformat())
                log.warning("tito.terminal_locked", terminal=terminal, failures=new.failures,
                            blocked_until=new.blocked_until.isoformat())
            uow.commit()
        log.info("tito.presentation_failed", terminal=terminal, reason=reason, failures=new.failures)
        if was_blocked is not None:
            raise TerminalThrottled(
                f"too many unknown or mistyped ticket numbers from this terminal: try again after {was_blocked.isoformat()}",
                field="validation_number", retry_after=was_blocked.isoformat())

    def _log_refusal(self, terminal: str, channel: str, location: str, vn: str, err: DomainError) -> None:
        now = self.ctx.clock.now()
        try:
            with self.ctx.uow() as uow:
                t = uow.tickets.get(vn)
                uow.tickets.log("refused", actor=terminal, at=now, ticket_id=t.id if t else None, validation_number=vn,
                                channel=channel, location=location, reason=err.extra.get("reason", err.code))
                uow.commit()
        except Exception:  # the refusal stands even if its log line cannot be written
            log.warning("tito.refusal_log_failed", exc_info=True)
        log.info("tito.refused", terminal=terminal, channel=channel, location=location, reason=err.code)


# ------------------------------------------------------------------ for the screens
def lookup(uow, vn: str, now: datetime | None = None) -> dict:
    """:func:`lookup_ticket` as its JSON (a ticket view with ``events``): the screens' cage ticket check."""
    return lookup_ticket(uow, vn, now).model_dump(mode="json")
