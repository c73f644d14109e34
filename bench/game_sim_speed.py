"""Simulation speed of the 243-ways game on one core, beside a plain-Python evaluator of the same
game in the same run (target ≥ 2,000,000 base-game spins per second; the ratio is reported).

Base game: draw 5 stops (PCG64) and score the paid game (ways + scatter). The vectorised path is
:class:`slotsys.floor.domain.sim.Simulator` (tables compiled from the evaluator); the plain-Python path is
the evaluator itself (``draw_stops`` + the paid-game round that ``spin`` plays). Full game: the
same, with every free-games feature played (``Simulator.run`` vs ``evaluator.spin``).

    .venv/bin/python bench/game_sim_speed.py [--spins 20000000] [--python-spins 50000]
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

import numpy as np  # noqa: E402

from slotsys.floor.domain import evaluator as ev  # noqa: E402
from slotsys.floor.domain.sim import Simulator  # noqa: E402
from slotsys.floor.games import load_game  # noqa: E402

TARGET = 2_000_000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="tiger_reels_243")
    ap.add_argument("--spins", type=int, default=20_000_000)
    ap.add_argument("--python-spins", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=500_000)
    args = ap.parse_args()
    game = load_game(args.game)
    bet = game.full_bet()
    var = game.variation()
    sim = Simulator(game, bet)

    # ---- base game, vectorised
    gen = np.random.Generator(np.random.PCG64(1))
    t0 = time.perf_counter()
    done = total = 0
    while done < args.spins:
        n = min(args.batch, args.spins - done)
        stops = np.empty((n, game.reel_count), dtype=np.int64)
        for i, k in enumerate(sim.base.n):
            stops[:, i] = gen.integers(0, k, size=n)
        win, _ = sim.base_pays(stops)
        total += int(win.sum())
        done += n
    vec_s = time.perf_counter() - t0
    vec_rate = done / vec_s

    # ---- base game, plain Python (the evaluator)
    rng = ev.SeededRng(1)
    t0 = time.perf_counter()
    ptotal = 0
    for _ in range(args.python_spins):
        stops = ev.draw_stops(var.reels, rng)
        _, wins, _ = ev._round(game, bet, var.reels, stops, (), 1)
        ptotal += sum(w.pay_credits for w in wins)
    py_s = time.perf_counter() - t0
    py_rate = args.python_spins / py_s

    # ---- full game (free games included)
    full_n = max(2_000_000, args.spins // 5)
    t0 = time.perf_counter()
    res = sim.run(full_n, seed=2, batch=args.batch)
    full_rate = full_n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    n_py = max(5_000, args.python_spins // 5)
    for _ in range(n_py):
        ev.spin(game, bet, rng)
    full_py_rate = n_py / (time.perf_counter() - t0)

    print(f"{game.name} ({game.id}) variation {var.key}, bet {bet.credits} credits, one core")
    print(f"  base game, vectorised (NumPy): {vec_rate:>14,.0f} spins/s  ({done:,} spins, RTP of base {total / (done * bet.credits):.4%})")
    print(f"  base game, plain Python:       {py_rate:>14,.0f} spins/s  ({args.python_spins:,} spins)")
    print(f"  ratio: {vec_rate / py_rate:,.0f}×   target ≥ {TARGET:,}/s: {'OK' if vec_rate >= TARGET else 'BELOW TARGET'}")
    print(f"  full game with free games, vectorised: {full_rate:,.0f} spins/s; plain Python spin(): {full_py_rate:,.0f}/s "
          f"(ratio {full_rate / full_py_rate:,.0f}×; RTP {res.rtp:.4%})")
    return 0 if vec_rate >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
