"""Kiosks (ticket redemption machines): pay tickets in cash from their cassettes.

A kiosk is a staff principal with role ``kiosk`` (it logs in like a terminal; its username
is its code, e.g. ``kiosk1``). Its cash is the asset account ``kiosk:<code>:cassette``
(non-negative), filled from the cage bank. A kiosk pays cashable tickets and handpay
receipts; it refuses promotional and expired tickets outright (no supervisor at a kiosk),
and a ticket larger than its cassette holds (409 ``insufficient-funds``: see the cage).

Exactly once: the caller names each request with an :class:`~slotsys.kernel.idempotency.OnceKey`
whose fingerprint is ``("POST", "kiosk/redeem", number)`` (number:
:func:`tito.domain.validation.compact`) or ``("POST", "kiosks/<code>/fill", amount)``.
"""

from __future__ import annotations

from datetime import datetime

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import NotFound, ValidationFailed
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from slotsys.kernel.money import MoneyError, require_won
from tito.domain.tickets import KIOSK
from tito.services import tickets as T
from tito.services.ports import KioskDirectory, TitoUnitOfWork
from tito.services.results import KioskFill, KioskRedemption, KioskStatus


def _kiosk_exists(uow: TitoUnitOfWork, kiosks: KioskDirectory, code: str) -> None:
    if not kiosks.is_kiosk(uow, code):
        raise NotFound(f"kiosk {code!r} does not exist", field="kiosk")


def fill_kiosk(uow: TitoUnitOfWork, kiosks: KioskDirectory, code: str, amount: int, by: str, at: datetime) -> int:
    """Move ``amount`` won from the cage bank into kiosk ``code``'s cassette (in ``uow``); returns the
    cassette after it. 404 (field ``kiosk``) if ``code`` is not a kiosk; 409 if the bank cannot cover it."""
    _kiosk_exists(uow, kiosks, code)
    account = accounts.kiosk_cassette(code)
    uow.ledger.ensure_account(account, L.AccountType.ASSET, non_negative=True)
    e = L.EntryBuilder("kiosk.fill", f"cassette fill of {code}")
    e.add(debit=account, credit=accounts.cage_bank(accounts.MAIN_CAGE), amount=amount)
    uow.ledger.post(e.build({"kiosk": code, "by": by}), labels={accounts.cage_bank(accounts.MAIN_CAGE): "the cage bank"})
    uow.tickets.log("kiosk_filled", actor=by, at=at, channel=KIOSK, location=code, amount=amount)
    return uow.ledger.balance(account)


class KioskService:
    def __init__(self, ctx: ServiceContext, book: T.TicketBook, kiosks: KioskDirectory) -> None:
        self.ctx = ctx
        self.book = book
        self.kiosks = kiosks

    def redeem(self, principal: Principal, raw_number: object, key: OnceKey) -> Once[KioskRedemption]:
        """Pay a scanned ticket from this kiosk's cassette, exactly once per ``key`` (role kiosk).

        Ledger: ``Dr tito:outstanding / Cr kiosk:<code>:cassette``. Refusals as in
        :mod:`tito.domain.errors`; expired and promotional tickets are refused (409).
        """
        require_role(principal, "kiosk")
        code = principal.name
        account = accounts.kiosk_cassette(code)

        def run(vn: str) -> Once[KioskRedemption]:
            def fn(uow: TitoUnitOfWork) -> KioskRedemption:
                t = self.book.lock_for_presentation(uow, vn, channel=KIOSK, location=code, terminal=principal.id)
                uow.ledger.ensure_account(account, L.AccountType.ASSET, non_negative=True)
                view = self.book.redeem_locked(uow, t, channel=KIOSK, location=code, by=code, credit_account=account)
                return KioskRedemption(ticket=view, paid=view.amount, kiosk=code, cassette=uow.ledger.balance(account))

            return run_once(self.ctx, key, fn, result=KioskRedemption, write_behind=True)

        once = self.book.presenting(terminal=principal.id, channel=KIOSK, location=code, raw=raw_number, run=run)
        if not once.replayed:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("kiosk", once.result.ticket.amount)
        return once

    def fill(self, principal: Principal, code: str, amount: object, key: OnceKey) -> Once[KioskFill]:
        """Fill a kiosk's cassette from the cage bank (cashier or supervisor; exactly once per ``key``).

        Ledger: ``Dr kiosk:<code>:cassette / Cr cage:MAIN:drawer`` (the bank). 404 unknown kiosk.
        """
        require_role(principal, "cashier", "supervisor")
        try:
            won = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None

        def fn(uow: TitoUnitOfWork) -> KioskFill:
            cassette = fill_kiosk(uow, self.kiosks, code, won, principal.id, self.ctx.clock.now())
            return KioskFill(kiosk=code, filled=won, cassette=cassette)

        return run_once(self.ctx, key, fn, result=KioskFill)

    def status(self, principal: Principal, code: str) -> KioskStatus:
        """A kiosk's cassette balance (the kiosk itself, cashier, supervisor, auditor)."""
        if not (principal.kind == "staff" and principal.role == "kiosk" and principal.name == code):
            require_role(principal, "cashier", "supervisor", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            _kiosk_exists(uow, self.kiosks, code)
            try:
                cassette = uow.ledger.balance(accounts.kiosk_cassette(code))
            except NotFound:
                cassette = 0
            return KioskStatus(kiosk=code, cassette=cassette)
