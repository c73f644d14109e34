"""The floor's ports (``slotsys.floor.services.ports``) filled with the jackpot controller and TITO.

Thin: each method translates a floor call into the other feature's own use case; nothing is decided here.
"""

from __future__ import annotations

from typing import Any

from jackpot_controller import read_model as jackpot_reads
from jackpot_controller.domain.records import MachineRef
from jackpot_controller.services.container import JackpotServices
from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.ports import HandpayHit
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import Once, OnceKey
from tito.services import machine_in, setup, tickets


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


class FloorTickets:
    """:class:`slotsys.floor.services.ports.TicketPort` over TITO's use cases."""

    def __init__(self, ctx: ServiceContext, tito: Any) -> None:
        self.ctx = ctx
        self.tito = tito

    def cash_out(self, uow, machine: Machine) -> dict:
        return tickets.cash_out_machine(uow, self.ctx, machine)

    def ticket_in(self, principal: Principal, asset: str, validation_number: object, key: OnceKey) -> Once:
        status, body, replayed = self.tito.machine.single(principal, asset, validation_number, key.key)
        return Once(None, replayed, (status, body))

    def credit_limit(self, machine: Machine) -> int:
        return machine_in.credit_limit(machine)

    def new_machine_secret(self, uow, machine: Machine, *, actor: str, reason: str) -> int:
        return setup.new_machine_secret(uow, self.ctx, machine, actor=actor, reason=reason)

    def handpay_receipt(self, uow, machine: Machine, attendant: str) -> dict:
        return tickets.issue_handpay_receipt(uow, self.ctx, machine, attendant)
