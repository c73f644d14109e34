"""The gaming-day close and its documents on a synthetic floor: ``close_day`` over N machines (half Dragon Pearl
50 lines, half Tiger Reels 243 ways, one option each, par sheets computed once beforehand), then the day report
as XLSX and PDF. Prints the median of 3 runs per size and the documents' sizes and PDF page count.

Usage: ``python bench/accounting_close.py [N ...]`` (default 30 300).
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import date
from functools import partial

import pypdfium2 as pdfium

from slotsys.accounting.adapters.export_pdf import to_pdf
from slotsys.accounting.adapters.export_xlsx import to_xlsx
from slotsys.accounting.domain import chart as C
from slotsys.accounting.domain import report as R
from slotsys.accounting.domain.day_close import METERS, MachineInfo, OptionPlay, Snapshot, close_day
from slotsys.kernel.gaming_day import GamingDay
from slotsys.kernel import accounts
from slotsys.floor.domain.parsheet import par_sheet
from slotsys.floor.games import load_game


def par(game_id: str, variation: str):
    return par_sheet(load_game(game_id), variation or None)


def floor(n: int, gd: GamingDay, day: date):
    start, end = gd.bounds(day)
    machines, snaps, plays = [], [], []
    for i in range(n):
        asset = f"M{i:04d}"
        cfg = ("dragon_pearl_50", "92", 100) if i % 2 else ("tiger_reels_243", "95", 10)
        machines.append(MachineInfo(asset, f"B{i // 10}", f"Z{i // 100}"))
        zero = {m: 0 for m in METERS if m not in ("promo_in", "promo_out")}
        snaps.append(Snapshot(asset, start, "day_open", *cfg, zero))
        snaps.append(Snapshot(asset, end, "day_close", *cfg, dict(zero, coin_in=1_000_000, coin_out=900_000,
                                                                  games_played=200 if i % 2 else 400, bills_in=500_000)))
        if cfg[0] == "dragon_pearl_50":  # 50 lines × 1 × ₩100 = ₩5,000 a game
            plays.append(OptionPlay(asset, *cfg, 50, None, 1, 200, 1_000_000))
        else:  # 5 reels (25 units) × 10 × ₩10 = ₩2,500 a game
            plays.append(OptionPlay(asset, *cfg, None, 5, 10, 400, 1_000_000))
    return machines, snaps, plays


def median_of_3(fn):
    times, out = [], None
    for _ in range(3):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main(sizes: list[int]) -> None:
    gd, day = GamingDay(), date(2026, 12, 1)
    par("dragon_pearl_50", "92"), par("tiger_reels_243", "95")  # exact par sheets: computed once, cached
    for n in sizes:
        machines, snaps, plays = floor(n, gd, day)
        tc, close = median_of_3(partial(close_day, machines, snaps, plays, par))
        journal = C.summarise([(accounts.machine_hold(m.asset), -100_000) for m in machines]
                              + [(accounts.machine_credits(m.asset), 100_000) for m in machines])
        doc = R.day_report(gd, day, close, journal, generated_at=gd.bounds(day)[1])
        tx, xlsx = median_of_3(partial(to_xlsx, doc))
        tp, pdf = median_of_3(partial(to_pdf, doc))
        pages = len(pdfium.PdfDocument(pdf))
        print(f"machines {n:5d}: close_day {tc * 1e3:7.1f} ms | XLSX {tx * 1e3:6.0f} ms {len(xlsx) // 1024:4d} KiB | "
              f"PDF {tp * 1e3:6.0f} ms {len(pdf) // 1024:4d} KiB {pages:3d} pages")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [30, 300])
