"""Printable tickets and machine-readable codes for tickets on file.

The face (see :mod:`tito.domain.printable`) uses the casino name and site from the
settings (``SLOTSYS_CASINO_NAME`` / ``SLOTSYS_CASINO_SITE``), the issue time in the casino's
time zone (``SLOTSYS_TITO_TIMEZONE``, default Asia/Seoul) and "VOID AFTER N DAYS" with N the
ticket's own validity in days. Who may fetch: the machine that issued the ticket, or staff
(cashier, attendant, supervisor, operator, auditor). 404 not on file; 422 malformed /
mistyped number.
"""

from __future__ import annotations

from slotsys.kernel.checks import require_role
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.errors import Forbidden
from tito.domain.printable import TicketFace, ticket_pdf, ticket_png
from tito.services import tickets as T
from tito.settings import TitoSettings


class TicketPrinting:
    def __init__(self, ctx: ServiceContext, settings: TitoSettings) -> None:
        self.ctx = ctx
        self.settings = settings

    def face(self, principal: Principal, raw_number: object) -> TicketFace:
        """What the ticket's face shows (403 for a machine that did not issue it, or a staff role not listed)."""
        vn = T.parse_number(raw_number)
        if principal.kind == "staff":
            require_role(principal, "cashier", "attendant", "supervisor", "operator", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            t = uow.tickets.get(vn)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            if principal.kind == "machine" and principal.name != t.issued_by:
                raise Forbidden("a machine may print only the tickets it issued")
            floor = self.ctx.settings
            return TicketFace(
                casino_name=floor.casino_name, casino_site=floor.casino_site, ticket_type=t.type,
                validation_number=vn, amount=t.amount, issued_at=t.issued_at.astimezone(self.settings.tz),
                issued_by=t.issued_by, sequence=t.sequence, void_after_days=t.validity_days,
            )

    def png(self, principal: Principal, raw_number: object, dpi: int = 300) -> bytes:
        """The printable ticket as a PNG (156 × 65 mm at ``dpi``, 203 or 300)."""
        return ticket_png(self.face(principal, raw_number), dpi=dpi)

    def pdf(self, principal: Principal, raw_number: object) -> bytes:
        """The printable ticket as a one-page PDF of 156 × 65 mm."""
        return ticket_pdf(self.face(principal, raw_number))
