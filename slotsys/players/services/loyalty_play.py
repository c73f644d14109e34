"""Points inside the caller's transaction: the spin hook, accrual, debits, expiry, holds.

Everything here runs inside a unit of work the caller opened (a spin, a card-in, a rating, a
redemption) and never commits. Lock order: machine row (caller) → player row → redemption rows
→ ledger accounts. This module imports no other service, so ``floor`` can import it.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

import structlog

from slotsys.players.domain.player import Player, PlayerSession
from slotsys.players.domain.loyalty import (
    MILLI_PER_POINT,
    point_earning_coin_in,
    Accrual,
    AccrualRule,
    Tier,
    accrue,
    points_expired,
    tier_for,
)

log = structlog.get_logger("slotsys.players")

def tiers(uow) -> list[Tier]:
    return [Tier(t.code, t.name, int(t.threshold_points), int(t.multiplier_permille)) for t in uow.players.tiers()]


def rules(uow) -> list[AccrualRule]:
    return [AccrualRule(r.basis, int(r.won_per_point), r.scope, r.key) for r in uow.players.rules()]


def multiplier_of(uow, player: Player) -> int:
    t = uow.players.tier(player.tier_code)
    return int(t.multiplier_permille) if t is not None else 1000


def credit_points(uow, player: Player, acc: Accrual, *, kind: str, now: datetime, session_id: int | None = None,
                  rating_id: int | None = None, memo: str = "") -> int:
    """Credit an accrual to a locked ``player``: points (journal row when non-zero), tier progress
    (base points; the tier only goes up), last activity. Returns the milli-points credited."""
    player.last_activity_at = now
    if acc.base_milli:
        player.tier_points_milli += acc.base_milli
        reached = tier_for(tiers(uow), player.tier_points_milli)
        current = uow.players.tier(player.tier_code)
        if current is None or reached.threshold_points > current.threshold_points:
            log.info("player.tier_up", player=player.id, tier=reached.code)
            player.tier_code = reached.code
    if acc.points_milli:
        player.points_milli += acc.points_milli
        uow.players.add_journal(
            player_id=player.id, kind=kind, points_milli=acc.points_milli, balance_after_milli=player.points_milli,
            session_id=session_id, rating_id=rating_id, memo=memo[:120], created_at=now)
    return acc.points_milli


def debit_points(uow, player: Player, points_milli: int, *, kind: str, now: datetime, redemption_id: int | None = None,
                 entry_id: int | None = None, memo: str = "") -> None:
    """Debit a locked ``player``'s points (the CHECK constraint and the callers keep it ≥ 0)."""
    if points_milli <= 0:
        return
    player.points_milli -= points_milli
    if kind == "redeem":
        player.last_activity_at = now
    uow.players.add_journal(
        player_id=player.id, kind=kind, points_milli=-points_milli, balance_after_milli=player.points_milli,
        redemption_id=redemption_id, entry_id=entry_id, memo=memo[:120], created_at=now)


def release_stale_holds(uow, player: Player, now: datetime) -> int:
    """Pending machine redemptions past their hold time → ``expired``; their points are released."""
    n = 0
    for r in uow.players.stale_holds(player.id, now):
        r.status = "expired"
        r.settled_at = now
        player.points_held_milli -= r.points * MILLI_PER_POINT
        n += 1
    return n


def apply_expiry(uow, player: Player, idle_days: int, now: datetime) -> int:
    """Expire every point of an idle ``player`` (locked). Returns the milli-points expired."""
    release_stale_holds(uow, player, now)
    if player.points_milli <= 0 or player.points_held_milli or not points_expired(player.last_activity_at, now, idle_days):
        return 0
    expired = player.points_milli
    debit_points(uow, player, expired, kind="expire", now=now, memo=f"no activity for {idle_days} days")
    log.info("player.points_expired", player=player.id, points_milli=expired)
    return expired


def session_meters(s: PlayerSession) -> dict:
    return {"coin_in": s.coin_in, "coin_out": s.coin_out, "jackpot_out": s.jackpot_out, "games_played": s.games_played,
            "games_won": s.games_won}


def on_game(uow, machine, option, *, coin_in: int, coin_out: int, jackpot_out: int, now: datetime, edge: Fraction,
            carded: bool = True, points_coin_in: int | None = None, games: int = 1) -> dict | None:
    """The spin hook: called in the spin's transaction (machine row locked) with the same deltas
    the spin adds to the machine's meters. If a player is carded, adds them to the session's
    meters, accrues points under the session's rule at the player's tier multiplier (on
    ``points_coin_in`` won, default ``coin_in``: the spin passes its cashable stake, since
    promotional coin-in earns no points unless the program says so; the session's theoretical win
    counts the whole ``coin_in`` at the option's house ``edge``) and returns
    ``{"player", "session", "points_earned_milli", "points", "progress_milli", "tier"}``; None
    for uncarded play. ``carded=False`` (the caller read, under the machine's row lock, that no session
    is open) skips the lookup."""
    if not carded:
        return None
    s = uow.players.open_session_for_machine(machine.id)
    if s is None:
        return None
    player = uow.players.get(s.player_id, for_update=True)
    rule = AccrualRule(s.rule_basis, s.rule_won_per_point)
    acc = accrue(rule, coin_in, edge, multiplier_of(uow, player))
    if points_coin_in is not None and points_coin_in != coin_in:  # promotional coin-in earns no points
        earning = accrue(rule, points_coin_in, edge, multiplier_of(uow, player))
        acc = Accrual(acc.theo_milli, earning.base_milli, earning.points_milli)
    s.coin_in += coin_in
    s.coin_out += coin_out
    s.jackpot_out += jackpot_out
    s.games_played += games
    s.games_won += 1 if (coin_out or jackpot_out) else 0
    s.theo_milli += acc.theo_milli
    s.points_milli += acc.points_milli
    s.last_game_at = now
    credit_points(uow, player, acc, kind="play", now=now, session_id=s.id, memo=f"game on {machine.asset_number}")
    return {"player": player.id, "session": s.id, "points_earned_milli": acc.points_milli,
            "points": player.points_milli // MILLI_PER_POINT, "progress_milli": player.points_milli % MILLI_PER_POINT,
            "tier": player.tier_code}


class LoyaltyAccrual:
    """The floor's loyalty port (``slotsys.floor.services.ports.LoyaltyPort``): a carded game's session meters and
    points, in the game's own transaction. ``settings.loyalty_promo_earns_points``: whether promotional coin-in
    earns points (``SLOTSYS_LOYALTY_PROMO_EARNS_POINTS``; theoretical win counts it either way)."""

    def __init__(self, settings) -> None:
        self.settings = settings

    def on_game(self, uow, machine, option, *, coin_in: int, coin_out: int, jackpot_out: int, now: datetime,
                carded: bool, games: int, cashable_coin_in: int, promotional_coin_in: int,
                house_edge: Fraction | None) -> dict | None:
        if not carded:
            return None
        return on_game(uow, machine, option, coin_in=coin_in, coin_out=coin_out, jackpot_out=jackpot_out, now=now,
                       edge=house_edge if house_edge is not None else Fraction(0), carded=carded, games=games,
                       points_coin_in=point_earning_coin_in(cashable_coin_in, promotional_coin_in,
                                                            promo_earns=self.settings.loyalty_promo_earns_points))
