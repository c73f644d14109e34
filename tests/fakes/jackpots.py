"""In-memory fakes of the jackpot controller's repository and ports, for service unit tests without a database.

* :class:`FakeLevels` (``uow.levels``): levels, the sequencer's queue, folds, hits, events and zone moves, with
  the SQL store's rules a use case can tell: one hit per (level, cycle), one wager per (machine, game number),
  a wager folded once, codes unique, lists in id order (events and recent hits newest first).
* :class:`FakeFloor` (``uow.floor``): the floor's state the ports read and change (machines, zones, game
  recall, carded sessions), registered in the fake unit of work so a rolled-back transaction leaves it as it
  was; :class:`FakeMachines`, :class:`FakeCardedPlayers` and :class:`FakeWallet` fill the jackpot ports over it
  and over the fake ledger.

``jackpot_context(...)`` builds a context over them; ``jackpot_services(ctx, settings)`` the services the
composition root builds, on these fakes.
"""

from __future__ import annotations

from collections import namedtuple

import dataclasses
from datetime import datetime
from types import SimpleNamespace
from typing import Any, Iterable, Mapping, Sequence

from jackpot_controller.adapters.repo import write_params, write_pool
from jackpot_controller.domain import records as R
from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.pool import Pool
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
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import NotFound
from tests.fakes.kernel import fake_context

_HIT_DEFAULTS = {"announced": False, "entry_id": None, "wager_id": None, "player_id": None, "value_milli": 0,
                 "topup_won": 0, "pay_method": None, "claim_token": None, "claimed_at": None, "awarded_at": None,
                 "paid_by": None, "award_entry_id": None, "note": "", "bonus_meter_before": None}


# the columns (in order) of ``jackpot_controller.adapters.repo.LevelRepo.pending_wagers``' rows
_WagerRow = namedtuple("_WagerRow", "id machine_id asset bank zone bet_won progressive game_number created_at")


class StoreRefused(Exception):
    """What the database would refuse (a unique constraint)."""


class FakeLevels:
    def __init__(self) -> None:
        self.levels: dict[int, R.Level] = {}
        self.wagers: list[dict[str, Any]] = []
        self.folds: list[dict[str, Any]] = []
        self.hits: dict[int, R.Hit] = {}
        self.event_log: list[R.JackpotEvent] = []
        self.moves: list[tuple[int, str, datetime, str]] = []
        self.now: datetime | None = None  # stamps ``updated_at`` (the SQL store uses the database's clock)

    # -- levels
    def all(self) -> list[R.Level]:
        return [self.levels[i] for i in sorted(self.levels)]

    def lock_all(self) -> list[R.Level]:
        return self.all()

    def get(self, code: str, *, for_update: bool = False) -> R.Level | None:
        return next((lv for lv in self.levels.values() if lv.code == code), None)

    def by_id(self, level_id: int) -> R.Level | None:
        return self.levels.get(level_id)

    def create(self, *, code: str, name: str, params: LevelParams, value_milli: int, trigger_milli: int,
               seeded_won: int) -> R.Level:
        if self.get(code) is not None:
            raise StoreRefused(f"jackpot_levels.code {code!r} exists")
        row = SimpleNamespace(id=len(self.levels) + 1, code=code, name=name, pending=None, pending_at=None,
                              value_milli=value_milli, trigger_milli=trigger_milli, reserve_milli=0, overflow_milli=0,
                              cycle=1, cycle_started_at=self.now, paused=False, qualifying_coin_in=0,
                              contributed_milli=0, seeded_won=seeded_won, hits=0, total_won=0, updated_at=self.now)
        write_params(row, params)
        level = R.Level(**{f: getattr(row, f) for f in R.LEVEL_FIELDS})
        self.levels[level.id] = level
        return level

    def save_pools(self, pools: Iterable[Pool]) -> None:
        for p in pools:
            row = SimpleNamespace(**dataclasses.asdict(self.levels[p.id]))
            write_pool(row, p)
            self.levels[p.id] = R.Level(**{f: getattr(row, f) for f in R.LEVEL_FIELDS})

    def update_level(self, level_id: int, **changes: Any) -> R.Level:
        level = dataclasses.replace(self.levels[level_id], **{k: v for k, v in changes.items() if v is not None})
        self.levels[level_id] = level
        return level

    def add_overflow(self, level_id: int, milli: int) -> R.Level:
        level = self.levels[level_id]
        return self.update_level(level_id, overflow_milli=level.overflow_milli + milli)

    def codes_in_zone(self, zone: str) -> list[str]:
        return [lv.code for lv in self.all() if lv.zone == zone]

    # -- the sequencer's queue
    def record_wager(self, *, defer: bool = False, **values: Any) -> None:
        if any(w["machine_id"] == values["machine_id"] and w["game_number"] == values["game_number"]
               for w in self.wagers):
            raise StoreRefused("uq_jackpot_wagers_machine_game")
        self.wagers.append({"id": len(self.wagers) + 1, "fold_id": None, **values})

    def _pending(self) -> list[dict[str, Any]]:
        return [w for w in self.wagers if w["fold_id"] is None]

    def has_pending(self) -> bool:
        return bool(self._pending())

    def pending_wagers(self, limit: int) -> list[tuple]:
        """As the store's rows: tuples in its column order that also have the columns as attributes."""
        return [_WagerRow(**{f: w.get(f) for f in _WagerRow._fields}) for w in self._pending()[:limit]]

    def pending_count(self) -> int:
        return len(self._pending())

    def oldest_pending_at(self) -> datetime | None:
        return min((w["created_at"] for w in self._pending()), default=None)

    def add_fold(self, **values: Any) -> int:
        self.folds.append({"id": len(self.folds) + 1, "entry_id": None, **values})
        return len(self.folds)

    def set_fold_entry(self, fold_id: int, entry_id: int | None) -> None:
        self.folds[fold_id - 1]["entry_id"] = entry_id

    def mark_folded(self, ids: list[int], fold_id: int) -> int:
        n = 0
        for w in self.wagers:
            if w["id"] in ids and w["fold_id"] is None:
                w["fold_id"] = fold_id
                n += 1
        return n

    # -- hits
    def add_hit(self, **values: Any) -> R.Hit:
        if any(h.level_id == values["level_id"] and h.cycle == values["cycle"] for h in self.hits.values()):
            raise StoreRefused("uq_jackpot_hits_level_cycle")
        hit = R.Hit(id=len(self.hits) + 1, **{**_HIT_DEFAULTS, **values})
        self.hits[hit.id] = hit
        return hit

    def hit(self, hit_id: int, *, for_update: bool = False) -> R.Hit | None:
        return self.hits.get(hit_id)

    def update_hit(self, hit_id: int, **changes: Any) -> R.Hit:
        unknown = set(changes) - set(R.HIT_FIELDS) | ({"id"} & set(changes))
        if unknown:
            raise ValueError(f"not a hit field: {', '.join(sorted(unknown))}")
        hit = dataclasses.replace(self.hits[hit_id], **changes)
        self.hits[hit_id] = hit
        return hit

    def recent_hits(self, level_id: int | None = None, limit: int = 25) -> list[R.Hit]:
        hits = [h for h in self.hits.values() if level_id is None or h.level_id == level_id]
        return sorted(hits, key=lambda h: -h.id)[:limit]

    def hits_with_status(self, statuses: tuple[str, ...], *, before: datetime | None = None,
                         machine_id: int | None = None, limit: int = 500) -> list[R.Hit]:
        return [h for _, h in sorted(self.hits.items()) if h.status in statuses
                and (before is None or h.created_at <= before)
                and (machine_id is None or h.machine_id == machine_id)][:limit]

    def locks_waiting_on(self, machine_id: int) -> list[R.Hit]:
        return self.hits_with_status(R.LOCKS, machine_id=machine_id)

    def open_claims(self, since: datetime) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for _, h in sorted(self.hits.items()):
            if h.status in R.OPEN_CLAIM and h.created_at >= since:
                out.setdefault(h.level_id, []).append(h.amount_won)
        return out

    def unpaid_by_level(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for h in self.hits.values():
            if h.status in R.UNPAID:
                out[h.level_id] = out.get(h.level_id, 0) + h.amount_won
        return out

    def jackpot_out_by_machine(self, since: datetime) -> dict[int, int]:
        out: dict[int, int] = {}
        for h in self.hits.values():
            if h.created_at >= since:
                out[h.machine_id] = out.get(h.machine_id, 0) + h.amount_won
        return out

    # -- events and zone moves
    def add_event(self, **values: Any) -> None:
        row = {"hit_id": None, "level_code": None, "machine": None, "actor": "system", "reason": "", "detail": {},
               **values}
        self.event_log.append(R.JackpotEvent(id=len(self.event_log) + 1, **row))

    def events(self, limit: int = 100, level_code: str | None = None) -> list[R.JackpotEvent]:
        return [e for e in reversed(self.event_log) if not level_code or e.level_code == level_code][:limit]

    def zone_moves(self) -> dict[int, list[tuple[datetime, str]]]:
        out: dict[int, list[tuple[datetime, str]]] = {}
        for machine_id, zone, since, _ in self.moves:
            out.setdefault(machine_id, []).append((since, zone))
        return out

    def add_zone_move(self, *, machine_id: int, zone: str, since: datetime, by: str) -> None:
        self.moves.append((machine_id, zone, since, by))


class FakeFloor:
    """The floor's side of the ports: machines ({id: {asset, zone, bank, status, lock_reason, jackpot_out}}),
    zones, the game recall ({(machine id, game number): [award]}) and who is carded in ({machine id: player})."""

    def __init__(self) -> None:
        self.machines: dict[int, dict[str, Any]] = {}
        self.zones: set[str] = set()
        self.recall: dict[tuple[int, int], list[dict[str, Any]]] = {}
        self.carded: dict[int, int] = {}
        self.key_shared: list[list[int]] = []

    def add_machine(self, machine_id: int, asset: str, zone: str, bank: str = "", *, bonus_on_machine: bool = False,
                    denomination: int = 0) -> R.MachineRef:
        """``bonus_on_machine``: a SAS machine (pays mystery awards itself, in credits of ``denomination``)."""
        self.zones.add(zone)
        self.machines[machine_id] = {"asset": asset, "zone": zone, "bank": bank, "status": "active",
                                     "lock_reason": "", "jackpot_out": 0, "bonus_on_machine": bonus_on_machine,
                                     "denomination": denomination}
        return R.MachineRef(machine_id, asset, zone, bank)

    def state(self, machine_id: int) -> R.MachineState:
        m = self.machines.get(machine_id)
        if m is None:
            raise NotFound(f"machine id {machine_id} not found")
        return R.MachineState(machine_id, m["asset"], m["zone"], m["bank"], m["status"], m["lock_reason"],
                              m.get("bonus_on_machine", False), m.get("denomination", 0))


class FakeMachines:
    """:class:`jackpot_controller.services.ports.MachinePort` over ``uow.floor`` and ``uow.ledger``."""

    def lock_for_award(self, uow, machine_id: int) -> R.MachineState:
        return uow.floor.state(machine_id)

    def current(self, uow, machine_id: int) -> R.MachineState:
        return uow.floor.state(machine_id)

    def credit_bonus(self, uow, machine: R.MachineState, amount_won: int, *, source_account: str, kind: str,
                     description: str, memo: str, refs: Mapping[str, Any]) -> int:
        entry = L.EntryBuilder(kind, description).add(debit=source_account,
                                                       credit=accounts.machine_credits(machine.asset),
                                                       amount=amount_won, memo=memo)
        return uow.ledger.post(entry.build(dict(refs)))

    def add_jackpot_meter(self, uow, machine_id: int, amount_won: int) -> None:
        uow.floor.machines[machine_id]["jackpot_out"] += amount_won

    def set_lock(self, uow, machine_id: int, status: str, reason: str | None) -> None:
        m = uow.floor.machines[machine_id]
        m["status"] = status
        if reason is not None:
            m["lock_reason"] = reason

    def record_award_on_round(self, uow, machine_id: int, game_number: int, award: Mapping[str, Any]) -> None:
        lines = uow.floor.recall.get((machine_id, game_number))
        if lines is not None:
            uow.floor.recall[(machine_id, game_number)] = [a for a in lines if a["hit"] != award["hit"]] + [dict(award)]

    def key_share(self, uow, machine_ids: Sequence[int]) -> None:
        uow.floor.key_shared.append(list(machine_ids))

    def lock_by_asset(self, uow, asset: str) -> R.MachineState:
        mid = next((i for i, m in uow.floor.machines.items() if m["asset"] == asset), None)
        if mid is None:
            raise NotFound(f"machine {asset!r} is not on the floor", field="asset")
        return uow.floor.state(mid)

    def move_to_zone(self, uow, machine_id: int, zone: str) -> None:
        uow.floor.machines[machine_id]["zone"] = zone

    def zone_exists(self, uow, zone: str) -> bool:
        return zone in uow.floor.zones

    def bank_exists(self, uow, bank: str) -> bool:
        return any(m["bank"] == bank for m in uow.floor.machines.values())

    def asset_exists(self, uow, asset: str) -> bool:
        return any(m["asset"] == asset for m in uow.floor.machines.values())

    def assets(self, uow, machine_ids: Iterable[int]) -> dict[int, str]:
        return {i: uow.floor.state(i).asset for i in machine_ids}

    def machine_id(self, uow, asset: str) -> int:
        for i, m in uow.floor.machines.items():
            if m["asset"] == asset:
                return i
        raise NotFound(f"machine {asset} not found", field="asset")


class FakeCardedPlayers:
    def player_on(self, uow, machine_id: int) -> int | None:
        return uow.floor.carded.get(machine_id)


class FakeWallet:
    """:class:`jackpot_controller.services.ports.TableWallet` over the fake ledger (the player's cashable
    account must exist, as the wallet's must)."""

    def pay_table_award(self, uow, player_id: int, from_account: str, amount_won: int, *,
                        refs: Mapping[str, Any]) -> int:
        entry = L.EntryBuilder("table.credit", f"table award to player {player_id}").add(
            debit=from_account, credit=accounts.player_cashable(player_id), amount=amount_won)
        return uow.ledger.post(entry.build(dict(refs)))


def jackpot_context(**kwargs: Any):
    """A fake context with ``levels`` and ``floor`` registered (``ctx.uow.repos`` to arrange and inspect)."""
    ctx = fake_context(levels=FakeLevels(), floor=FakeFloor(), **kwargs)
    ctx.uow.repos["levels"].now = ctx.clock.now()
    return ctx


def jackpot_services(ctx, settings: JackpotSettings) -> JackpotServices:
    """The jackpot services as ``slotsys.app.wiring.jackpots.build_jackpot_services`` builds them, on the fakes
    (no lease: the ``process`` mode's beat fold always folds; ``sqlite``: ``auto`` folds in the spin)."""
    machines = FakeMachines()
    signage = Signage(ctx, settings, ctx.publish, machines)
    sequencer = Sequencer(ctx, settings, machines=machines, players=FakeCardedPlayers(), signage=signage,
                          lease=None, dialect="sqlite")
    awards = AwardService(ctx, settings, machines=machines, signage=signage)
    return JackpotServices(
        settings=settings, signage=signage, sequencer=sequencer, awards=awards,
        wagers=WagerRecorder(ctx, sequencer=sequencer, awards=awards, machines=machines),
        admin=LevelAdmin(ctx, settings, machines=machines), reads=JackpotReads(ctx, machines=machines),
        tables=TableProgressives(ctx, wallet=FakeWallet(), signage=signage),
        sweeper=Sweeper(ctx, sequencer=sequencer, awards=awards, signage=signage),
        bonuses=MachineBonuses(ctx, machines=machines),
    )
