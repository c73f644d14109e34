"""TITO's domain errors (each an RFC 9457 problem type through :mod:`slotsys.kernel.errors`).

Refusals of a presented ticket (:func:`refusal_error` maps a :class:`tito.domain.tickets.Refusal`):

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

Pure: the kernel's error classes only.
"""

from __future__ import annotations

from slotsys.kernel.errors import Conflict, DomainError, Forbidden, NotFound, ValidationFailed
from slotsys.kernel.errors import HandpayRequired  # noqa: F401 (the kernel's: the floor queues the handpay on it)
from tito.domain.tickets import Refusal


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


class CreditLimitExceeded(Conflict):
    """The ticket would take the machine above its credit limit: it returns the ticket (SAS
    redemption status 0x84 "transfer amount exceeded the gaming machine credit limit")."""

    code = "credit-limit-exceeded"
    title = "Ticket amount exceeds the machine's credit limit"


class HoldNotFound(Conflict):
    code = "ticket-hold-not-found"
    title = "No authorisation of this ticket is pending for this machine"


class HoldExpired(Conflict):
    code = "ticket-hold-expired"
    title = "The authorisation timed out"


class NoOpenDrawer(Conflict):
    code = "no-open-drawer-session"
    title = "No open drawer session"


class PromoAboveMaximum(ValidationFailed):
    code = "promo-above-maximum"
    title = "Promotional ticket above the maximum"


class SelfApproval(Forbidden):
    code = "dual-control-self-approval"
    title = "Dual control: a second supervisor must approve"


class RequestNotPending(Conflict):
    code = "promo-request-not-pending"
    title = "The promotional ticket request was already decided"


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
    """The error a refusal is answered with: its class by ``r.reason``, naming ``amount`` for an amount
    mismatch and ``validation_number`` otherwise, with the refusal's facts (``r.extra``) and ``reason``."""
    cls = _REFUSALS[r.reason]
    field = "amount" if r.reason == "amount_mismatch" else "validation_number"
    return cls(r.detail, field=field, reason=r.reason, **r.extra)
