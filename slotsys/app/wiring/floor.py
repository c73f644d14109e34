"""The floor's ports (``slotsys.floor.services.ports``) filled with the jackpot controller and TITO.

Thin: each method translates a floor call into the other feature's own use case; nothing is decided here.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from jackpot_controller.adapters.tables import JackpotLevel
from jackpot_controller.services import awards, operator
from jackpot_controller.services import spin as jackpot_spin
from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.ports import HandpayHit
from slotsys.kernel.context import ServiceContext


class FloorJackpots:
    """:class:`slotsys.floor.services.ports.JackpotPort` over the jackpot controller's service."""

    def __init__(self, ctx: ServiceContext, jackpots: Any) -> None:
        self.ctx = ctx
        self.jackpots = jackpots

    def on_wager(self, uow, machine: Machine, bet_won: int, game_number: int, outcome) -> tuple[list[dict], int]:
        return jackpot_spin.on_wager(uow, self.ctx, machine, bet_won, game_number, outcome)

    def move_machine(self, uow, asset: str, zone: str, actor: str) -> None:
        operator.move_machine(uow, self.jackpots, asset, zone, actor)

    def levels_in_zone(self, uow, zone: str) -> list[str]:
        return list(uow.session.scalars(select(JackpotLevel.code).where(JackpotLevel.zone == zone)))

    def handpay_hits(self, uow) -> list[HandpayHit]:
        return [HandpayHit(h.id, h.machine_id, h.amount_won, h.created_at) for h in uow.levels.hits_with_status(("handpay",))]

    def pay_handpay(self, uow, hit_id: int, signer: str) -> dict:
        return awards.pay_handpay(uow, self.jackpots, hit_id, signer)
