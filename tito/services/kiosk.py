"""Kiosks (ticket redemption machines): pay tickets in cash from their cassettes.

A kiosk is a staff principal with role ``kiosk`` (it logs in like a terminal; its username
is its code, e.g. ``kiosk1``). Its cash is the asset account ``kiosk:<code>:cassette``
(non-negative), filled from the cage bank. A kiosk pays cashable tickets and handpay
receipts; it refuses promotional and expired tickets outright (no supervisor at a kiosk),
and a ticket larger than its cassette holds (409 ``insufficient-funds``: see the cage).
"""

from __future__ import annotations

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import NotFound, ValidationFailed
from slotsys.kernel.money import MoneyError, require_won
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import fingerprint, OnceKey, run_once_dict
from slotsys.kernel.checks import require_role
from tito.adapters.repo import TicketRepo
from tito.domain.tickets import KIOSK
from tito.services import tickets as T


def _kiosk_exists(uow, code: str) -> None:
    user = uow.staff.by_username(code)
    if user is None or user.role != "kiosk":
        raise NotFound(f"kiosk {code!r} does not exist", field="kiosk")


def fill_kiosk(uow, code: str, amount: int, by: str, at) -> int:
    """Move ``amount`` won from the cage bank into a kiosk's cassette (in ``uow``); returns the cassette."""
    _kiosk_exists(uow, code)
    account = accounts.kiosk_cassette(code)
    uow.ledger.ensure_account(account, L.AccountType.ASSET, non_negative=True)
    e = L.EntryBuilder("kiosk.fill", f"cassette fill of {code}")
    e.add(debit=account, credit=accounts.cage_bank(accounts.MAIN_CAGE), amount=amount)
    uow.ledger.post(e.build({"kiosk": code, "by": by}), labels={accounts.cage_bank(accounts.MAIN_CAGE): "the cage bank"})
    TicketRepo(uow.session).log("kiosk_filled", actor=by, at=at, channel=KIOSK, location=code, amount=amount)
    return uow.ledger.balance(account)


class KioskService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def redeem(self, principal: Principal, raw_number: object, idem_key: str | None) -> tuple[int, dict, bool]:
        """Pay a scanned ticket from this kiosk's cassette, exactly once (kiosk; Idempotency-Key).

        Ledger: ``Dr tito:outstanding / Cr kiosk:<code>:cassette``. Refusals as in
        :mod:`tito.services.tickets`; expired and promotional tickets are refused (409).
        Response: ``{"ticket", "paid", "kiosk", "cassette"}`` (cassette after paying, won).
        """
        require_role(principal, "kiosk")
        code = principal.name
        account = accounts.kiosk_cassette(code)

        def run(vn: str):
            def fn(uow) -> dict:
                t = T.lock_for_presentation(uow, self.ctx, vn, channel=KIOSK, location=code, terminal=principal.id)
                uow.ledger.ensure_account(account, L.AccountType.ASSET, non_negative=True)
                view = T.redeem_locked(uow, self.ctx, t, channel=KIOSK, location=code, by=code, credit_account=account)
                return {"ticket": view, "paid": view["amount"], "kiosk": code, "cassette": uow.ledger.balance(account)}

            return run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", "kiosk/redeem", vn)), fn, write_behind=True)

        r = T.presenting(self.ctx, terminal=principal.id, channel=KIOSK, location=code, raw=raw_number, run=run)
        if not r.replayed and r.status < 300:  # after the commit; nothing for a replay
            self.ctx.metrics.ticket_redeemed("kiosk", r.body["ticket"]["amount"])
        return r.status, r.body, r.replayed

    def fill(self, principal: Principal, code: str, amount: object, idem_key: str | None) -> tuple[int, dict, bool]:
        """Fill a kiosk's cassette from the cage bank (cashier or supervisor; Idempotency-Key).

        Ledger: ``Dr kiosk:<code>:cassette / Cr cage:MAIN:drawer`` (the bank). 404 unknown kiosk.
        """
        require_role(principal, "cashier", "supervisor")
        try:
            won = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None

        def fn(uow) -> dict:
            cassette = fill_kiosk(uow, code, won, principal.id, self.ctx.clock.now())
            return {"kiosk": code, "filled": won, "cassette": cassette}

        r = run_once_dict(self.ctx, OnceKey(principal.id, idem_key, fingerprint("POST", f"kiosks/{code}/fill", won)), fn)
        return r.status, r.body, r.replayed

    def status(self, principal: Principal, code: str) -> dict:
        """A kiosk's cassette balance (the kiosk itself, cashier, supervisor, auditor)."""
        if not (principal.kind == "staff" and principal.role == "kiosk" and principal.name == code):
            require_role(principal, "cashier", "supervisor", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            _kiosk_exists(uow, code)
            try:
                cassette = uow.ledger.balance(accounts.kiosk_cassette(code))
            except NotFound:
                cassette = 0
            return {"kiosk": code, "cassette": cassette}
