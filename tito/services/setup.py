"""TITO part of the demo floor (called by slotsys.app.seed in the seeding transaction).

- ledger accounts: each machine's promo meter; voids, breakage, promo expense, cage variance;
- the VIP zone's machines number their tickets with SAS secure enhanced validation (each with a
  validation ID and sequence start drawn from the CSPRNG: :func:`new_machine_secret`), the MASS
  zone with system validation;
- the demo cashier's drawer D1 is open with a ₩200,000,000 float from the cage bank;
- each demo kiosk's cassette holds ₩100,000,000.
"""

from __future__ import annotations

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from tito.adapters.repo import TicketRepo
from tito.domain.validation import draw_machine_secret
from slotsys.kernel.context import ServiceContext
from tito.services import tickets as T
from tito.services.cage import open_drawer_session
from tito.services.kiosk import fill_kiosk

DEMO_DRAWER = "D1"
DEMO_DRAWER_FLOAT = 200_000_000
DEMO_KIOSK_FILL = 100_000_000
SAS_ZONE = "VIP"


def new_machine_secret(uow, ctx: ServiceContext, m, *, actor: str, reason: str) -> int:
    """Draw ``m``'s SAS secure enhanced validation ID and sequence start from the CSPRNG (unique ID
    on the floor) and count a new generation; logged (``validation_id_rotated``, without the
    secret). Used when a machine joins SAS validation, on rotation (supervisor) and on re-enrolment
    (new machine keys). Returns the new generation. Tickets already issued keep their numbers."""
    repo = TicketRepo(uow.session)
    vid, seq = draw_machine_secret(ctx.rng.randbelow,
                                   lambda v: repo.machine_with_validation_id(v, besides=m.id) is not None)
    m.sas_validation_id, m.sas_sequence = vid, seq
    m.sas_generation = (m.sas_generation or 0) + 1
    uow.session.flush()
    repo.log("validation_id_rotated", actor=actor, at=ctx.clock.now(), location=m.asset_number,
             generation=m.sas_generation, reason=reason)
    return m.sas_generation


def seed_tito(uow, ctx: ServiceContext, *, cashier: str | None, kiosks: list[str]) -> None:
    for code, type_ in ((accounts.TICKETS_VOIDS, L.AccountType.REVENUE), (accounts.TICKETS_BREAKAGE, L.AccountType.REVENUE),
                        (accounts.PROMO_EXPENSE, L.AccountType.EXPENSE), (accounts.cage_variance(), L.AccountType.REVENUE)):
        uow.ledger.ensure_account(code, type_)
    for m in uow.machines.all():
        T.ensure_promo_meter(uow, m.asset_number)
        if m.zone == SAS_ZONE:
            m.validation_scheme = "sas"
            new_machine_secret(uow, ctx, m, actor="system:seed", reason="seeded")
    uow.session.flush()
    if cashier:
        open_drawer_session(uow, ctx, cashier, DEMO_DRAWER, DEMO_DRAWER_FLOAT)
    for code in kiosks:
        fill_kiosk(uow, code, DEMO_KIOSK_FILL, "system:seed", ctx.clock.now())
