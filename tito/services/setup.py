"""TITO part of the demo floor (called by slotsys.services.seed in the seeding transaction).

- ledger accounts: each machine's promo meter; voids, breakage, promo expense, cage variance;
- the VIP zone's machines number their tickets with SAS secure enhanced validation
  (validation IDs 0x100001 …), the MASS zone with system validation;
- the demo cashier's drawer D1 is open with a ₩200,000,000 float from the cage bank;
- each demo kiosk's cassette holds ₩100,000,000.
"""

from __future__ import annotations

from slotsys.domain import ledger as L
from slotsys.services.context import ServiceContext
from tito.services import tickets as T
from tito.services.cage import cage_variance, open_drawer_session
from tito.services.kiosk import fill_kiosk

DEMO_DRAWER = "D1"
DEMO_DRAWER_FLOAT = 200_000_000
DEMO_KIOSK_FILL = 100_000_000
SAS_ZONE = "VIP"
SAS_ID_BASE = 0x100000


def seed_tito(uow, ctx: ServiceContext, *, cashier: str | None, kiosks: list[str]) -> None:
    for code, type_ in ((T.TICKETS_VOIDS, L.AccountType.REVENUE), (T.TICKETS_BREAKAGE, L.AccountType.REVENUE),
                        (T.PROMO_EXPENSE, L.AccountType.EXPENSE), (cage_variance(), L.AccountType.REVENUE)):
        uow.ledger.ensure_account(code, type_)
    n = 0
    for m in uow.machines.all():
        T.ensure_promo_meter(uow, m.asset_number)
        if m.zone == SAS_ZONE:
            n += 1
            m.validation_scheme, m.sas_validation_id, m.sas_sequence = "sas", SAS_ID_BASE + n, 0
    uow.session.flush()
    if cashier:
        open_drawer_session(uow, ctx, cashier, DEMO_DRAWER, DEMO_DRAWER_FLOAT)
    for code in kiosks:
        fill_kiosk(uow, code, DEMO_KIOSK_FILL, "system:seed", ctx.clock.now())
