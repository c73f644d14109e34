"""The cage: cashiers open a drawer session, pay tickets in cash from it, and count out.

Accounts: the cage bank ``cage:MAIN:drawer`` (asset, the opening float from house capital)
and one drawer per cashier station ``cage:MAIN:drawer:<drawer>`` (asset, non-negative).
The drawer's **expected cash is its ledger balance**: opening float moved from the bank,
minus every ticket paid from it. At close the cashier's count is compared with it; the
variance is posted to ``cage:MAIN:variance`` and the counted cash goes back to the bank,
all in one balanced entry.

Expired tickets: refused unless a supervisor approved paying that ticket
(``POST /api/v1/tickets/<vn>/expiry-override``, logged on the ticket), the house rule the
reference allows (G2S; GLI-13). Promotional tickets are never paid at the cage.

Exactly once: the caller names each request with an :class:`~slotsys.kernel.idempotency.OnceKey`
whose fingerprint is ``("POST", "cage/redeem", [number, amount])`` (number:
:func:`tito.domain.validation.compact`), ``("POST", "cage/sessions", [drawer, opening_float])`` or
``("POST", "cage/sessions/close", counted_cash)``.
"""

from __future__ import annotations

from datetime import datetime

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.accounts import MAIN_CAGE
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Conflict, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import MoneyError, require_won
from tito.domain.cage import OPEN, DrawerSession
from tito.domain.errors import NoOpenDrawer  # noqa: F401 (re-exported: players pay cash from the drawer too)
from tito.domain.tickets import CAGE, EXPIRED
from tito.services import tickets as T
from tito.services.ports import TitoUnitOfWork
from tito.services.results import CageRedemption, DrawerSessionView, TicketLookup


def session_view(uow: TitoUnitOfWork, ds: DrawerSession) -> DrawerSessionView:
    """A drawer session with the tickets paid in it; while open, its expected cash from the ledger."""
    n, paid = uow.tickets.paid_in_session(ds.id)
    view = DrawerSessionView(session=ds.id, cage=ds.cage, drawer=ds.drawer, cashier=ds.cashier, status=ds.status,
                             opened_at=ds.opened_at.isoformat(), opening_float=ds.opening_float, tickets_paid=n,
                             tickets_paid_amount=paid)
    if ds.status == OPEN:
        view.expected_cash = uow.ledger.balance(accounts.cashier_drawer(ds.drawer, ds.cage))
    else:
        assert ds.closed_at is not None
        view.closed_at, view.expected_cash = ds.closed_at.isoformat(), ds.expected_cash
        view.counted_cash, view.variance = ds.counted_cash, ds.variance
    return view


def _won(value: object, field: str, *, positive: bool = True) -> int:
    try:
        return require_won(value, field=field, positive=positive)
    except MoneyError as e:
        raise ValidationFailed(str(e), field=field) from None


def open_drawer_session(uow: TitoUnitOfWork, now: datetime, cashier: str, drawer: str, opening_float: int,
                        cage: str = MAIN_CAGE) -> DrawerSession:
    """Open ``drawer`` for ``cashier`` at ``now`` with ``opening_float`` won from the cage bank (in ``uow``).

    Ledger: ``Dr cage:<cage>:drawer:<drawer> / Cr cage:<cage>:drawer`` (the bank). 409 if the
    cashier or the drawer already has an open session, or the bank cannot cover the float.
    """
    drawers = uow.cage_drawers
    if drawers.open_for_cashier(cashier) is not None:
        raise Conflict(f"cashier {cashier} already has an open drawer session", field="drawer")
    if drawers.open_for_drawer(f"{cage}/{drawer}") is not None:
        raise Conflict(f"drawer {drawer} is already open", field="drawer")
    account = accounts.cashier_drawer(drawer, cage)
    uow.ledger.ensure_account(account, L.AccountType.ASSET, non_negative=True)
    if uow.ledger.balance(account) != 0:  # pragma: no cover - a closed drawer is always emptied
        raise Conflict(f"drawer {drawer} still holds cash from an earlier session", field="drawer")
    ds = drawers.open(cage=cage, drawer=drawer, cashier=cashier, opening_float=opening_float, at=now)
    e = L.EntryBuilder("cage.drawer_open", f"opening float of drawer {drawer} ({cashier})")
    e.add(debit=account, credit=accounts.cage_bank(cage), amount=opening_float)
    if not e.empty:
        uow.ledger.post(e.build({"cage": cage, "drawer": drawer, "session": ds.id}),
                        labels={accounts.cage_bank(cage): f"the {cage} cage bank"})
    return ds


class CageService:
    """The cashiers' use cases (role ``cashier``; the look-up also for auditors, operators, supervisors)."""

    def __init__(self, ctx: ServiceContext, book: T.TicketBook) -> None:
        self.ctx = ctx
        self.book = book

    # ---------------------------------------------------------------- tickets
    def lookup(self, principal: Principal, raw_number: object) -> TicketLookup:
        """A ticket on file with its status as of now and its event trail (cashier, auditor, operator,
        supervisor). 404 not on file; 422 malformed / check digit wrong."""
        require_role(principal, "cashier", "auditor", "operator", "supervisor")
        vn = T.parse_number(raw_number)
        with self.ctx.uow(readonly=True) as uow:
            return T.lookup_ticket(uow, vn, self.ctx.clock.now())

    def redeem(self, principal: Principal, raw_number: object, amount: int | None,
               key: OnceKey) -> Once[CageRedemption]:
        """Pay a ticket in cash from the cashier's open drawer, exactly once per ``key``.

        ``amount``, when given, must equal the amount on file (the cashier keys what the face
        says; 422 ``ticket-amount-mismatch`` otherwise). Ledger: ``Dr tito:outstanding /
        Cr cage:MAIN:drawer:<drawer>``. Pays cashable tickets and handpay receipts; refuses
        promotional tickets (409), expired ones without a supervisor's approval (409), and
        every other refusal in :mod:`tito.domain.errors`; 409 ``no-open-drawer-session``.
        """
        require_role(principal, "cashier")

        def run(vn: str) -> Once[CageRedemption]:
            def fn(uow: TitoUnitOfWork) -> CageRedemption:
                ds = uow.cage_drawers.open_for_cashier(principal.name)
                if ds is None:
                    raise NoOpenDrawer("open a drawer session before paying tickets", field="drawer")
                t = self.book.lock_for_presentation(uow, vn, channel=CAGE, location=ds.cage, terminal=principal.id,
                                                    expected_amount=amount)
                expired = t.expires_at <= self.ctx.clock.now() or t.status == EXPIRED
                account = accounts.cashier_drawer(ds.drawer, ds.cage)
                view = self.book.redeem_locked(uow, t, channel=CAGE, location=ds.cage, by=principal.name,
                                               credit_account=account, session_id=ds.id,
                                               event="honoured_expired" if expired else "redeemed", drawer=ds.drawer,
                                               approved_by=t.expiry_override_by if expired else None)
                return CageRedemption(ticket=view, paid=view.amount, drawer=uow.ledger.balance(account),
                                      session=ds.id, honoured_expired=expired)

            return run_once(self.ctx, key, fn, result=CageRedemption, write_behind=True)

        once = self.book.presenting(terminal=principal.id, channel=CAGE, location=MAIN_CAGE, raw=raw_number, run=run)
        if not once.replayed:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("cage", once.result.ticket.amount)
        return once

    # ---------------------------------------------------------------- drawer
    def open_session(self, principal: Principal, drawer: str, opening_float: object,
                     key: OnceKey) -> Once[DrawerSessionView]:
        """Open a drawer session with an opening float (won) from the cage bank (cashier; exactly once)."""
        require_role(principal, "cashier")
        if not drawer or len(drawer) > 20 or not drawer.replace("-", "").isalnum():
            raise ValidationFailed("drawer is 1-20 letters, digits or '-'", field="drawer")
        amount = _won(opening_float, "opening_float", positive=False)

        def fn(uow: TitoUnitOfWork) -> DrawerSessionView:
            ds = open_drawer_session(uow, self.ctx.clock.now(), principal.name, drawer, amount)
            return session_view(uow, ds)

        return run_once(self.ctx, key, fn, result=DrawerSessionView)

    def current_session(self, principal: Principal) -> DrawerSessionView:
        """The cashier's open session: float, tickets paid, expected cash (= the drawer's ledger balance)."""
        require_role(principal, "cashier")
        with self.ctx.uow(readonly=True) as uow:
            ds = uow.cage_drawers.open_for_cashier(principal.name)
            if ds is None:
                raise NoOpenDrawer("no open drawer session", field="drawer")
            return session_view(uow, ds)

    def close_session(self, principal: Principal, counted_cash: object, key: OnceKey) -> Once[DrawerSessionView]:
        """Count out: variance = counted − expected (ledger); the counted cash returns to the bank.

        One entry: shortage ``Dr cage:MAIN:variance / Cr drawer`` or overage ``Dr drawer /
        Cr cage:MAIN:variance``, then ``Dr bank / Cr drawer`` for the counted cash, leaving
        the drawer at 0. (cashier; exactly once; 409 if no open session.)
        """
        require_role(principal, "cashier")
        counted = _won(counted_cash, "counted_cash", positive=False)

        def fn(uow: TitoUnitOfWork) -> DrawerSessionView:
            ds = uow.cage_drawers.open_for_cashier(principal.name, for_update=True)
            if ds is None:
                raise NoOpenDrawer("no open drawer session", field="drawer")
            account = accounts.cashier_drawer(ds.drawer, ds.cage)
            expected = uow.ledger.balance(account)
            variance = counted - expected
            e = L.EntryBuilder("cage.drawer_close", f"count-out of drawer {ds.drawer} ({ds.cashier})")
            if variance < 0:
                e.add(debit=accounts.cage_variance(ds.cage), credit=account, amount=-variance, memo="shortage")
            elif variance > 0:
                e.add(debit=account, credit=accounts.cage_variance(ds.cage), amount=variance, memo="overage")
            e.add(debit=accounts.cage_bank(ds.cage), credit=account, amount=counted, memo="counted cash to the bank")
            if not e.empty:
                uow.ledger.ensure_account(accounts.cage_variance(ds.cage), L.AccountType.REVENUE)
                uow.ledger.post(e.build({"cage": ds.cage, "drawer": ds.drawer, "session": ds.id}))
            now = self.ctx.clock.now()
            closed = uow.cage_drawers.close(ds.id, at=now, expected=expected, counted=counted, variance=variance)
            uow.tickets.log("drawer_closed", actor=principal.id, at=now, channel=CAGE, location=ds.cage,
                            session=ds.id, expected=expected, counted=counted, variance=variance)
            return session_view(uow, closed)

        return run_once(self.ctx, key, fn, result=DrawerSessionView)
