"""House edge of Texas Hold'em Bonus (ante + flop/turn/river) under the stated strategy S1, with its
precision, and how far S1 is from optimal turn/river play (measured exactly on sampled decisions).

    .venv/bin/python bench/table_poker_holdem_edge.py [--hands 10000000] [--turn 1500] [--flop 400]
        [--workers 2] [--flush-ante]

* edge: Monte Carlo over ``--hands`` seeded hands (the kernel replays against the engine in the tests),
  95% confidence interval = ±1.96 standard errors;
* regret: for sampled played hands, E[result | cards seen] computed exactly over every unseen card and every
  dealer hand; optimal turn/river betting gains max(E,0) − bet·E per decision. The optimal-play edge is
  about S1's edge minus these regrets (preflop folds as published: unsuited 2-3 … 2-7 only).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import reduce
from operator import add
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_games.domain import holdem_bonus as H  # noqa: E402
from table_games.domain import holdem_bonus_sim as S  # noqa: E402


def _sim(args):
    n, seed, ante_from = args
    return S.simulate(n, seed, ante_from=ante_from)


def _regret(args):
    street, n, seed = args
    return S.regret_sample(street, n, seed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=10_000_000)
    ap.add_argument("--turn", type=int, default=1500)
    ap.add_argument("--flop", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--flush-ante", action="store_true", help="the ante pays only with a flush or better")
    a = ap.parse_args()
    ante_from = S.FLUSH_OR_BETTER if a.flush_ante else S.STRAIGHT_OR_BETTER
    t = time.perf_counter()
    chunks = 20
    per = a.hands // chunks
    with ProcessPoolExecutor(a.workers) as ex:
        sims = ex.map(_sim, [(per, f"thb-{i}", ante_from) for i in range(chunks)])
        turn = ex.map(_regret, [("turn", a.turn // 10, f"turn-{i}") for i in range(10)])
        flop = ex.map(_regret, [("flop", max(1, a.flop // 20), f"flop-{i}") for i in range(20)])
        sim, rt, rf = reduce(add, sims), reduce(add, turn), reduce(add, flop)
    played = 1 - 60 / 1326  # S1 folds 60 of the 1,326 two-card hands
    he, se = sim.house_edge, sim.se
    print(f"Texas Hold'em Bonus, ante pays with a {'flush' if a.flush_ante else 'straight'} or better; "
          f"strategy S1 ({time.perf_counter() - t:.0f} s)")
    print(f"  hands {sim.hands:,}: house edge {he:.4%} of the ante, s.e. {se:.4%}, "
          f"95% CI [{he - 1.96 * se:.4%}, {he + 1.96 * se:.4%}]")
    gt, gf = rt.mean * played, rf.mean * played
    print(f"  regret of S1's river bets: {gt:.4%} ± {1.96 * rt.se * played:.4%} per hand "
          f"({rt.decisions} exact turn decisions, S1 bets {rt.bets / rt.decisions:.1%})")
    print(f"  regret of S1's turn bets:  {gf:.4%} ± {1.96 * rf.se * played:.4%} per hand "
          f"({rf.decisions} exact flop decisions, S1 bets {rf.bets / rf.decisions:.1%})")
    print(f"  optimal turn/river play: about {he - gt - gf:.3%} of the ante")
    print(f"  bonus bet (exact, default paytable): house edge {float(H.bonus_edge()):.4%}")


if __name__ == "__main__":
    main()
