"""The services the composition root built, for the callers that receive no TITO object yet.

The seed (``slotsys.app.seed``: ``seed_tito(uow, ctx, …)``, ``new_machine_secret(uow, ctx, m, …)`` on
re-enrolment) and other features' tests (``tito.settings.get_tito_settings()``) reach TITO through module
functions. Until they are given TITO's services (``services.tito.setup``, ``services.tito.desk``,
``services.tito.settings``), those functions reach the one set the composition root built and installed here
(:func:`install`, once per built process). TITO's own services never read this module: theirs come in through
their constructors.
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
