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
"""

from __future__ import annotations

import secrets

from slotsys.kernel import accounts
from slotsys.kernel.errors import Conflict, MachineLocked, ValidationFailed
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_machine
from slotsys.kernel.idempotency import fingerprint, OnceKey, run_once_dict
from tito.adapters.repo import TicketRepo
from slotsys.kernel import credits as promo
from tito.domain.tickets import ISSUED, MACHINE, NONRESTRICTED_PROMO, PENDING, PROMOTIONAL
from tito.services import tickets as T
from tito.settings import get_tito_settings


class CreditLimitExceeded(Conflict):
    """The ticket would take the machine above its credit limit: it returns the ticket (SAS
    redemption status 0x84 "transfer amount exceeded the gaming machine credit limit")."""

    code = "credit-limit-exceeded"
    title = "Ticket amount exceeds the machine's credit limit"


def check_credit_limit(uow, m, amount: int) -> None:
    """Refuse (409 :class:`CreditLimitExceeded`, field ``amount``, ``reject_reason``
    ``credit_limit_exceeded``, ``sas_status`` 0x84) a ticket of ``amount`` won that would take the
    machine's credits (cashable + restricted + non-restricted) above its credit limit: the
    machine's ``credit_limit`` or ``SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON``. Changes nothing."""
    limit = credit_limit(m)
    credits = uow.machines.credits(m.asset_number)
    if promo.exceeds_credit_limit(credits, amount, limit):
        raise CreditLimitExceeded(
            f"₩{amount:,} on top of the credits ₩{credits.total:,} would exceed the machine's credit limit "
            f"₩{limit:,}: the ticket is returned", field="amount", reject_reason="credit_limit_exceeded",
            sas_status=promo.SAS_CREDIT_LIMIT_EXCEEDED, amount=amount, credits=credits.total, credit_limit=limit)


def credit_limit(m) -> int:
    """The machine's credit limit in won (its own, else the floor default; 0 = none)."""
    return m.credit_limit if m.credit_limit is not None else get_tito_settings().machine_credit_limit_won


class HoldNotFound(Conflict):
    code = "ticket-hold-not-found"
    title = "No authorisation of this ticket is pending for this machine"


class HoldExpired(Conflict):
    code = "ticket-hold-expired"
    title = "The authorisation timed out"


def _active(m) -> None:
    if m.status != "active":
        raise MachineLocked(f"machine {m.asset_number} is locked: {m.lock_reason or m.status}")


_METER_NAMES = {PROMOTIONAL: "promotional", NONRESTRICTED_PROMO: "nonrestricted"}


def _txn(value: object) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 32 or not value.isalnum():
        raise ValidationFailed("transaction_id is the 1-32 character id returned by authorise", field="transaction_id")
    return value


class MachineTicketIn:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def _credit(self, uow, asset: str, ticket_type: str) -> str:
        if ticket_type == PROMOTIONAL:
            return T.ensure_promo_meter(uow, asset)
        if ticket_type == NONRESTRICTED_PROMO:
            return T.ensure_nonrestricted_meter(uow, asset)
        return accounts.machine_credits(asset)

    def _balances(self, uow, asset: str) -> dict:
        return T.credit_view(uow.machines.credits(asset))

    def _redeem(self, uow, m, t, event: str, **detail) -> dict:
        asset = m.asset_number
        view = T.redeem_locked(uow, self.ctx, t, channel=MACHINE, location=asset, by=asset,
                               credit_account=self._credit(uow, asset, t.type), event=event, **detail)
        uow.machines.add_meters(m.id, tickets_in=t.amount, tickets_in_count=1)
        return {"machine": asset, "ticket": view, **self._balances(uow, asset)}

    # ---------------------------------------------------------------- phase 1
    def authorize(self, principal: Principal, asset: str, raw_number: object,
                  idem_key: str | None) -> tuple[int, dict, bool]:
        """Hold a ticket for this machine (needs Idempotency-Key). Response: ``{"machine",
        "validation_number", "transaction_id", "type", "amount" (won), "credit_meter"
        ("cashable" | "promotional" (restricted) | "nonrestricted"), "hold_until", "hold_seconds"}``.
        Refusals as in :mod:`tito.services.tickets` (expired and handpay receipts are refused here),
        and 409 ``credit-limit-exceeded`` (field ``amount``) above the machine's credit limit."""
        require_machine(principal, asset)
        hold = get_tito_settings().hold

        def run(vn: str):
            def fn(uow) -> dict:
                m = uow.machines.get(asset, for_update=True)
                _active(m)
                t = T.lock_for_presentation(uow, self.ctx, vn, channel=MACHINE, location=asset, terminal=principal.id)
                check_credit_limit(uow, m, t.amount)
                now = self.ctx.clock.now()
                txn = secrets.token_hex(8)
                repo = TicketRepo(uow.session)
                if not repo.transition(t.id, t.status, status=PENDING, pending_location=asset, pending_txn=txn,
                                       pending_since=now, pending_until=now + hold):
                    raise T.TicketPendingElsewhere("ticket changed while authorising", field="validation_number")  # pragma: no cover
                repo.log("authorised", actor=asset, at=now, ticket_id=t.id, channel=MACHINE, location=asset,
                         transaction_id=txn, amount=t.amount)
                return {"machine": asset, "validation_number": vn, "transaction_id": txn, "type": t.type,
                        "amount": t.amount, "credit_meter": _METER_NAMES.get(t.type, "cashable"),
                        "hold_until": (now + hold).isoformat(), "hold_seconds": hold.total_seconds()}

            return run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"ticket-in/authorize/{asset}", vn)), fn)

        r = T.presenting(self.ctx, terminal=principal.id, channel=MACHINE, location=asset, raw=raw_number, run=run)
        return r.status, r.body, r.replayed

    def _held(self, uow, asset: str, vn: str, txn: str):
        t = TicketRepo(uow.session).get(vn, for_update=True)
        if t is None:
            raise T.TicketNotOnFile("validation number not on file", field="validation_number")
        if t.status != PENDING or t.pending_location != asset or t.pending_txn != txn:
            raise HoldNotFound(f"ticket is {t.status}{' at ' + t.pending_location if t.pending_location else ''}; "
                               "no authorisation with this transaction_id is pending here", field="transaction_id",
                               ticket_status=t.status)
        return t

    # ---------------------------------------------------------------- phase 2
    def commit(self, principal: Principal, asset: str, raw_number: object, transaction_id: object,
               idem_key: str | None) -> tuple[int, dict, bool]:
        """The machine stacked the ticket: pay it onto the credit (or promo) meter (Idempotency-Key).

        409 ``ticket-hold-not-found`` if this machine holds no such authorisation (rejected,
        released, or taken by another channel after the hold), 409 ``ticket-hold-expired``
        if the hold has passed. Response: ``{"machine", "ticket", "credits", "promo_credits"}``.
        """
        require_machine(principal, asset)
        vn = T.parse_number(raw_number)
        txn = _txn(transaction_id)

        def fn(uow) -> dict:
            m = uow.machines.get(asset, for_update=True)
            t = self._held(uow, asset, vn, txn)
            now = self.ctx.clock.now()
            if t.pending_until <= now:
                raise HoldExpired(f"the hold ended at {t.pending_until.isoformat()}: return the ticket to the player",
                                  field="transaction_id", hold_until=t.pending_until.isoformat())
            check_credit_limit(uow, m, t.amount)  # credits may have come in since the authorisation
            return self._redeem(uow, m, t, "committed", transaction_id=txn)

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"ticket-in/commit/{asset}", [vn, txn])), fn)
        if not r.replayed and r.status < 300:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("machine", r.body["ticket"]["amount"])
        return r.status, r.body, r.replayed

    def reject(self, principal: Principal, asset: str, raw_number: object, transaction_id: object, reason: str | None,
               idem_key: str | None) -> tuple[int, dict, bool]:
        """The machine returned the ticket: ``pending → issued`` (Idempotency-Key). A hold that
        already ended is acknowledged the same way. 409 ``ticket-hold-not-found`` if the
        ticket was meanwhile redeemed or is held by another machine or transaction."""
        require_machine(principal, asset)
        vn = T.parse_number(raw_number)
        txn = _txn(transaction_id)
        reason = (reason or "rejected by the machine")[:100]

        def fn(uow) -> dict:
            repo = TicketRepo(uow.session)
            t = repo.get(vn, for_update=True)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            if t.status == PENDING and t.pending_location == asset and t.pending_txn == txn:
                repo.transition(t.id, PENDING, status=ISSUED, pending_location=None, pending_txn=None,
                                pending_until=None, pending_since=None)
            elif not (t.status == ISSUED and t.pending_txn is None):
                raise HoldNotFound(f"ticket is {t.status}: nothing to reject", field="transaction_id", ticket_status=t.status)
            now = self.ctx.clock.now()
            repo.log("rejected", actor=asset, at=now, ticket_id=t.id, channel=MACHINE, location=asset,
                     transaction_id=txn, reason=reason)
            return {"machine": asset, "validation_number": vn, "status": ISSUED, "reason": reason}

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"ticket-in/reject/{asset}", [vn, txn, reason])), fn)
        return r.status, r.body, r.replayed

    # ------------------------------------------------------------ single call
    def single(self, principal: Principal, asset: str, raw_number: object,
               idem_key: str | None) -> tuple[int, dict, bool]:
        """Authorise and commit in one transaction (machines without two-phase ticket-in).

        Response: ``{"machine", "ticket", "credits", "promo_credits"}``; refusals as authorise.
        """
        require_machine(principal, asset)

        def run(vn: str):
            def fn(uow) -> dict:
                m = uow.machines.get(asset, for_update=True)
                _active(m)
                t = T.lock_for_presentation(uow, self.ctx, vn, channel=MACHINE, location=asset, terminal=principal.id)
                check_credit_limit(uow, m, t.amount)
                return self._redeem(uow, m, t, "redeemed")

            return run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"ticket-in/{asset}", vn)), fn, write_behind=True)

        r = T.presenting(self.ctx, terminal=principal.id, channel=MACHINE, location=asset, raw=raw_number, run=run)
        if not r.replayed and r.status < 300:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("machine", r.body["ticket"]["amount"])
        return r.status, r.body, r.replayed
