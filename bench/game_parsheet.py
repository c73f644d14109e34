"""Exact par-sheet time per game and variation (target ≤ 2 s each), cold: every run parses the
definition afresh so nothing is cached.

    .venv/bin/python bench/game_parsheet.py [--repeat 3]
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

from slotsys.floor.domain.game import parse_game  # noqa: E402
from slotsys.floor.domain.parsheet import par_sheet  # noqa: E402
from slotsys.floor.games import GAMES_DIR  # noqa: E402

TARGET_S = 2.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3, help="cold runs per sheet (the best is reported)")
    args = ap.parse_args()
    worst = 0.0
    print(f"{'game':<18}{'var':>5}{'options':>9}{'best s':>9}{'RTP full bet':>14}{'lowest RTP':>12}")
    for path in sorted(GAMES_DIR.glob("*.yaml")):
        text = path.read_text()
        for v in parse_game(text).variations:
            times = []
            for _ in range(args.repeat):
                game = parse_game(text)
                t0 = time.perf_counter()
                sheet = par_sheet(game, v)
                times.append(time.perf_counter() - t0)
            best = min(times)
            worst = max(worst, best)
            print(f"{game.id:<18}{v:>5}{len(sheet.options):>9}{best:>9.3f}{float(sheet.rtp_full_bet):>14.4%}"
                  f"{float(sheet.min_rtp):>12.4%}")
    print(f"slowest sheet {worst:.3f} s (target ≤ {TARGET_S} s): {'OK' if worst <= TARGET_S else 'OVER TARGET'}")
    return 0 if worst <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
