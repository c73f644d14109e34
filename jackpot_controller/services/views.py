"""How levels, hits and events are shown (pure functions of the records; amounts in won unless ``_milli``)."""

from __future__ import annotations

from typing import Any

from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.domain.pool import displayed_won
from jackpot_controller.domain.records import Hit, JackpotEvent, Level, params_of
from slotsys.kernel.money import milli_to_won_floor


def target_of(p: LevelParams) -> str | None:
    return {"machine": p.machine, "bank": p.bank, "zone": p.zone}.get(p.scope)


def level_view(level: Level, *, staff: bool = True) -> dict[str, Any]:
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


def award_view(hit: Hit, level: Level) -> dict[str, Any]:
    """An award as the spin's response and the game's recall list it."""
    return {"hit": hit.id, "level": level.code, "name": level.name, "amount": hit.amount_won, "status": hit.status,
            "pay_method": hit.pay_method}


def hit_row(h: Hit, level: Level, asset: str) -> dict[str, Any]:
    """A hit as the lists show it (``GET /jackpots/hits``, a level's history, the handpay list)."""
    return {
        "id": h.id, "level": level.code, "name": level.name, "cycle": h.cycle,
        "machine": asset, "zone": h.zone,
        "player": h.player_id, "game_number": h.game_number, "amount": h.amount_won, "status": h.status,
        "pay_method": h.pay_method, "announced": h.announced, "at": h.created_at.isoformat(),
        "awarded_at": h.awarded_at.isoformat() if h.awarded_at else None, "paid_by": h.paid_by,
        "note": h.note or None,
    }


def event_row(e: JackpotEvent) -> dict[str, Any]:
    return {"id": e.id, "kind": e.kind, "level": e.level_code, "hit": e.hit_id, "machine": e.machine,
            "actor": e.actor, "reason": e.reason, "detail": e.detail, "at": e.created_at.isoformat()}
