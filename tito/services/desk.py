"""The ticket desk: what the slot floor asks of TITO, in one object it receives through its ticket port
(``slotsys.floor.services.ports.TicketPort``: the methods and shapes below are that port's).

* :meth:`TicketDesk.cash_out` — a machine's credits to tickets (one per credit type);
* :meth:`TicketDesk.handpay_receipt` — an attendant's handpay of the cashable credits, with a receipt;
* :meth:`TicketDesk.ticket_in` — a ticket credited onto a machine (single call);
* :meth:`TicketDesk.credit_limit` — the credit limit in force for a machine;
* :meth:`TicketDesk.new_machine_secret` — a new SAS validation ID (enrolment, key rotation).

The machine is the floor's own object (:class:`~tito.services.ports.MachineRef`: TITO reads its asset number
and own credit limit; everything else through :class:`~tito.services.ports.TicketMachines`). Refusals are
domain errors; a cash-out above the ticket limit raises :class:`~tito.domain.errors.HandpayRequired` (a
``Conflict`` with code ``handpay-required`` and ``extra["amount"]``, won), for the floor to queue the handpay.
"""

from __future__ import annotations

from slotsys.kernel.context import Principal
from slotsys.kernel.idempotency import Once, OnceKey
from tito.services.machine_in import TicketInService, effective_credit_limit
from tito.services.ports import MachineRef, TicketMachines, TitoUnitOfWork
from tito.services.results import TicketInCredit
from tito.services.setup import TitoSetup
from tito.services.tickets import TicketBook
from tito.settings import TitoSettings


class TicketDesk:
    def __init__(self, settings: TitoSettings, machines: TicketMachines, book: TicketBook,
                 ticket_in: TicketInService, setup: TitoSetup) -> None:
        self.settings = settings
        self.machines = machines
        self.book = book
        self._ticket_in = ticket_in
        self.setup = setup

    def cash_out(self, uow: TitoUnitOfWork, machine: MachineRef) -> dict:
        """Cash out everything on ``machine`` in the caller's transaction (which locked the machine and checked
        it may play): :meth:`tito.services.tickets.TicketBook.cash_out` as its JSON ``{"machine", "ticket",
        "tickets", "credits", "promo_credits", "restricted_credits", "nonrestricted_credits"}``."""
        return self.book.cash_out(uow, self.machines.lock(uow, machine.asset_number)).model_dump(mode="json")

    def handpay_receipt(self, uow: TitoUnitOfWork, machine: MachineRef, attendant: str) -> dict:
        """An attendant's handpay of ``machine``'s cashable credits with a receipt, in the caller's transaction:
        :meth:`tito.services.tickets.TicketBook.handpay_receipt` as its JSON ``{"machine", "ticket", "credits",
        "attendant"}``."""
        return self.book.handpay_receipt(uow, self.machines.lock(uow, machine.asset_number),
                                         attendant).model_dump(mode="json")

    def ticket_in(self, principal: Principal, asset: str, raw_number: object, key: OnceKey) -> Once[TicketInCredit]:
        """A ticket credited onto the machine in one call, exactly once per ``key`` (fingerprint
        ``("POST", "ticket-in/<asset>", compact(number))``): :meth:`TicketInService.single`."""
        return self._ticket_in.single(principal, asset, raw_number, key)

    def credit_limit(self, machine: MachineRef) -> int:
        """The credit limit in force for ``machine`` (won; 0 = none): its own, else the floor default
        ``SLOTSYS_TITO_MACHINE_CREDIT_LIMIT_WON``."""
        return effective_credit_limit(machine.credit_limit, self.settings)

    def new_machine_secret(self, uow: TitoUnitOfWork, machine: MachineRef, *, actor: str, reason: str) -> int:
        """Draw ``machine``'s SAS validation ID and sequence start; returns the new generation
        (:meth:`tito.services.setup.TitoSetup.new_machine_secret`)."""
        return self.setup.new_machine_secret(uow, self.machines.get(uow, machine.asset_number), actor=actor,
                                             reason=reason)
