"""Simulated vs exact RTP at 10⁸ paid games per game (default variation, full bet, default choice):
accept |RTP_sim − RTP_exact| < 4 × SD / √n (reference: Monte Carlo agreement). Also reports the
largest win seen against the award guard. The run is split over every core (slotsys.floor.simrun; the
same seed gives the same figures on any number of workers).

    .venv/bin/python bench/game_agreement.py [--spins 100000000] [--seed 2026] [--game ID] [--variation V] [--choice C]
        [--workers N] [--scheduler tcp://HOST:8786]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slotsys.floor.domain.parsheet import par_sheet  # noqa: E402
from slotsys.floor.domain.sim import agreement  # noqa: E402
from slotsys.floor.domain.simplan import ChunkPlan, SimSpec  # noqa: E402
from slotsys.floor.games import catalogue  # noqa: E402
from slotsys.floor.simrun import run_simulation  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spins", type=int, default=100_000_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--game", default=None)
    ap.add_argument("--variation", default=None)
    ap.add_argument("--choice", type=int, default=None, help="free-games choice (default: the game's default)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address instead of local processes")
    args = ap.parse_args()
    failed = 0
    for gid, game in catalogue().items():
        if args.game and gid != args.game:
            continue
        spec = SimSpec(game, game.full_bet(), args.variation,
                       args.choice if game.free_games and game.free_games.has_choice else None)
        sim = spec.build()
        sheet = par_sheet(game, args.variation)
        fig = sheet.full_bet
        exact = fig.by_choice[sim.choice] if fig.by_choice and sim.choice is not None else fig
        t0 = time.perf_counter()
        run = run_simulation(spec, ChunkPlan.for_spins(args.spins, args.seed), workers=args.workers,
                             scheduler=args.scheduler, sim=sim)
        res = run.result
        dt = time.perf_counter() - t0
        ok, z = agreement(res.rtp, float(exact.rtp), exact.sd, res.spins)
        failed += not ok
        print(f"{game.name} ({gid}) v{res.variation} full bet" + (f", choice {res.choice}" if res.choice is not None else "")
              + f", {res.spins:,} games in {dt:,.0f} s "
              f"({res.spins / dt:,.0f}/s, {run.executor} × {run.workers}), seed {args.seed}")
        print(f"  RTP simulated {res.rtp:.5%}  exact {float(exact.rtp):.5%}  z = {z:+.2f} SE "
              f"(SE {exact.sd / res.spins ** 0.5:.5%})  {'AGREE' if ok else 'DISAGREE'}")
        print(f"  hit frequency (any win incl. scatter pays and feature triggers) {res.hit_frequency:.5f} vs exact "
              f"{float(fig.hit_frequency):.5f}; line/way hit frequency {res.line_hit_frequency:.5f} vs exact "
              f"{float(fig.line_hit_frequency):.5f}; SD {res.sd:.3f} vs exact {exact.sd:.3f}")
        print(f"  free games: {res.triggers:,} triggers, {res.free_games / max(1, res.triggers):.3f} games each "
              f"(exact {float(sheet.free_games.games_per_trigger[sim.choice or 0]):.3f})" if sheet.free_games else "")
        for lvl, n in res.progressive.items():
            print(f"  progressive {lvl}: {n:,} hits, exact expectation {float(sheet.progressive[lvl]) * res.spins:,.1f}")
        print(f"  largest win {res.max_win:,} credits; award guard {game.max_award_credits:,} credits")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
