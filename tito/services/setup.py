"""A machine's SAS validation secret, and TITO's part of the demo floor (:class:`TitoSetup`).

The demo floor (called by ``slotsys.app.seed`` in the seeding transaction):

- ledger accounts: each machine's promo meter; voids, breakage, promo expense, cage variance;
- the VIP zone's machines number their tickets with SAS secure enhanced validation (each with a
  validation ID and sequence start drawn from the CSPRNG: :meth:`TitoSetup.new_machine_secret`), the MASS
  zone with system validation;
- the demo cashier's drawer D1 is open with a ₩200,000,000 float from the cage bank;
- each demo kiosk's cassette holds ₩100,000,000.
"""

from __future__ import annotations

from dataclasses import replace

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import ServiceContext
from tito.domain.machines import MachineView, TicketNumbering
from tito.domain.validation import draw_machine_secret
from tito.services.cage import open_drawer_session
from tito.services.kiosk import fill_kiosk
from tito.services.ports import KioskDirectory, TicketMachines, TitoUnitOfWork
from tito.services.tickets import ensure_promo_meter

DEMO_DRAWER = "D1"
DEMO_DRAWER_FLOAT = 200_000_000
DEMO_KIOSK_FILL = 100_000_000
SAS_ZONE = "VIP"


class TitoSetup:
    def __init__(self, ctx: ServiceContext, machines: TicketMachines, kiosks: KioskDirectory) -> None:
        self.ctx = ctx
        self.machines = machines
        self.kiosks = kiosks

    def draw_secret(self, uow: TitoUnitOfWork, m: MachineView, *, actor: str, reason: str) -> TicketNumbering:
        """Draw ``m``'s SAS secure enhanced validation ID and sequence start from the CSPRNG (unique ID
        on the floor) and count a new generation; saved and logged (``validation_id_rotated``, without
        the secret). Used when a machine joins SAS validation, on rotation (supervisor) and on
        re-enrolment (new machine keys). Returns the machine's numbering after it. Tickets already
        issued keep their numbers."""
        vid, seq = draw_machine_secret(
            self.ctx.rng.randbelow, lambda v: self.machines.validation_id_owner(uow, v, besides=m.id) is not None)
        numbering = m.numbering.with_secret(vid, seq)
        self.machines.save_numbering(uow, m.id, numbering)
        uow.tickets.log("validation_id_rotated", actor=actor, at=self.ctx.clock.now(), location=m.asset_number,
                        generation=numbering.sas_generation, reason=reason)
        return numbering

    def new_machine_secret(self, uow: TitoUnitOfWork, m: MachineView, *, actor: str, reason: str) -> int:
        """:meth:`draw_secret`; returns the new generation."""
        return self.draw_secret(uow, m, actor=actor, reason=reason).sas_generation

    def seed(self, uow: TitoUnitOfWork, *, cashier: str | None, kiosks: list[str]) -> None:
        """TITO's part of the demo floor (see the module), in the seeding transaction ``uow``."""
        for code, type_ in ((accounts.TICKETS_VOIDS, L.AccountType.REVENUE),
                            (accounts.TICKETS_BREAKAGE, L.AccountType.REVENUE),
                            (accounts.PROMO_EXPENSE, L.AccountType.EXPENSE),
                            (accounts.cage_variance(), L.AccountType.REVENUE)):
            uow.ledger.ensure_account(code, type_)
        for m in self.machines.all(uow):
            ensure_promo_meter(uow, m.asset_number)
            if m.zone == SAS_ZONE:
                # joins SAS validation: the scheme is saved with the drawn secret
                self.new_machine_secret(uow, replace(m, numbering=replace(m.numbering, scheme="sas")),
                                        actor="system:seed", reason="seeded")
        if cashier:
            open_drawer_session(uow, self.ctx.clock.now(), cashier, DEMO_DRAWER, DEMO_DRAWER_FLOAT)
        for code in kiosks:
            fill_kiosk(uow, self.kiosks, code, DEMO_KIOSK_FILL, "system:seed", self.ctx.clock.now())
