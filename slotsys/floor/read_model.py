"""Read-only views for the operator console: the floor by zone and bank with each
machine's state and today's figures, and one machine's detail (meters + its last 10 games).

Amounts are integer won. "Today" is the current gaming day (:class:`slotsys.kernel.gaming_day.GamingDay`:
``SLOTSYS_GAMING_DAY_START_HOUR`` in ``SLOTSYS_GAMING_DAY_TZ``, 06:00 Asia/Seoul by default) from its start to
now, the day every report and the day close use. A machine's **state** is derived, first match wins:

==========  =====================================================================
state       rule
==========  =====================================================================
handpay     the machine row is locked for a jackpot handpay (``status = handpay``)
locked      locked by the award guard, a verification or an operator (``locked``,
            ``verification``, ``disabled``: docs/floor-administration.md)
offline     any other non-``active`` status, or the machine's link is offline (not heard for
            ``SLOTSYS_MACHINE_OFFLINE_AFTER_S``: ``slotsys.floor.services.events``)
carded      a player's card is in (an open player session)
in play     credits on the meter, or a game in the last ``IN_PLAY_SECONDS``
idle        otherwise
==========  =====================================================================

Today's figures come from the game rounds (coin-in = bets, coin-out = game wins) and the
jackpot hits decided today (jackpot out); ``hold = coin_in − coin_out − jackpot_out``.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import func, select


from slotsys.floor.adapters.foreign import jackpot_hits, player_sessions
from slotsys.floor.adapters.tables import GameRound
from slotsys.floor.domain.machine import Machine
from slotsys.floor.services.play import FloorService
from slotsys.kernel import accounts
from slotsys.kernel.adapters.db import Account
from slotsys.kernel.context import ServiceContext
from slotsys.kernel.gaming_day import GamingDay

IN_PLAY_SECONDS = 120
STATES = ("idle", "in_play", "carded", "handpay", "locked", "offline")


def machine_state(status: str, credits: int, carded: bool, last_game_at: datetime | None, now: datetime,
                  online: bool = True) -> str:
    """One of :data:`STATES` (rules in the module docstring); ``online``: the machine's link is not offline."""
    if status == "handpay":
        return "handpay"
    if status in ("locked", "verification", "disabled"):  # disabled: by an operator, with a reason
        return "locked"
    if status != "active" or not online:
        return "offline"
    if carded:
        return "carded"
    if credits > 0 or (last_game_at is not None and (now - last_game_at).total_seconds() < IN_PLAY_SECONDS):
        return "in_play"
    return "idle"


class FloorViewService:
    """The console's reads. ``floor``: the machine views; ``gaming_day``: the floor's gaming day ("today")."""

    def __init__(self, ctx: ServiceContext, *, floor: FloorService, gaming_day: GamingDay) -> None:
        self.ctx = ctx
        self.floor = floor
        self.gaming_day = gaming_day

    def overview(self) -> dict:
        """The floor for the operator console.

        ``{"generated_at", "day" (the gaming day, YYYY-MM-DD), "day_start" (its start, UTC), "states": [...],
        "zones": [{"code", "name", "banks": [{"bank", "machines": [{"asset", "zone", "bank", "game",
        "game_name", "denomination", "status", "lock_reason", "state", "credits", "carded",
        "last_game_at", "today": {"coin_in", "coin_out", "jackpot_out", "hold", "games"}}]}]}],
        "totals": {"machines", "by_state": {state: n}, "credits", "coin_in", "coin_out", "jackpot_out", "hold",
        "games"}}`` (won).
        """
        now = self.ctx.clock.now()
        start = self.gaming_day.bounds(self.gaming_day.day_of(now))[0]
        with self.ctx.uow(readonly=True) as uow:
            s = uow.session
            machines = uow.machines.all()
            zones = [(z.code, z.name) for z in uow.machines.zones()]
            rounds = {mid: (cin, cout, n, last) for mid, cin, cout, n, last in s.execute(
                select(GameRound.machine_id, func.sum(GameRound.bet_won), func.sum(GameRound.win_won),
                       func.count(GameRound.id), func.max(GameRound.created_at))
                .where(GameRound.created_at >= start).group_by(GameRound.machine_id))}
            jh = jackpot_hits.c
            jackpots = dict(s.execute(
                select(jh.machine_id, func.sum(jh.amount_won)).where(jh.created_at >= start).group_by(jh.machine_id)).all())
            ps = player_sessions.c
            carded = set(s.scalars(select(ps.machine_id).where(ps.status == "open")))
            offline = {mid for mid, link in uow.floor_events.links().items() if not link.online}
            codes = {accounts.machine_credits(m.asset_number): m.id for m in machines}  # every credit meter, one query
            credits = {m.id: 0 for m in machines}
            for code, balance, sign in s.execute(select(Account.code, Account.balance, Account.normal_sign)
                                                 .where(Account.code.in_(list(codes)))):
                credits[codes[code]] = balance * sign
            totals = {"machines": len(machines), "by_state": {k: 0 for k in STATES}, "credits": 0, "coin_in": 0,
                      "coin_out": 0, "jackpot_out": 0, "hold": 0, "games": 0}
            by_zone: dict[str, dict[str, list]] = {code: {} for code, _ in zones}
            for m in machines:
                cin, cout, n, last = rounds.get(m.id, (0, 0, 0, None))
                if last is not None and last.tzinfo is None:
                    last = last.replace(tzinfo=timezone.utc)
                jp = int(jackpots.get(m.id) or 0)
                today = {"coin_in": int(cin or 0), "coin_out": int(cout or 0), "jackpot_out": jp,
                         "hold": int(cin or 0) - int(cout or 0) - jp, "games": int(n or 0)}
                state = machine_state(m.status, credits[m.id], m.id in carded, last, now, m.id not in offline)
                view = {"asset": m.asset_number, "zone": m.zone, "bank": m.bank, "game": m.game_id,
                        "game_name": self.floor.games.load(m.game_id).name, "denomination": m.denomination, "status": m.status,
                        "lock_reason": m.lock_reason or None, "state": state, "credits": credits[m.id],
                        "carded": m.id in carded, "last_game_at": last.isoformat() if last else None, "today": today}
                by_zone.setdefault(m.zone, {}).setdefault(m.bank or "-", []).append(view)
                totals["by_state"][state] += 1
                totals["credits"] += credits[m.id]
                for k in ("coin_in", "coin_out", "jackpot_out", "hold", "games"):
                    totals[k] += today[k]
        names = dict(zones)
        return {
            "generated_at": now.isoformat(), "day": self.gaming_day.day_of(now).isoformat(),
            "day_start": start.isoformat(), "states": list(STATES),
            "zones": [{"code": code, "name": names.get(code, code),
                       "banks": [{"bank": b, "machines": ms} for b, ms in sorted(banks.items())]}
                      for code, banks in by_zone.items()],
            "totals": totals,
        }

    def machine(self, asset: str) -> dict:
        """One machine: its meters view (``FloorService.machine_view``) plus ``state``,
        ``lock_reason``, ``carded``, ``rows`` / ``reels`` of its window, its symbols
        (``{id: {"name", "kind"}}``) and ``games``: the last 10 games, newest first, each
        ``{"game_number", "at", "bet", "bet_won", "win_won", "window" ([row][reel] symbol ids), "stops",
        "wins", "jackpots", "credits_before", "credits_after", "free_games"}``. 404 unknown asset."""
        now = self.ctx.clock.now()
        with self.ctx.uow(readonly=True) as uow:
            m: Machine = uow.machines.get(asset)
            credits = uow.ledger.balance(accounts.machine_credits(asset))
            view = self.floor.machine_view(m, credits)
            rounds = uow.rounds.recent(m.id, 10)
            ps = player_sessions.c
            carded = uow.session.scalar(select(func.count(ps.id)).where(ps.machine_id == m.id, ps.status == "open")) > 0
            last = rounds[0].created_at if rounds else None
            game = self.floor.games.load(m.game_id)
            view.update(
                state=machine_state(m.status, credits, carded, last, now, _online(uow, m.id)),
                lock_reason=m.lock_reason or None,
                carded=carded, rows=game.rows, reels=game.reel_count,
                symbols={s.id: {"kind": s.kind} for s in game.symbols},
                games=[{"game_number": r.game_number, "at": r.created_at.isoformat(), "bet": r.bet,
                        "bet_won": r.bet_won, "win_won": r.win_won, "window": r.outcome.get("window"),
                        "stops": r.outcome.get("stops"), "wins": r.outcome.get("wins"), "jackpots": r.jackpots,
                        "free_games": len(r.outcome.get("free_games") or []),
                        "credits_before": r.credits_before, "credits_after": r.credits_after} for r in rounds],
            )
            return view


def _online(uow, machine_id: int) -> bool:
    link = uow.floor_events.link(machine_id)
    return link is None or link.online
