"""The emulator's machine-reported machines: each decides its own outcomes with a game from the catalogue (the
domain evaluator, with the machine's own seeded RNG), keeps its own meters and reports to the host as a SAS
machine would: most games with their stops and meters (``POST /machines/<asset>/games``), some with the bet and
win only, some as meters at game end (``POST /machines/<asset>/meters``). docs/machine-reported-games.md.
"""

from __future__ import annotations

import random

from slotsys.floor.domain.evaluator import SeededRng, spin as play
from slotsys.floor.games import load_game

STOPS_SHARE, BET_ONLY_SHARE = 0.7, 0.1  # the rest: meters-at-game-end reports


class ReportingMachine:
    """One machine in machine mode. ``info`` is its ``GET /machines/<asset>/meters`` answer (game, variation,
    denomination and the system's meters, the starting point of the machine's own)."""

    def __init__(self, asset: str, info: dict, seed: int) -> None:
        self.asset = asset
        self.game = load_game(info["game"])
        self.variation = info["variation"]
        self.denom = info["denomination"]
        self.rng = SeededRng(seed)
        self.r = random.Random(seed)
        m = info["meters"]
        self.meters = {"coin_in": m["coin_in"], "coin_out": m["coin_out"], "games_played": m["games_played"]}
        self.game_number = m["game_number"]

    def next_report(self, opt: dict) -> tuple[str, dict, dict] | None:
        """Play one game at the bet option ``opt`` (a ``bet_options`` entry); returns (path, body, the meters
        after it) to report, or None when the game tilted above the maximum award (nothing is reported)."""
        option = self.game.resolve_bet(lines=opt.get("lines"), reels=opt.get("reels"), multiplier=opt["multiplier"])
        outcome = play(self.game, option, self.rng, self.variation)
        if outcome.exceeds_max_award:
            return None
        after = {"coin_in": self.meters["coin_in"] + option.credits * self.denom,
                 "coin_out": self.meters["coin_out"] + outcome.total_win_credits * self.denom,
                 "games_played": self.meters["games_played"] + 1}
        kind = self.r.random()
        if kind >= STOPS_SHARE + BET_ONLY_SHARE:
            return f"/api/v1/machines/{self.asset}/meters", {"meters": after}, after
        body = {"game_number": self.game_number + 1, "denomination": self.denom, "variation": self.variation,
                "bet_won": option.credits * self.denom, "win_credits": outcome.total_win_credits, "meters": after}
        if kind < STOPS_SHARE:
            body.update({k: v for k, v in (("lines", option.lines), ("reels", option.reels)) if v is not None},
                        multiplier=option.multiplier, stops=list(outcome.stops),
                        free_stops=[list(f.stops) for f in outcome.free_games] or None)
        return f"/api/v1/machines/{self.asset}/games", body, after

    def accepted(self, after: dict) -> None:
        """The host accepted the report: the machine's meters and game number move on."""
        self.meters = after
        self.game_number += 1


def set_modes(modes: dict[str, str]) -> None:
    """Enrol the emulated machines in their outcome source on the floor's own database (``DATABASE_URL``; the
    emulator runs beside the floor, as in CI). Recorded in the audit log as the system's change."""
    from slotsys.kernel.adapters.db import make_engine
    from slotsys.app.bootstrap import make_uow
    from slotsys.floor.services.reported_games import set_outcome_sources
    from slotsys.kernel.settings import get_settings

    engine = make_engine(get_settings().database_url)
    try:
        set_outcome_sources(make_uow(engine), modes, reason="floor emulator")
    finally:
        engine.dispose()


__all__ = ["ReportingMachine", "set_modes"]
