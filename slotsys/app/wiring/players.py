"""The players' ports (``slotsys.players.services.ports``) filled with TITO's cage."""

from __future__ import annotations

from slotsys.kernel import accounts
from tito.adapters.repo import DrawerRepo
from tito.services.cage import NoOpenDrawer


class CageCashDesk:
    """:class:`slotsys.players.services.ports.CashDesk` over TITO's drawer sessions."""

    def open_drawer_account(self, uow, cashier: str) -> str:
        ds = DrawerRepo(uow.session).open_for_cashier(cashier)
        if ds is None:
            raise NoOpenDrawer("open a drawer session before taking or paying cash", field="drawer")
        return accounts.cashier_drawer(ds.drawer, ds.cage)
