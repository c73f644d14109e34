"""Transitional entry points for callers outside the feature that do not receive the jackpot services as
ports yet and pass only the service context: the floor's spin (``services.spin.on_wager``) and machine
administration (``services.operator.move_machine``), the table service (``services.controller.service_for``,
``services.table.settle_table_round``). The composition root attaches the services it built to its context
(:func:`attach`); nothing is built here, and a context without them is refused. Delete with the last caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from jackpot_controller.services.container import JackpotServices

_ATTR = "jackpot_services"


def attach(ctx: Any, services: "JackpotServices") -> None:
    """Make ``services`` reachable from ``ctx`` for the transitional entry points."""
    setattr(ctx, _ATTR, services)


def services_of(ctx: Any) -> "JackpotServices":
    """The services attached to ``ctx``; ``RuntimeError`` if the composition root attached none."""
    services = getattr(ctx, _ATTR, None)
    if services is None:
        raise RuntimeError("no jackpot services were built for this context (slotsys.app.wiring.jackpots)")
    return services


def move_machine(uow, svc: Any, asset: str, zone: object, actor: str) -> dict:
    """The floor's machine administration's zone move (``svc``: any object with the ``ctx``)."""
    return services_of(svc.ctx).admin.move_machine_in(uow, asset, zone, actor).model_dump(mode="json")


def pay_handpay(uow, svc: Any, hit_id: int, attendant: str) -> dict:
    """The handpay queue's payment (``svc``: the :class:`JackpotServices` the floor was given)."""
    return svc.awards.pay_handpay_in(uow, hit_id, attendant).model_dump(mode="json")
