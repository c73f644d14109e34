"""The TITO use cases, built once per process on the floor's ServiceContext."""

from __future__ import annotations

from dataclasses import dataclass

from slotsys.kernel.context import ServiceContext
from tito.services.admin import TicketAdminService
from tito.services.cage import CageService
from tito.services.kiosk import KioskService
from tito.services.machine_in import MachineTicketIn
from tito.services.printing import TicketPrinting
from tito.services.reports import TicketReports


@dataclass
class TitoServices:
    cage: CageService
    kiosk: KioskService
    machine: MachineTicketIn
    admin: TicketAdminService
    reports: TicketReports
    printing: TicketPrinting

    @classmethod
    def build(cls, ctx: ServiceContext) -> "TitoServices":
        return cls(cage=CageService(ctx), kiosk=KioskService(ctx), machine=MachineTicketIn(ctx),
                   admin=TicketAdminService(ctx), reports=TicketReports(ctx), printing=TicketPrinting(ctx))
