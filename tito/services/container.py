"""The TITO services of one process, built once by the composition root (``slotsys.app.wiring.tito``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slotsys.kernel.context import ServiceContext

from tito.services.admin import TicketAdminService
from tito.services.cage import CageService
from tito.services.desk import TicketDesk
from tito.services.expiry import TicketExpiry
from tito.services.kiosk import KioskService
from tito.services.machine_in import TicketInService
from tito.services.machine_out import TicketOutService
from tito.services.ports import KioskDirectory, TicketMachines
from tito.services.printing import TicketPrinting
from tito.services.setup import TitoSetup
from tito.services.tickets import TicketBook
from tito.settings import TitoSettings


@dataclass
class TitoServices:
    """``settings`` the one TitoSettings every service reads; ``desk`` what the slot floor asks of TITO;
    ``reports`` the auditor's read model (:class:`tito.read_model.TicketReports`: the read side, which
    services do not import)."""

    settings: TitoSettings
    book: TicketBook
    desk: TicketDesk
    cage: CageService
    kiosk: KioskService
    machine: TicketInService
    machine_out: TicketOutService
    admin: TicketAdminService
    printing: TicketPrinting
    expiry: TicketExpiry
    setup: TitoSetup
    reports: Any

    @classmethod
    def assemble(cls, ctx: ServiceContext, settings: TitoSettings, machines: TicketMachines, kiosks: KioskDirectory,
                 reports: Any = None) -> "TitoServices":
        """TITO's services on ``ctx`` with the one ``settings`` and the objects filling its ports (the composition
        root's glue, or fakes); ``reports`` the read model built beside them."""
        book = TicketBook(ctx, settings, machines)
        setup = TitoSetup(ctx, machines, kiosks)
        ticket_in = TicketInService(ctx, settings, machines, book)
        return cls(
            settings=settings, book=book, desk=TicketDesk(settings, machines, book, ticket_in, setup),
            cage=CageService(ctx, book), kiosk=KioskService(ctx, book, kiosks), machine=ticket_in,
            machine_out=TicketOutService(ctx, machines, book),
            admin=TicketAdminService(ctx, settings, machines, book, setup), printing=TicketPrinting(ctx, settings),
            expiry=TicketExpiry(ctx), setup=setup, reports=reports)
