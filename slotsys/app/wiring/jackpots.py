"""Glue between the jackpot controller and the features it pays through: the slot floor's machines, player
tracking's carded sessions and the players' wallet; and :func:`build_jackpot_services`, which the composition
root calls once per process.

Thin on purpose: each method translates a port of :mod:`jackpot_controller.services.ports` into the providing
feature's records and calls; the jackpot rules (what locks when, what is paid) stay in the jackpot services.
Every method runs in the caller's transaction (``uow``) and takes rows in the documented lock order.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from sqlalchemy import select

from jackpot_controller.adapters.lease import AdvisoryLease
from jackpot_controller.domain.records import MachineState
from jackpot_controller.services.awards import AwardService
from jackpot_controller.services.container import JackpotServices
from jackpot_controller.services.machine_bonus import MachineBonuses
from jackpot_controller.services.operator import LevelAdmin
from jackpot_controller.services.reads import JackpotReads
from jackpot_controller.services.sequencer import Sequencer
from jackpot_controller.services.signage import Signage
from jackpot_controller.services.spin import WagerRecorder
from jackpot_controller.services.sweep import Sweeper
from jackpot_controller.services.table import TableProgressives
from jackpot_controller.settings import JackpotSettings
from slotsys.floor.adapters.tables import GameRound, Machine, Zone
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import ServiceContext
from slotsys.kernel.errors import NotFound
from slotsys.players.services.wallet import WalletService


def pays_bonus_on_machine(m: Machine) -> bool:
    """Whether the machine pays a mystery award itself: a SAS machine (it decides its own games and a SAS host
    has enrolled it: ``sas_meter_base`` recorded), whose credit meter only the machine moves (a legacy bonus)."""
    return m.outcome_source == "machine" and m.sas_meter_base is not None


def _state(m: Machine) -> MachineState:
    return MachineState(id=m.id, asset=m.asset_number, zone=m.zone, bank=m.bank or "", status=m.status,
                        lock_reason=m.lock_reason or "", bonus_on_machine=pays_bonus_on_machine(m),
                        denomination=m.denomination)


class FloorMachines:
    """:class:`jackpot_controller.services.ports.MachinePort` over the floor's machine records.

    Changes go to the machine row this transaction loaded (the session's identity map): a spin's own locked
    row, or the row :meth:`lock_for_award` / :meth:`lock_by_asset` locked, so the floor's code holding the same
    row sees them and nothing is written twice. The rows these locked are held for the transaction (in its
    session's ``info``): the identity map holds an unchanged row only weakly, and reading it again would cost
    a round trip."""

    @staticmethod
    def _keep(uow, m: Machine) -> Machine:
        uow.session.info.setdefault("jackpot_machines", {})[m.id] = m
        return m

    def _row(self, uow, machine_id: int) -> Machine:
        m = uow.session.info.get("jackpot_machines", {}).get(machine_id) or uow.session.get(Machine, machine_id)
        if m is None:
            raise NotFound(f"machine id {machine_id} not found")
        return m

    def lock_for_award(self, uow, machine_id: int) -> MachineState:
        m = uow.session.scalar(select(Machine).where(Machine.id == machine_id).with_for_update()
                               .execution_options(populate_existing=True))
        if m is None:
            raise NotFound(f"machine id {machine_id} not found")
        return _state(self._keep(uow, m))

    def current(self, uow, machine_id: int) -> MachineState:
        return _state(self._row(uow, machine_id))

    def credit_bonus(self, uow, machine: MachineState, amount_won: int, *, source_account: str, kind: str,
                     description: str, memo: str, refs: Mapping[str, Any]) -> int:
        entry = L.EntryBuilder(kind, description).add(
            debit=source_account, credit=accounts.machine_credits(machine.asset), amount=amount_won, memo=memo)
        return uow.ledger.post(entry.build(dict(refs)))

    def add_jackpot_meter(self, uow, machine_id: int, amount_won: int) -> None:
        uow.machines.add_meters(machine_id, jackpot_out=amount_won)

    def set_lock(self, uow, machine_id: int, status: str, reason: str | None) -> None:
        m = self._row(uow, machine_id)
        if status == "active":
            m.unlock()
        else:
            m.lock(m.lock_reason if reason is None else reason, status)

    def record_award_on_round(self, uow, machine_id: int, game_number: int, award: Mapping[str, Any]) -> None:
        rnd = uow.session.scalar(select(GameRound).where(GameRound.machine_id == machine_id,
                                                         GameRound.game_number == game_number))
        if rnd is not None:
            others = [j for j in (rnd.jackpots or []) if j.get("hit") != award["hit"]]
            rnd.jackpots = others + [dict(award)]

    def key_share(self, uow, machine_ids: Sequence[int]) -> None:
        if machine_ids:
            uow.session.execute(select(Machine.id).where(Machine.id.in_(list(machine_ids))).order_by(Machine.id)
                                .with_for_update(key_share=True, read=True))

    def lock_by_asset(self, uow, asset: str) -> MachineState:
        return _state(self._keep(uow, uow.machines.get(asset, for_update=True)))

    def move_to_zone(self, uow, machine_id: int, zone: str) -> None:
        self._row(uow, machine_id).zone = zone

    def zone_exists(self, uow, zone: str) -> bool:
        return uow.session.get(Zone, zone) is not None

    def bank_exists(self, uow, bank: str) -> bool:
        return uow.session.scalar(select(Machine.id).where(Machine.bank == bank).limit(1)) is not None

    def asset_exists(self, uow, asset: str) -> bool:
        return uow.session.scalar(select(Machine.id).where(Machine.asset_number == asset).limit(1)) is not None

    def machine_id(self, uow, asset: str) -> int:
        found = uow.session.scalar(select(Machine.id).where(Machine.asset_number == asset))
        if found is None:
            raise NotFound(f"machine {asset} not found", field="asset")
        return found

    def assets(self, uow, machine_ids: Iterable[int]) -> dict[int, str]:
        ids = sorted(set(machine_ids))
        if not ids:
            return {}
        found = dict(uow.session.execute(select(Machine.id, Machine.asset_number).where(Machine.id.in_(ids))).all())
        missing = set(ids) - set(found)
        if missing:
            raise NotFound(f"machine id {min(missing)} not found")
        return found


class CardedSessions:
    """:class:`jackpot_controller.services.ports.CardedPlayers` over player tracking's sessions."""

    def player_on(self, uow, machine_id: int) -> int | None:
        session = uow.players.open_session_for_machine(machine_id)
        return session.player_id if session is not None else None


class Wallets:
    """:class:`jackpot_controller.services.ports.TableWallet` over the players' wallet."""

    def pay_table_award(self, uow, player_id: int, from_account: str, amount_won: int, *,
                        refs: Mapping[str, Any]) -> int:
        return WalletService.credit_from_table(uow, player_id, from_account, amount_won, refs=dict(refs))


def build_jackpot_services(ctx: ServiceContext, *, engine, publish, settings: JackpotSettings) -> JackpotServices:
    """The jackpot controller's services for one process (``engine``: the database, for the sequencer's lease
    and to know whether writers serialise; ``publish``: the live channel)."""
    machines = FloorMachines()
    signage = Signage(ctx, settings, publish, machines)
    sequencer = Sequencer(ctx, settings, machines=machines, players=CardedSessions(), signage=signage,
                          lease=AdvisoryLease(engine), dialect=engine.dialect.name)
    awards = AwardService(ctx, settings, machines=machines, signage=signage)
    services = JackpotServices(
        settings=settings, signage=signage, sequencer=sequencer, awards=awards,
        wagers=WagerRecorder(ctx, sequencer=sequencer, awards=awards, machines=machines),
        admin=LevelAdmin(ctx, settings, machines=machines), reads=JackpotReads(ctx, machines=machines),
        tables=TableProgressives(ctx, wallet=Wallets(), signage=signage),
        sweeper=Sweeper(ctx, sequencer=sequencer, awards=awards, signage=signage),
        bonuses=MachineBonuses(ctx, machines=machines),
    )
    return services
