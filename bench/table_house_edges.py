"""House edges of Caribbean stud, pai gow poker (player and banker, each house way) and Texas Hold'em Bonus,
each with its precision and the published figure beside it.

    .venv/bin/python bench/table_house_edges.py [--quick] [--games caribbean paigow holdem]
        [--deals 100000] [--hands 10000000] [--workers 2] [--write]

* Caribbean stud: a self-check first (``caribbean_edge.self_check``: inclusion–exclusion counts = brute force,
  134,459 suit classes), then **exact** (``caribbean_edge.exact_edge``: 134,459 suit classes × 47 upcards,
  every dealer hand by inclusion–exclusion; 5–10 min of one core, under 1 GB). ``--quick`` runs the self-check
  and a 200,000-hand simulation instead of the enumeration.
* Pai gow poker: ``--deals`` antithetic deals per house way (``paigow_edge.simulate``), seeds
  ``pg-<way>-<chunk>``; player and banker edges at a ₩10,000 stake (5% commission rounded up to ₩100).
* Texas Hold'em Bonus: ``--hands`` hands of strategy S1 (``holdem_bonus_sim.simulate``), seeds
  ``thb-<chunk>`` (the same seeds as ``bench/table_poker_holdem_edge.py``).

``--write`` stores the figures, the command and the seeds in ``table_games/domain/house_edges.json`` (what
the API and the docs show; nothing is simulated at request time). ``--quick`` never writes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from functools import reduce
from operator import add
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_games.domain import caribbean_edge as CE  # noqa: E402
from table_games.domain import holdem_bonus_sim as HS  # noqa: E402
from table_games.domain import house_edges as HE  # noqa: E402
from table_games.domain import paigow_edge as PE  # noqa: E402

CHUNKS = 20


def _pg(args):
    n, seed, policy = args
    return PE.simulate(n, seed, policy)


def _thb(args):
    n, seed = args
    return HS.simulate(n, seed)


def _cs(args):
    n, seed = args
    return CE.simulate(n, seed, "AKJ83_or_better")


def _line(name: str, edge: float, ci: tuple[float, float] | None, ref: str) -> None:
    span = f"[{ci[0]:.3%}, {ci[1]:.3%}]" if ci else "exact"
    print(f"  {name:<38} {edge:>8.4%}   {span:<20}  {ref}")


def caribbean(a, ex) -> dict:
    pub = HE.published("caribbean_stud")
    t = time.perf_counter()
    hands, ranks = CE.all_hands()
    built = (hands, ranks, CE.SubsetTables.build(hands, ranks))
    bad = CE.self_check(prebuilt=built)
    print(f"  self-check (inclusion–exclusion = brute force on 6 hands ± upcard; 134,459 suit classes): "
          f"{'OK' if not bad else bad} ({time.perf_counter() - t:.0f} s)")
    if bad:
        raise SystemExit(1)
    if a.quick:
        n = 200_000
        sims = reduce(add, ex.map(_cs, [(n // CHUNKS, f"cs-{i}") for i in range(CHUNKS)]))
        _line("ante, raise AKJ83+ (simulated)", sims.house_edge, sims.ci95(),
              f"exact stored {HE.figure('caribbean_stud', 'AKJ83_or_better')['house_edge']:.4%}")
        return {}
    t = time.perf_counter()
    res = CE.exact_edge(prebuilt=built)
    print(f"  (exact: 19,933,230,517,200 player/dealer pairs, {time.perf_counter() - t:.0f} s)")
    for name, e in res.items():
        ref = pub.get(name)
        _line(f"ante, {name}", float(e.edge), None,
              f"published {ref:.3%}" if ref else "")
        print(f"  {'':<38} element of risk {float(e.element_of_risk):.4%}, calls {float(e.call_rate):.3%}")
    return {"method": "exact enumeration (caribbean_edge.exact_edge)", "paytable": dict(CE.C.STANDARD.call_pays),
            "strategies": {n: e.to_dict() for n, e in res.items()}}


def paigow(a, ex) -> dict:
    out = {}
    pub = HE.published("pai_gow_poker")
    for policy in ("9-1", "9-2", "9-3"):
        per = max(1, a.deals // CHUNKS)
        s = reduce(add, ex.map(_pg, [(per, f"pg-{policy}-{i}", policy) for i in range(CHUNKS)]))
        pr = s.probabilities()
        print(f"  house way {policy}: {s.pairs:,} deals × 2 games; player wins {pr['player_wins']:.4%}, "
              f"push {pr['push']:.4%}, banker wins {pr['banker_wins']:.4%}")
        entry = {"sample": s.to_dict(), "probabilities": pr}
        for side in ("player", "banker"):
            e = s.edge(side)
            _line(f"{side} ({policy}, ₩10,000 stake)", e.value, e.ci95(), f"published {pub[side]:.2%}")
            entry[side] = {"house_edge": e.value, "se": e.se, "ci95": list(e.ci95()), "games": e.games}
        out[policy] = entry
    return {"method": "seeded antithetic simulation (paigow_edge.simulate), both hands by the house way",
            "stake": 10_000, "commission_ppm": 50_000, "commission_unit": 100,
            "seeds": f"pg-<way>-0 … pg-<way>-{CHUNKS - 1}, {max(1, a.deals // CHUNKS):,} deals each",
            "house_ways": out}


def holdem(a, ex) -> dict:
    per = a.hands // CHUNKS
    s = reduce(add, ex.map(_thb, [(per, f"thb-{i}") for i in range(CHUNKS)]))
    lo, hi = s.house_edge - 1.96 * s.se, s.house_edge + 1.96 * s.se
    _line("ante, strategy S1", s.house_edge, (lo, hi),
          f"published ≈{HE.published('holdem_bonus')['optimal']:.1%} (optimal play)")
    return {"method": "seeded simulation (holdem_bonus_sim.simulate), strategy S1", "hands": s.hands,
            "house_edge": s.house_edge, "se": s.se, "ci95": [lo, hi],
            "seeds": f"thb-0 … thb-{CHUNKS - 1}, {per:,} hands each", "ante_pays_from": "straight"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small runs (about a minute); never writes")
    ap.add_argument("--games", nargs="+", default=["caribbean", "paigow", "holdem"],
                    choices=["caribbean", "paigow", "holdem"])
    ap.add_argument("--deals", type=int, default=100_000, help="pai gow deals per house way")
    ap.add_argument("--hands", type=int, default=10_000_000, help="Texas Hold'em Bonus hands")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--write", action="store_true", help=f"store the figures in {HE.DATA.name}")
    a = ap.parse_args()
    if a.quick:
        a.deals, a.hands = min(a.deals, 4_000), min(a.hands, 400_000)
    print(f"{'':<40} {'edge':>8}   {'95% CI':<20}  reference")
    figures = {}
    with ProcessPoolExecutor(a.workers) as ex:
        for g in a.games:
            t = time.perf_counter()
            print(f"{HE.TITLES[g]}")
            fig = {"caribbean": caribbean, "paigow": paigow, "holdem": holdem}[g](a, ex)
            print(f"  ({time.perf_counter() - t:.0f} s)")
            if fig:
                fig["command"] = " ".join(["python bench/table_house_edges.py", *sys.argv[1:]])
                fig["computed_at"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                figures[HE.KEYS[g]] = fig
    if a.write and not a.quick:
        data = HE.load()  # re-read: another run may have stored other games meanwhile
        data["computed"].update(figures)
        HE.DATA.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {HE.DATA}")


if __name__ == "__main__":
    main()
