"""Printable tickets and machine-readable codes for tickets on file.

The face (see :mod:`tito.domain.printable`) uses the casino name and site from the
settings (``SLOTSYS_CASINO_NAME`` / ``SLOTSYS_CASINO_SITE``), the issue time in the casino's
time zone (``SLOTSYS_TITO_TIMEZONE``, default Asia/Seoul) and "VOID AFTER N DAYS" with N the
ticket's own validity in days. Who may fetch: the machine that issued the ticket, or staff
(cashier, attendant, supervisor, operator, auditor). 404 not on file; 422 malformed /
mistyped number.
"""

from __future__ import annotations

from slotsys.kernel.errors import Forbidden
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.checks import require_role
from tito.adapters.repo import TicketRepo
from tito.domain.printable import TicketFace, ticket_pdf, ticket_png
from tito.services import tickets as T
from tito.settings import get_tito_settings


class TicketPrinting:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def face(self, principal: Principal, raw_number: object) -> TicketFace:
        vn = T.parse_number(raw_number)
        if principal.kind == "staff":
            require_role(principal, "cashier", "attendant", "supervisor", "operator", "auditor")
        with self.ctx.uow(readonly=True) as uow:
            t = TicketRepo(uow.session).get(vn)
            if t is None:
                raise T.TicketNotOnFile("validation number not on file", field="validation_number")
            if principal.kind == "machine" and principal.name != t.issued_by:
                raise Forbidden("a machine may print only the tickets it issued")
            settings = self.ctx.settings
            days = max(1, round((t.expires_at - t.issued_at).total_seconds() / 86_400))
            return TicketFace(
                casino_name=settings.casino_name, casino_site=settings.casino_site, ticket_type=t.type,
                validation_number=vn, amount=t.amount, issued_at=t.issued_at.astimezone(get_tito_settings().tz),
                issued_by=t.issued_by, sequence=t.sequence, void_after_days=days,
            )

    def png(self, principal: Principal, raw_number: object, dpi: int = 300) -> bytes:
        """The printable ticket as a PNG (156 × 65 mm at ``dpi``, 203 or 300)."""
        return ticket_png(self.face(principal, raw_number), dpi=dpi)

    def pdf(self, principal: Principal, raw_number: object) -> bytes:
        """The printable ticket as a one-page PDF of 156 × 65 mm."""
        return ticket_pdf(self.face(principal, raw_number))
