"""Ticket-in at a slot machine: two-phase, as G2S voucher class and SAS §15 redemption do it.

1. **authorise** — the machine read a ticket in its bill validator and asks. If the ticket
   may be paid here, it becomes ``pending`` at this machine under a new ``transaction_id``
   with a hold until now + 15 s (``SLOTSYS_TITO_HOLD_SECONDS``). No money moves; every other
   channel is now told "in process at another location".
2. **commit** — the machine stacked the ticket: ``pending → redeemed`` and the amount moves
   ``Dr tito:outstanding / Cr machine:<asset>:credits`` (cashable), ``…:promo``
   (restricted promotional) or ``…:nonrestricted`` (non-restricted promotional); tickets-in
   meters advance. A ticket that would take the machine's credits above its credit limit is
   refused at authorise, commit and single call (409 ``credit-limit-exceeded``, SAS 0x84).
   **reject** — the machine returned the ticket (jam, stacker full, player pulled it):
   ``pending → issued``, payable anywhere again.
   A **lost commit** (no answer before the hold passes): the ticket counts as issued at
   once (:func:`tito.domain.tickets.effective_status`) and the beat task
   ``tito.release_ticket_holds`` writes it back to ``issued``; a commit arriving after
   the hold is refused 409 ``ticket-hold-expired`` (G2S reject reason "timed out": the
   machine must return the ticket, which is still redeemable).

``single`` does authorise + commit in one transaction for machines without two-phase
support (``POST /api/v1/machines/<asset>/ticket-in``). Lock order: machine row → ticket
row → account rows.

Exactly once: the caller names each request with an :class:`~slotsys.kernel.idempotency.OnceKey`
whose fingerprint is ``("POST", "ticket-in/authorize/<asset>", number)``,
``("POST", "ticket-in/commit/<asset>", [number, transaction_id])``,
``("POST", "ticket-in/reject/<asset>", [number, transaction_id, reject_reason(reason)])`` or
``("POST", "ticket-in/<asset>", number)`` (number: :func:`tito.domain.validation.compact`).
"""

from __future__ import annotations

import secrets

from slotsys.kernel import accounts
from slotsys.kernel import credits as promo
from slotsys.kernel.checks import require_machine
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.credits import Credits
from slotsys.kernel.errors import MachineLocked, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from tito.domain.errors import CreditLimitExceeded, HoldExpired, HoldNotFound  # noqa: F401 (re-exported)
from tito.domain.machines import MachineView
from tito.domain.tickets import ISSUED, MACHINE, NONRESTRICTED_PROMO, PENDING, PROMOTIONAL, Ticket
from tito.services import tickets as T
from tito.services.ports import TicketMachines, TitoUnitOfWork
from tito.services.results import TicketInAuthorisation, TicketInCredit, TicketInRejected
from tito.settings import TitoSettings

_METER_NAMES = {PROMOTIONAL: "promotional", NONRESTRICTED_PROMO: "nonrestricted"}


def effective_credit_limit(own: int | None, settings: TitoSettings) -> int:
    """A machine's credit limit in won: its own, else the floor default
    ``SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON`` (0 = none)."""
    return own if own is not None else settings.machine_credit_limit_won


def check_credit_limit(credits: Credits, amount: int, limit: int) -> None:
    """Refuse (409 :class:`CreditLimitExceeded`, field ``amount``, ``reject_reason``
    ``credit_limit_exceeded``, ``sas_status`` 0x84) a ticket of ``amount`` won that would take the
    machine's ``credits`` (cashable + restricted + non-restricted) above ``limit`` (won; 0 = none)."""
    if promo.exceeds_credit_limit(credits, amount, limit):
        raise CreditLimitExceeded(
            f"₩{amount:,} on top of the credits ₩{credits.total:,} would exceed the machine's credit limit "
            f"₩{limit:,}: the ticket is returned", field="amount", reject_reason="credit_limit_exceeded",
            sas_status=promo.SAS_CREDIT_LIMIT_EXCEEDED, amount=amount, credits=credits.total, credit_limit=limit)


def reject_reason(reason: str | None) -> str:
    """The reason recorded for a returned ticket (at most 100 characters; a default when none is given)."""
    return (reason or "rejected by the machine")[:100]


def _active(m: MachineView) -> None:
    if not m.active:
        raise MachineLocked(f"machine {m.asset_number} is locked: {m.lock_reason or m.status}")


def _txn(value: object) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 32 or not value.isalnum():
        raise ValidationFailed("transaction_id is the 1-32 character id returned by authorise", field="transaction_id")
    return value


class TicketInService:
    """Ticket-in at a machine (the machine's own key: it acts only as itself, 403 otherwise).

    ``settings``: hold, floor credit limit, guard; ``machines``: the slot machines; ``book``: the shared
    ticket machinery (:class:`~tito.services.tickets.TicketBook`)."""

    def __init__(self, ctx: ServiceContext, settings: TitoSettings, machines: TicketMachines,
                 book: T.TicketBook) -> None:
        self.ctx = ctx
        self.settings = settings
        self.machines = machines
        self.book = book

    def credit_limit(self, m: MachineView) -> int:
        """The machine's credit limit in won (its own, else the floor default; 0 = none)."""
        return effective_credit_limit(m.credit_limit, self.settings)

    def _check_limit(self, uow: TitoUnitOfWork, m: MachineView, amount: int) -> None:
        check_credit_limit(self.machines.credits(uow, m.asset_number), amount, self.credit_limit(m))

    def _credit_account(self, uow: TitoUnitOfWork, asset: str, ticket_type: str) -> str:
        if ticket_type == PROMOTIONAL:
            return T.ensure_promo_meter(uow, asset)
        if ticket_type == NONRESTRICTED_PROMO:
            return T.ensure_nonrestricted_meter(uow, asset)
        return accounts.machine_credits(asset)

    def _redeem(self, uow: TitoUnitOfWork, m: MachineView, t: Ticket, event: str, **detail) -> TicketInCredit:
        asset = m.asset_number
        view = self.book.redeem_locked(uow, t, channel=MACHINE, location=asset, by=asset,
                                       credit_account=self._credit_account(uow, asset, t.type), event=event, **detail)
        self.machines.add_ticket_meters(uow, m.id, tickets_in=t.amount, tickets_in_count=1)
        return TicketInCredit(machine=asset, ticket=view, **T.credit_view(self.machines.credits(uow, asset)))

    # ---------------------------------------------------------------- phase 1
    def authorize(self, principal: Principal, asset: str, raw_number: object,
                  key: OnceKey) -> Once[TicketInAuthorisation]:
        """Hold a ticket for this machine (exactly once per ``key``). Refusals as in
        :mod:`tito.domain.errors` (expired tickets and handpay receipts are refused here), 409
        ``machine-locked`` for a machine that is not active, and 409 ``credit-limit-exceeded``
        (field ``amount``) above the machine's credit limit."""
        require_machine(principal, asset)
        hold = self.settings.hold

        def run(vn: str) -> Once[TicketInAuthorisation]:
            def fn(uow: TitoUnitOfWork) -> TicketInAuthorisation:
                m = self.machines.lock(uow, asset)
                _active(m)
                t = self.book.lock_for_presentation(uow, vn, channel=MACHINE, location=asset, terminal=principal.id)
                self._check_limit(uow, m, t.amount)
                now = self.ctx.clock.now()
                txn = secrets.token_hex(8)
                if not uow.tickets.hold(t.id, t.status, location=asset, transaction_id=txn, since=now,
                                        until=now + hold):
                    raise T.TicketPendingElsewhere("ticket changed while authorising",
                                                   field="validation_number")  # pragma: no cover - row lock
                uow.tickets.log("authorised", actor=asset, at=now, ticket_id=t.id, channel=MACHINE, location=asset,
                                transaction_id=txn, amount=t.amount)
                return TicketInAuthorisation(
                    machine=asset, validation_number=vn, transaction_id=txn, type=t.type, amount=t.amount,
                    credit_meter=_METER_NAMES.get(t.type, "cashable"), hold_until=(now + hold).isoformat(),
                    hold_seconds=hold.total_seconds())

            return run_once(self.ctx, key, fn, result=TicketInAuthorisation)

        return self.book.presenting(terminal=principal.id, channel=MACHINE, location=asset, raw=raw_number, run=run)

    def _held(self, uow: TitoUnitOfWork, asset: str, vn: str, txn: str) -> Ticket:
        t = uow.tickets.get(vn, for_update=True)
        if t is None:
            raise T.TicketNotOnFile("validation number not on file", field="validation_number")
        if t.status != PENDING or t.pending_location != asset or t.pending_txn != txn:
            raise HoldNotFound(f"ticket is {t.status}{' at ' + t.pending_location if t.pending_location else ''}; "
                               "no authorisation with this transaction_id is pending here", field="transaction_id",
                               ticket_status=t.status)
        return t

    # ---------------------------------------------------------------- phase 2
    def commit(self, principal: Principal, asset: str, raw_number: object, transaction_id: object,
               key: OnceKey) -> Once[TicketInCredit]:
        """The machine stacked the ticket: pay it onto the credit (or promo) meter (exactly once per ``key``).

        409 ``ticket-hold-not-found`` if this machine holds no such authorisation (rejected,
        released, or taken by another channel after the hold), 409 ``ticket-hold-expired``
        if the hold has passed, 409 ``credit-limit-exceeded`` if credits came in meanwhile.
        """
        require_machine(principal, asset)
        vn = T.parse_number(raw_number)
        txn = _txn(transaction_id)

        def fn(uow: TitoUnitOfWork) -> TicketInCredit:
            m = self.machines.lock(uow, asset)
            t = self._held(uow, asset, vn, txn)
            now = self.ctx.clock.now()
            assert t.pending_until is not None
            if t.pending_until <= now:
                raise HoldExpired(f"the hold ended at {t.pending_until.isoformat()}: return the ticket to the player",
                                  field="transaction_id", hold_until=t.pending_until.isoformat())
            self._check_limit(uow, m, t.amount)  # credits may have come in since the authorisation
            return self._redeem(uow, m, t, "committed", transaction_id=txn)

        once = run_once(self.ctx, key, fn, result=TicketInCredit)
        if not once.replayed:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("machine", once.result.ticket.amount)
        return once

    def reject(self, principal: Principal, asset: str, raw_number: object, transaction_id: object, reason: str | None,
               key: OnceKey) -> Once[TicketInRejected]:
        """The machine returned the ticket: ``pending → issued`` (exactly once per ``key``). A hold that
        already ended is acknowledged the same way. 409 ``ticket-hold-not-found`` if the
        ticket was meanwhile redeemed or is held by another machine or transaction."""
        require_machine(principal, asset)
        vn = T.parse_number(raw_number)
        txn = _txn(transaction_id)
        why = reject_reason(reason)

        def fn(uow: TitoUnitOfWork) -> TicketInRejected:
            t = uow.tickets.get(vn, for_update=True)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            if t.status == PENDING and t.pending_location == asset and t.pending_txn == txn:
                uow.tickets.release_hold(t.id)
            elif not (t.status == ISSUED and t.pending_txn is None):
                raise HoldNotFound(f"ticket is {t.status}: nothing to reject", field="transaction_id",
                                   ticket_status=t.status)
            uow.tickets.log("rejected", actor=asset, at=self.ctx.clock.now(), ticket_id=t.id, channel=MACHINE,
                            location=asset, transaction_id=txn, reason=why)
            return TicketInRejected(machine=asset, validation_number=vn, status=ISSUED, reason=why)

        return run_once(self.ctx, key, fn, result=TicketInRejected)

    # ------------------------------------------------------------ single call
    def single(self, principal: Principal, asset: str, raw_number: object, key: OnceKey) -> Once[TicketInCredit]:
        """Authorise and commit in one transaction (machines without two-phase ticket-in; exactly once per
        ``key``). Refusals as :meth:`authorize`."""
        require_machine(principal, asset)

        def run(vn: str) -> Once[TicketInCredit]:
            def fn(uow: TitoUnitOfWork) -> TicketInCredit:
                m = self.machines.lock(uow, asset)
                _active(m)
                t = self.book.lock_for_presentation(uow, vn, channel=MACHINE, location=asset, terminal=principal.id)
                self._check_limit(uow, m, t.amount)
                return self._redeem(uow, m, t, "redeemed")

            return run_once(self.ctx, key, fn, result=TicketInCredit, write_behind=True)

        once = self.book.presenting(terminal=principal.id, channel=MACHINE, location=asset, raw=raw_number, run=run)
        if not once.replayed:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("machine", once.result.ticket.amount)
        return once
