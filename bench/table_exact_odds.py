"""Exact figures of the table games, computed by the engines' own rules and settlement.

Baccarat: every distinct 8-deck deal (416·415·…·411 six-card sequences) through the tableau, and each bet's
edge through ``baccarat.settle``; roulette, sic bo and big wheel: every bet over every outcome.

    .venv/bin/python bench/table_exact_odds.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_games.domain import baccarat as B  # noqa: E402
from table_games.domain import bigwheel as W  # noqa: E402
from table_games.domain import blackjack as BJ  # noqa: E402
from table_games.domain import roulette as R  # noqa: E402
from table_games.domain import sicbo as S  # noqa: E402


def main() -> None:
    t0 = time.perf_counter()
    e = B.enumerate_outcomes(8)
    print("baccarat, 8 decks: every six-card deal through the tableau")
    print(f"  total   {e.total:>27,}")
    for w in ("banker", "player", "tie"):
        print(f"  {w:<7} {e.count(w):>27,}  p = {e.count(w) / e.total:.15f}")
    print(f"  banker wins with 6 {e.banker_wins_with_six:>16,}")
    com, nocom, nine = B.house_edges(B.COMMISSION), B.house_edges(B.NO_COMMISSION), B.house_edges(B.BaccaratRules(tie_pays=9))
    print(f"  edge banker 5% commission   {float(com['banker']):.15f}")
    print(f"  edge banker no-commission   {float(nocom['banker']):.15f}  (banker win on 6 pays 1:2)")
    print(f"  edge player                 {float(com['player']):.15f}")
    print(f"  edge tie 8:1 / 9:1          {float(com['tie']):.15f} / {float(nine['tie']):.15f}")
    print(f"  edge pair 11:1              {float(com['player_pair']):.15f}  (= {com['player_pair']})")
    print(f"  ({time.perf_counter() - t0:.1f} s)")
    edges = {R.house_edge(s) for s in R.all_spots()}
    print(f"\nroulette, single zero: {len(R.all_spots())} distinct bets, edges {sorted(map(str, edges))} "
          f"= {float(min(edges)):.15f}")
    print("\nsic bo (Macau / Atlantic City paytables), edge per bet:")
    for spot in ("small", "odd", "any_triple", "triple:1", "double:1", "combo:1-2", "single:1",
                 *[f"total:{t}" for t in range(4, 11)]):
        print(f"  {spot:<11} {float(S.house_edge(spot)):.6%}   {float(S.house_edge(spot, S.ATLANTIC_CITY)):.6%}")
    print("\nbig wheel, 54 stops:")
    for seg in W.STANDARD_54.segments:
        print(f"  {seg.symbol:<6} {seg.count:>2} × {seg.pays:>2}:1  edge {float(W.house_edge(seg.symbol)):.6%}")
    print("\nblackjack pair side bet 11:1:")
    for d in (6, 8):
        hits, n = BJ.pair_probability(d)
        print(f"  {d} decks  p = {hits / n:.15f}  edge = {1 - 12 * hits / n:.15f}")


if __name__ == "__main__":
    main()
