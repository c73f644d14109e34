"""TITO's glue: the slot floor's machines and the staff accounts as TITO's ports, and TITO's services built once.

* :class:`FloorMachines` fills :class:`tito.services.ports.TicketMachines` over the floor's ``uow.machines``
  repository (``slotsys.floor.adapters.repositories.MachineRepo``) and the floor's ``Machine`` rows: it
  translates a row into TITO's frozen :class:`~tito.domain.machines.MachineView` and writes TITO's
  columns of the row (the ticket numbering: validation scheme, SAS validation ID, sequence and
  generation, ticket sequence; the credit limit) where TITO asks;
* :class:`StaffKiosks` fills :class:`tito.services.ports.KioskDirectory` over ``uow.staff``;
* :func:`build_tito` builds every TITO service for the process from one :class:`~tito.settings.TitoSettings`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from slotsys.floor.adapters.tables import Machine
from slotsys.kernel.context import ServiceContext
from slotsys.kernel.credits import Credits
from tito.domain.machines import MachineTicketMeters, MachineView, TicketNumbering
from tito.read_model import TicketReports
from slotsys.kernel.gaming_day import GamingDay
from tito.services.container import TitoServices
from tito.settings import TitoSettings


def machine_view(m: Machine) -> MachineView:
    """The floor's machine row as TITO sees it."""
    return MachineView(
        id=m.id, asset_number=m.asset_number, zone=m.zone, status=m.status, lock_reason=m.lock_reason or "",
        credit_limit=m.credit_limit,
        numbering=TicketNumbering(scheme=m.validation_scheme or "system", sas_validation_id=m.sas_validation_id,
                                  sas_sequence=m.sas_sequence or 0, sas_generation=m.sas_generation or 0,
                                  ticket_seq=m.ticket_seq or 0))


class FloorMachines:
    """:class:`tito.services.ports.TicketMachines` over the slot floor's machines (translate, don't decide)."""

    @staticmethod
    def _row(uow: Any, machine_id: int) -> Machine:
        # the row the transaction already loaded (the caller locked it), else read by id
        return uow.machines.get_by_id(machine_id)

    def lock(self, uow: Any, asset: str) -> MachineView:
        return machine_view(uow.machines.get(asset, for_update=True))

    def get(self, uow: Any, asset: str) -> MachineView:
        return machine_view(uow.machines.get(asset))

    def all(self, uow: Any, *, include_retired: bool = False) -> list[MachineView]:
        return [machine_view(m) for m in uow.machines.all(include_retired=include_retired)]

    def credits(self, uow: Any, asset: str) -> Credits:
        return uow.machines.credits(asset)

    def add_ticket_meters(self, uow: Any, machine_id: int, **meters: int) -> None:
        uow.machines.add_meters(machine_id, **meters)

    def save_numbering(self, uow: Any, machine_id: int, numbering: TicketNumbering) -> None:
        m = self._row(uow, machine_id)
        m.validation_scheme, m.sas_validation_id = numbering.scheme, numbering.sas_validation_id
        m.sas_sequence, m.sas_generation, m.ticket_seq = (numbering.sas_sequence, numbering.sas_generation,
                                                          numbering.ticket_seq)
        uow.session.flush()  # the next validation-ID draw checks uniqueness against it

    def validation_id_owner(self, uow: Any, validation_id: int, *, besides: int) -> str | None:
        return uow.session.scalar(select(Machine.asset_number).where(
            Machine.sas_validation_id == validation_id, Machine.id != besides))

    def set_credit_limit(self, uow: Any, machine_id: int, limit: int | None) -> None:
        self._row(uow, machine_id).credit_limit = limit

    def ticket_meters(self, uow: Any) -> list[MachineTicketMeters]:
        return [MachineTicketMeters(m.id, m.asset_number, m.tickets_out, m.tickets_out_count, m.tickets_in,
                                    m.tickets_in_count) for m in uow.machines.all(include_retired=True)]


class StaffKiosks:
    """:class:`tito.services.ports.KioskDirectory` over the staff accounts."""

    def is_kiosk(self, uow: Any, code: str) -> bool:
        user = uow.staff.by_username(code)
        return user is not None and user.role == "kiosk"


def build_tito(ctx: ServiceContext, settings: TitoSettings, gaming_day: GamingDay) -> TitoServices:
    """Every TITO service of the process, on ``ctx`` with the one ``settings``; the reports dated by the floor's
    ``gaming_day``; ``desk`` fills the slot floor's ticket port."""
    machines = FloorMachines()
    services = TitoServices.assemble(ctx, settings, machines, StaffKiosks(),
                                     reports=TicketReports(ctx, settings, machines, gaming_day=gaming_day))
    return services
