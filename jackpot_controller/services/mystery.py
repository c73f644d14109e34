"""Mystery levels inside the spin transaction.

The hit is decided inside the wager's own transaction: the level rows are row-locked
(id order, after the machine row), so contributions are applied in one total order and
exactly one wager crosses each trigger. See docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from jackpot_controller.adapters.tables import JackpotHit, JackpotLevel
from jackpot_controller.domain.mystery import MysteryParams, MysteryState, contribute, start
from slotsys.adapters.db import Machine, utcnow
from slotsys.domain import ledger as L
from slotsys.domain.money import milli_to_won_floor
from slotsys.domain.ports import Rng


@dataclass
class PendingAward:
    level: JackpotLevel
    amount_won: int
    cycle: int
    trigger_milli: int


def params_of(level: JackpotLevel) -> MysteryParams:
    return MysteryParams(level.reset_won, level.ceiling_won, level.rate_ppm, level.min_bet_won)


def contribute_wager(uow, machine: Machine, bet_won: int, builder: L.EntryBuilder, rng: Rng) -> list[PendingAward]:
    """Apply one wager to every eligible level; add the ledger legs to ``builder``.

    Ledger: contributions Dr ``jackpot:<L>:contributions`` / Cr ``jackpot:<L>:liability``
    for the growth of the meter's whole-won part; an award Dr liability / Cr the machine's
    credits; the new cycle's reset Dr ``jackpot:<L>:seed`` / Cr liability. Afterwards the
    liability account equals ``floor(value_milli / 1000)`` of its level.
    """
    awards: list[PendingAward] = []
    for level in uow.levels.eligible_for_update(machine.zone):
        params = params_of(level)
        before = MysteryState(level.value_milli, level.trigger_milli, level.cycle)
        res = contribute(params, before, bet_won, rng)
        if res.contribution_milli == 0 and not res.hit:
            continue
        code = level.code
        if res.hit:
            reached_milli = before.value_milli + res.contribution_milli
            contrib_won = milli_to_won_floor(reached_milli) - milli_to_won_floor(before.value_milli)
            builder.add(debit=L.jackpot_contributions(code), credit=L.jackpot_liability(code), amount=contrib_won)
            builder.add(debit=L.jackpot_liability(code), credit=L.machine_credits(machine.asset_number), amount=res.award_won, memo=f"jackpot {code}")
            liability_after_award = milli_to_won_floor(reached_milli) - res.award_won
            seed_won = milli_to_won_floor(res.state.value_milli) - liability_after_award
            builder.add(debit=L.jackpot_seed(code), credit=L.jackpot_liability(code), amount=seed_won, memo="reset")
            awards.append(PendingAward(level, res.award_won, before.cycle, before.trigger_milli))
            level.hits += 1
            level.total_won += res.award_won
        else:
            contrib_won = milli_to_won_floor(res.state.value_milli) - milli_to_won_floor(before.value_milli)
            builder.add(debit=L.jackpot_contributions(code), credit=L.jackpot_liability(code), amount=contrib_won)
        level.value_milli = res.state.value_milli
        level.trigger_milli = res.state.trigger_milli
        level.cycle = res.state.cycle
        level.qualifying_coin_in += bet_won
        level.updated_at = utcnow()
    return awards


def record_hits(uow, machine: Machine, game_number: int, entry_id: int, awards: list[PendingAward]) -> list[JackpotHit]:
    hits = []
    for a in awards:
        hits.append(
            uow.levels.add_hit(
                JackpotHit(
                    level_id=a.level.id,
                    cycle=a.cycle,
                    machine_id=machine.id,
                    zone=machine.zone,
                    game_number=game_number,
                    amount_won=a.amount_won,
                    trigger_milli=a.trigger_milli,
                    status="credited",
                    entry_id=entry_id,
                )
            )
        )
    return hits


def create_level(uow, *, code: str, name: str, zone: str | None, params: MysteryParams, rng: Rng) -> JackpotLevel:
    """Create a mystery level at its reset value, with the seed funded on the ledger."""
    params.validate()
    st = start(params, rng)
    level = uow.levels.add(
        JackpotLevel(
            code=code, name=name, kind="mystery", zone=zone, reset_won=params.reset_won, ceiling_won=params.ceiling_won,
            rate_ppm=params.rate_ppm, min_bet_won=params.min_bet_won, value_milli=st.value_milli,
            trigger_milli=st.trigger_milli, cycle=1,
        )
    )
    uow.ledger.ensure_account(L.jackpot_liability(code), L.AccountType.LIABILITY)
    uow.ledger.ensure_account(L.jackpot_contributions(code), L.AccountType.EXPENSE)
    uow.ledger.ensure_account(L.jackpot_seed(code), L.AccountType.EXPENSE)
    entry = L.EntryBuilder("jackpot.seed", f"{code} opening seed").add(
        debit=L.jackpot_seed(code), credit=L.jackpot_liability(code), amount=milli_to_won_floor(st.value_milli)
    )
    uow.ledger.post(entry.build({"level": code}))
    return level


def level_view(level: JackpotLevel) -> dict:
    """Public view of a level (the trigger is secret and never included)."""
    return {
        "code": level.code,
        "name": level.name,
        "kind": level.kind,
        "zone": level.zone,
        "reset": level.reset_won,
        "ceiling": level.ceiling_won,
        "rate_ppm": level.rate_ppm,
        "min_bet": level.min_bet_won,
        "value": milli_to_won_floor(level.value_milli),
        "value_milli": level.value_milli,
        "cycle": level.cycle,
        "paused": level.paused,
        "qualifying_coin_in": level.qualifying_coin_in,
        "hits": level.hits,
        "total_won": level.total_won,
    }
