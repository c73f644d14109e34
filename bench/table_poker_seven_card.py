"""Seven-card poker category counts over all C(52,7) = 133,784,560 hands (phevaluator, as the hold'em engine
ranks hands), checked against the reference (Alspach). Also the six-card table.

    .venv/bin/python bench/table_poker_seven_card.py [--workers 2] [--six]

About 40 s per core for the seven-card run on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_games.domain import poker_eval as E  # noqa: E402

REF7 = {"total": 133784560, "royal_flush": 4324, "straight_flush": 37260, "four_kind": 224848,
        "full_house": 3473184, "flush": 4047644, "straight": 6180020, "three_kind": 6461620,
        "two_pair": 31433400, "one_pair": 58627800, "high_card": 23294460}
REF6 = {"total": 20358520, "straight_flush": 1844, "four_kind": 14664, "full_house": 165984, "flush": 205792,
        "straight": 361620, "three_kind": 732160, "two_pair": 2532816, "one_pair": 9730740, "high_card": 6612900}


def _count(args: tuple[int, int]) -> list[int]:
    """Rank histogram of every hand whose lowest card id is ``first`` (hands of ``n`` cards)."""
    first, n = args
    f = E._E7 if n == 7 else E._E6
    hist = [0] * (E.TOP + 1)
    for rest in combinations(range(first + 1, 52), n - 1):
        hist[f(first, *rest)] += 1
    return hist


def census(n: int, workers: int) -> dict[str, int]:
    hist = [0] * (E.TOP + 1)
    with ProcessPoolExecutor(workers) as ex:
        for h in ex.map(_count, [(i, n) for i in range(52 - n + 1)]):
            for r, c in enumerate(h):
                hist[r] += c
    cats = {c: 0 for c in E.CATEGORIES}
    for r, c in enumerate(hist):
        if c:
            cats[E.category_of_phe(r)] += c
    cats["total"] = sum(hist)
    return cats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--six", action="store_true", help="also count the 20,358,520 six-card hands")
    a = ap.parse_args()
    runs = [(7, REF7)] + ([(6, REF6)] if a.six else [])
    ok = True
    for n, ref in runs:
        t = time.perf_counter()
        got = census(n, a.workers)
        if n == 6:  # the reference's six-card straight flushes include the royals
            got["straight_flush"] += got.pop("royal_flush")
        print(f"{n}-card hands: {got['total']:,} in {time.perf_counter() - t:.0f} s")
        for k in ref:
            mark = "ok" if got[k] == ref[k] else "MISMATCH"
            ok &= got[k] == ref[k]
            print(f"  {k:<16}{got[k]:>14,}  reference {ref[k]:>14,}  {mark}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
