"""The services the composition root built, for the call signatures other features still use.

The slot floor (cash-out, ticket-in, enrolment and key rotation, the handpay queue, the credit limit in its
machine view), the seed and the screens call TITO through module functions that receive no TITO object
(``tito.services.tickets.cash_out_machine(uow, ctx, m)``, ``MachineTicketIn(ctx).single(...)``,
``credit_limit(m)``, ``new_machine_secret(...)``, ``seed_tito(...)``). Until each is given the
:class:`~tito.services.desk.TicketDesk` through a port of its own, those functions reach the one set of
services the composition root built and installed here (:func:`install`, once per built process). TITO's
own services never read this module: theirs come in through their constructors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tito.services.container import TitoServices
    from tito.settings import TitoSettings

_installed: list["TitoServices"] = []


def install(services: "TitoServices") -> None:
    """Make ``services`` the ones the other features' calls reach (the last process built wins)."""
    _installed[:] = [services]


def services() -> "TitoServices":
    """The installed services; ``RuntimeError`` if no process was built (``slotsys.app.bootstrap``)."""
    if not _installed:
        raise RuntimeError("TITO's services are not built: build the process with slotsys.app.bootstrap first")
    return _installed[0]


def settings() -> "TitoSettings":
    """The installed services' settings, or the environment's when no process was built."""
    if _installed:
        return _installed[0].settings
    from tito.settings import TitoSettings

    return TitoSettings()
