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
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.idempotency import Once, OnceKey
from tito.services import machine_in, setup, tickets


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
