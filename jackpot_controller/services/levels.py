"""Levels as rows ↔ the pure domain: parameters, pools, views, creation with the opening seed."""

from __future__ import annotations

from jackpot_controller.adapters.tables import JackpotLevel
from slotsys.kernel import accounts
from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.pool import Pool, displayed_won, open_cycle
from slotsys.kernel.adapters.db import utcnow
from slotsys.kernel import ledger as L
from slotsys.kernel.money import milli_to_won_floor
from slotsys.kernel.ports import Rng


def params_of(level: JackpotLevel) -> LevelParams:
    """The parameters of the level's current cycle."""
    return LevelParams(
        kind=level.kind, reset=level.reset_won, ceiling=level.ceiling_won, rate_ppm=level.rate_ppm,
        start=level.start_won or None, reserve_rate_ppm=level.reserve_rate_ppm, min_bet=level.min_bet_won,
        scope=level.scope, machine=level.scope_machine, bank=level.scope_bank, zone=level.zone,
        overflow=level.overflow_rule, overflow_to=level.overflow_to, combination=level.combination,
        max_award=level.max_award_won, second_hit_rule=level.second_hit_rule,
    )


def pending_of(level: JackpotLevel) -> LevelParams | None:
    return LevelParams.from_dict(level.pending) if level.pending else None


def write_params(level: JackpotLevel, p: LevelParams) -> None:
    level.kind = p.kind
    level.reset_won, level.ceiling_won, level.rate_ppm = p.reset, p.ceiling, p.rate_ppm
    level.start_won = p.start_value
    level.reserve_rate_ppm, level.min_bet_won = p.reserve_rate_ppm, p.min_bet
    level.scope, level.scope_machine, level.scope_bank, level.zone = p.scope, p.machine, p.bank, p.zone
    level.overflow_rule, level.overflow_to = p.overflow, p.overflow_to
    level.combination, level.max_award_won, level.second_hit_rule = p.combination, p.max_award, p.second_hit_rule


def pool_of(level: JackpotLevel, open_claims: list[int] | None = None) -> Pool:
    return Pool(
        id=level.id, code=level.code, params=params_of(level), pending=pending_of(level), paused=level.paused,
        value_milli=level.value_milli, trigger_milli=level.trigger_milli, cycle=level.cycle,
        reserve_milli=level.reserve_milli, overflow_milli=level.overflow_milli, coin_in=level.qualifying_coin_in,
        contributed_milli=level.contributed_milli, hits=level.hits, total_won=level.total_won,
        seeded_won=level.seeded_won, cycle_started=level.cycle_started_at, open_claims=list(open_claims or []),
    )


def write_pool(level: JackpotLevel, p: Pool) -> None:
    """Store a pool's meters (and, after a reset, its new parameters) on the row."""
    if (level.cycle, level.value_milli, level.reserve_milli, level.overflow_milli, level.qualifying_coin_in) == (
            p.cycle, p.value_milli, p.reserve_milli, p.overflow_milli, p.coin_in):
        return  # nothing happened to this level
    if level.cycle != p.cycle:
        write_params(level, p.params)
        level.pending = None
        level.pending_at = None
        level.cycle_started_at = p.cycle_started
        level.cycle = p.cycle
    level.value_milli, level.trigger_milli = p.value_milli, p.trigger_milli
    level.reserve_milli, level.overflow_milli = p.reserve_milli, p.overflow_milli
    level.qualifying_coin_in, level.contributed_milli = p.coin_in, p.contributed_milli
    level.hits, level.total_won, level.seeded_won = p.hits, p.total_won, p.seeded_won
    level.updated_at = utcnow()


def ensure_accounts(uow, code: str) -> None:
    for acc, typ, non_negative in accounts.jackpot_level_accounts(code):
        uow.ledger.ensure_account(acc, typ, non_negative=non_negative)


def create_level(uow, *, code: str, name: str, params: LevelParams, rng: Rng) -> JackpotLevel:
    """Create a level at its start value (a mystery level with its first secret trigger); the
    house funds the start on the ledger (Dr ``:seed`` / Cr ``:liability``). ``params`` must be
    validated by the caller (zone, bank, machine and ``overflow_to`` exist)."""
    params.validate()
    value, trigger = open_cycle(params, rng)
    now = utcnow()
    level = JackpotLevel(code=code, name=name, value_milli=value, trigger_milli=trigger, cycle=1, paused=False,
                         qualifying_coin_in=0, contributed_milli=0, seeded_won=params.start_value, hits=0,
                         total_won=0, reserve_milli=0, overflow_milli=0, cycle_started_at=now, updated_at=now)
    write_params(level, params)
    uow.levels.add(level)
    ensure_accounts(uow, code)
    entry = L.EntryBuilder("jackpot.seed", f"{code} opening seed").add(
        debit=accounts.jackpot_seed(code), credit=accounts.jackpot_liability(code), amount=milli_to_won_floor(value), memo="start")
    uow.ledger.post(entry.build({"level": code}))
    return level


def target_of(p: LevelParams) -> str | None:
    return {"machine": p.machine, "bank": p.bank, "zone": p.zone}.get(p.scope)


def level_view(level: JackpotLevel, *, staff: bool = True) -> dict:
    """A level as the API shows it (won unless ``_milli``; the trigger is secret and never
    included). Machines and signage see the public part; staff also see the hidden reserve,
    overflow, the parameters pending until the next hit and the cumulative meters."""
    p = params_of(level)
    view = {
        "code": level.code, "name": level.name, "kind": level.kind, "scope": level.scope, "target": target_of(p),
        "zone": level.zone, "reset": level.reset_won, "ceiling": level.ceiling_won, "rate_ppm": level.rate_ppm,
        "min_bet": level.min_bet_won,
        "value": displayed_won(level.value_milli, level.kind, level.trigger_milli),  # never above the next hit's pay
        "value_milli": level.value_milli, "cycle": level.cycle, "paused": level.paused,
        "status": "paused" if level.paused else "active", "combination": level.combination,
        "hits": level.hits, "total_won": level.total_won, "qualifying_coin_in": level.qualifying_coin_in,
    }
    if staff:
        view.update({
            "start": level.start_won, "reserve_rate_ppm": level.reserve_rate_ppm,
            "reserve": milli_to_won_floor(level.reserve_milli), "reserve_milli": level.reserve_milli,
            "overflow": milli_to_won_floor(level.overflow_milli), "overflow_milli": level.overflow_milli,
            "overflow_rule": level.overflow_rule, "overflow_to": level.overflow_to,
            "max_award": level.max_award_won, "second_hit_rule": level.second_hit_rule,
            "contributed_milli": level.contributed_milli, "seeded": level.seeded_won,
            "cycle_started_at": level.cycle_started_at.isoformat() if level.cycle_started_at else None,
            "pending": level.pending, "pending_since": level.pending_at.isoformat() if level.pending_at else None,
        })
    return view
