"""The floor's ports (``slotsys.floor.services.ports``) filled with the jackpot controller.

Thin: each method translates a floor call into the other feature's own use case; nothing is decided here.
"""

from __future__ import annotations

from jackpot_controller import read_model as jackpot_reads
from jackpot_controller.domain.records import MachineRef
from jackpot_controller.services.container import JackpotServices
from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.ports import HandpayHit
from slotsys.kernel.context import ServiceContext


class FloorJackpots:
    """:class:`slotsys.floor.services.ports.JackpotPort` over the jackpot controller's services."""

    def __init__(self, ctx: ServiceContext, jackpots: JackpotServices) -> None:
        self.ctx = ctx
        self.jackpots = jackpots

    def on_wager(self, uow, machine: Machine, bet_won: int, game_number: int, outcome) -> tuple[list[dict], int]:
        ref = MachineRef(machine.id, machine.asset_number, machine.zone, machine.bank or "")
        return self.jackpots.wagers.on_wager(uow, ref, bet_won, game_number, outcome)

    def move_machine(self, uow, asset: str, zone: str, actor: str) -> None:
        self.jackpots.admin.move_machine_in(uow, asset, zone, actor)

    def levels_in_zone(self, uow, zone: str) -> list[str]:
        return jackpot_reads.levels_in_zone(uow, zone)

    def handpay_hits(self, uow) -> list[HandpayHit]:
        return [HandpayHit(h.id, h.machine_id, h.amount_won, h.created_at) for h in jackpot_reads.handpay_hits(uow)]

    def pay_handpay(self, uow, hit_id: int, signer: str) -> dict:
        return self.jackpots.awards.pay_handpay_in(uow, hit_id, signer).model_dump(mode="json")
