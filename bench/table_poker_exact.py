"""The exact house-banked poker figures the engines reproduce (three card poker, Caribbean stud's five-card
census, hold'em bonus side bet), through the engines' own rules.

    .venv/bin/python bench/table_poker_exact.py

(~15 s.) The seven-card census is ``bench/table_poker_seven_card.py``; the hold'em bonus main-game edge is
``bench/table_poker_holdem_edge.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_games.domain import caribbean as C  # noqa: E402
from table_games.domain import holdem_bonus as H  # noqa: E402
from table_games.domain import three_card as T  # noqa: E402


def main() -> None:
    t = time.perf_counter()
    print("Three card poker (22,100 hands):", T.category_counts())
    pp = T.pair_plus_edge()
    print(f"  pair plus 40/30/6/4/1 edge {float(pp):.6%} ({pp}); 40/30/6/3/1 "
          f"{float(T.pair_plus_edge(T.PAIR_PLUS_40_30_6_3_1)):.6%}")
    r = T.ante_play_edge()
    print(f"  ante/play with Q-6-4 over {r.pairs:,} player x dealer pairs: edge {float(r.edge):.6%} of the ante, "
          f"{r.hands_played:,} hands played; dealer classes {r.counts}")
    c = C.five_card_census()
    print(f"Five-card census ({c.total:,} hands): {c.categories}")
    print(f"  Caribbean stud dealer qualifies (A-K or better): {c.dealer_qualifies:,} "
          f"(A-K high no pair {c.ace_king_high:,})")
    print(f"Hold'em bonus side bet (default paytable): edge {float(H.bonus_edge()):.6%}")
    print(f"({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
