"""Blackjack house edge under basic strategy, by simulation, with a 95% confidence interval.

European no hole card, the table's default rules (S17, 3:2, split to 3 hands, double after split, late
surrender, dealer blackjack takes all bets) unless told otherwise; one box, basic strategy computed for the
rules (table_games.domain.blackjack_strategy), shoes shuffled with a seeded RNG, cut card 78 cards from the
end. The kernel is checked round-for-round against the engine in tests/unit/test_table_blackjack.py.

    .venv/bin/python bench/table_blackjack_edge.py                       # 10^7 rounds each, 6 and 8 decks
    .venv/bin/python bench/table_blackjack_edge.py --rounds 2000000 --h17 --workers 2 --chart
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_games.domain import blackjack as BJ  # noqa: E402
from table_games.domain.blackjack_sim import SimResult, simulate  # noqa: E402
from table_games.domain.blackjack_strategy import basic_strategy, chart  # noqa: E402


def _job(args: tuple[dict, int, int]) -> SimResult:
    rules_d, rounds, seed = args
    return simulate(BJ.BlackjackRules.from_dict(rules_d), rounds, seed)


def run(rules: BJ.BlackjackRules, rounds: int, workers: int, seed: int, chunk: int = 500_000) -> SimResult:
    jobs = []
    left, i = rounds, 0
    while left > 0:
        n = min(chunk, left)
        jobs.append((rules.to_dict(), n, seed * 1_000_003 + i))
        left -= n
        i += 1
    total = SimResult()
    if workers <= 1:
        for j in jobs:
            total = total.merge(_job(j))
    else:
        with ProcessPoolExecutor(workers) as ex:
            for r in ex.map(_job, jobs):
                total = total.merge(r)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10_000_000)
    ap.add_argument("--decks", type=int, nargs="+", default=[6, 8])
    ap.add_argument("--h17", action="store_true", help="also run with the dealer hitting soft 17")
    ap.add_argument("--obo", action="store_true", help="also run 'original bets only'")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--chart", action="store_true", help="print the basic strategy used")
    a = ap.parse_args()
    variants = []
    for d in a.decks:
        base = replace(BJ.S17, decks=d)
        variants.append(("S17", base))
        if a.h17:
            variants.append(("H17", replace(base, dealer_hits_soft_17=True)))
        if a.obo:
            variants.append(("S17 OBO", replace(base, dealer_blackjack_takes="original")))
    print(f"blackjack ENHC, 3:2, split to 3 hands, DAS, late surrender, one box, {a.rounds:,} rounds per line")
    print(f"{'rules':<18} {'rounds':>12} {'house edge':>11} {'95% CI':>22} {'s.e.':>9} {'secs':>7}")
    for name, rules in variants:
        if a.chart:
            print(f"\nbasic strategy, {rules.decks} decks {name}:\n{chart(basic_strategy(rules))}\n")
        t0 = time.perf_counter()
        r = run(rules, a.rounds, a.workers, a.seed + rules.decks)
        lo, hi = r.ci95()
        print(f"{rules.decks} decks {name:<10} {r.rounds:>12,} {r.edge:>10.4%} "
              f"  [{lo:.4%}, {hi:.4%}] {r.stderr:>8.4%} {time.perf_counter() - t0:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
