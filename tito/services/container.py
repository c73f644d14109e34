"""The TITO services of one process, built once by the composition root (``slotsys.app.wiring.tito``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tito.services.admin import TicketAdminService
from tito.services.cage import CageService
from tito.services.desk import TicketDesk
from tito.services.expiry import TicketExpiry
from tito.services.kiosk import KioskService
from tito.services.machine_in import TicketInService
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
    admin: TicketAdminService
    printing: TicketPrinting
    expiry: TicketExpiry
    setup: TitoSetup
    reports: Any
