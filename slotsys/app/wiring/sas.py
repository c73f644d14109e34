"""The SAS host's glue: :func:`build_sas_floor` builds the :class:`~slotsys.sas.adapters.floor_services.ServicesFloor`
over the process's services (``slotsys.app.bootstrap.Services``); :func:`prepare_sas_machines` readies floor machines
for a SAS host through floor and TITO administration."""

from __future__ import annotations

from typing import Any, Iterable

from slotsys.floor.games import GAMES_DIR
from slotsys.kernel.context import Principal
from slotsys.sas.adapters.floor_services import ServicesFloor

CONSOLE = Principal("staff", "console", "admin")


def catalogue_program(game_id: str) -> bytes | None:
    """The bytes of a catalogue game's definition (``slotsys/floor/games/<id>.yaml``): the approved program a
    machine's ROM signature is checked against; None for a game outside the catalogue files (an uploaded one)."""
    path = GAMES_DIR / f"{game_id}.yaml"
    return path.read_bytes() if path.is_file() else None


def build_sas_floor(svc: Any) -> ServicesFloor:
    """The FloorPort of a SAS host over ``svc`` (``Services``): the legacy bonus guard is the jackpot
    controller's maximum award (``SLOTSYS_JACKPOT_MAX_AWARD_WON``); the bonuses it sends are the jackpot
    controller's awards waiting at their machine (``svc.jackpots.bonuses``); the AFT transfers it carries out the
    carded players' (``svc.aft``)."""
    return ServicesFloor(svc.ctx, floor=svc.floor, reported_games=svc.reported_games, events=svc.events,
                         tito=svc.tito, program=catalogue_program, max_bonus_won=svc.jackpots.settings.max_award_won,
                         bonuses=svc.jackpots.bonuses, aft=svc.aft)


def prepare_sas_machines(svc: Any, assets: Iterable[str], *, validation: str = "sas",
                         reason: str = "SAS host: the machine decides and reports its games") -> None:
    """Ready ``assets`` for a SAS host, through the floor's own administration (audit-logged as the console):
    outcome source ``machine`` (:meth:`MachineGameService.set_outcome_source`) and ticket validation
    ``validation`` (``sas``: secure enhanced, a validation ID drawn from the CSPRNG if the machine has none;
    ``system``: :meth:`TicketAdminService.set_validation`). Raises the services' errors (404 ``asset``)."""
    for asset in assets:
        svc.reported_games.set_outcome_source(None, asset, "machine", reason=reason)
        svc.tito.admin.set_validation(CONSOLE, asset, validation)
