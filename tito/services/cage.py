"""The cage: cashiers look tickets up and pay them in cash from the cage drawer."""

from __future__ import annotations

from slotsys.domain import ledger as L
from slotsys.services.context import Principal, ServiceContext
from slotsys.services.idempotency import fingerprint, run_once
from slotsys.services.staff import require_role
from tito.services import tickets as T

MAIN_CAGE = "MAIN"


class CageService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def lookup(self, principal: Principal, raw_number: object) -> dict:
        require_role(principal, "cashier", "auditor", "operator")
        vn = T.parse_number(raw_number)
        with self.ctx.uow(readonly=True) as uow:
            return T.lookup(uow, vn)

    def redeem(self, principal: Principal, raw_number: object, amount: int | None, idem_key: str | None) -> tuple[int, dict, bool]:
        """Pay a cashable ticket in cash at the cage, exactly once.

        Ledger: Dr ``tito:outstanding`` / Cr ``cage:MAIN:drawer``. ``amount``, when given,
        must equal the amount on file (the cashier keys what the ticket face says).
        """
        require_role(principal, "cashier")
        vn = T.parse_number(raw_number)

        def fn(uow) -> dict:
            t = T.redeem(uow, self.ctx, vn, channel="cage", location=MAIN_CAGE, by=principal.name,
                         credit_account=L.cage_drawer(MAIN_CAGE), expected_amount=amount)
            return {"ticket": t, "paid": t["amount"], "drawer": uow.ledger.balance(L.cage_drawer(MAIN_CAGE))}

        r = run_once(self.ctx.uow, principal.id, idem_key, fingerprint("POST", "cage/redeem", [vn, amount]), fn)
        return r.status, r.body, r.replayed
