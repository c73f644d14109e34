"""Ticket-out at a machine that numbers its own tickets (a SAS machine: SAS 6.02 §15): the machine decided the
cash-out, printed the ticket and reports it; TITO puts that number on file (:class:`TicketOutService`).

The server-decided cash-out (``POST /machines/<asset>/cash-out``) is :meth:`tito.services.tickets.TicketBook.cash_out`:
TITO numbers the ticket there. Here the number is the machine's and the money moves the same way: ``Dr
machine:<asset>:credits (+ :nonrestricted) / Cr tito:outstanding`` (:meth:`TicketBook.printed_cash_out`).

Exactly once: the caller names the request with an :class:`~slotsys.kernel.idempotency.OnceKey` whose fingerprint
is ``("POST", "ticket-out/<asset>", [number, amount])``.
"""

from __future__ import annotations

from slotsys.kernel.checks import require_machine
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import Once, OnceKey, run_once
from tito.services import tickets as T
from tito.services.ports import TicketMachines, TitoUnitOfWork
from tito.services.results import TicketPrinted


class TicketOutService:
    """``machines``: the slot machines; ``book``: the shared ticket machinery."""

    def __init__(self, ctx: ServiceContext, machines: TicketMachines, book: T.TicketBook) -> None:
        self.ctx = ctx
        self.machines = machines
        self.book = book

    def printed(self, principal: Principal, asset: str, raw_number: object, amount: int,
                key: OnceKey) -> Once[TicketPrinted]:
        """The machine ``asset`` printed a cashable ticket numbered ``raw_number`` for ``amount`` won: on file,
        paid from its credits, exactly once per ``key``. Works on a locked machine too (the ticket is in the
        player's hand). Returns :class:`TicketPrinted`. Errors: 403 another machine's principal; 404 ``asset``;
        422 ``validation_number`` / ``amount``; 409 ``validation_number`` already on file; 409 ``amount`` when
        the machine's cashable credits on the floor are less than the ticket."""
        require_machine(principal, asset)

        def fn(uow: TitoUnitOfWork) -> TicketPrinted:
            m = self.machines.lock(uow, asset)
            return self.book.printed_cash_out(uow, m, raw_number, amount)

        return run_once(self.ctx, key, fn, result=TicketPrinted)
