"""A split simulation across cores and on a Dask cluster, and the lines game's vectorised base game,
each beside its baseline from the same run.

1. Base game of the lines game (default dragon_pearl_50, full bet, one core): the vectorised
   simulator (``Simulator.base`` draw + pay, the joint-prefix tables) vs the plain-Python
   evaluator on the same game (``draw_stops`` + the paid-game round ``evaluate`` plays,
   ``evaluator._round``), spins/s and ratio. Target ≥ 5,000,000 vectorised spins/s per core.
2. Full game (free games included) through ``slotsys.floor.simrun.run_simulation``: the same chunk
   plan on 1 worker (this process) and on 2 worker processes; spins/s per core and the scaling
   efficiency rate(2) / (2 × rate(1)), on the wall time with worker start-up and on the steady
   part (after every worker finished its first chunk). Target ≥ 90% of linear on 2 quiet cores.
3. The same plan on a Dask ``LocalCluster`` of 2 worker processes (1 thread each), cold (imports
   and tables built on the workers) and warm, beside the process-pool figure.

Every run checks that the merged results are bit-identical. The box may be shared: the 1-minute
load average is printed beside each figure (a load near the core count halves what a second
worker can get).

    .venv/bin/python bench/sim_scaling.py [--game dragon_pearl_50] [--spins 12000000] [--chunk-spins 1000000]
        [--base-spins 8000000] [--python-spins 20000] [--rounds 2] [--no-dask]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slotsys.floor.simrun import pin_blas  # noqa: E402

pin_blas()  # before the first BLAS call; the workers pin their own

import numpy as np  # noqa: E402

from slotsys.floor.domain import evaluator as ev  # noqa: E402
from slotsys.floor.domain.simplan import ChunkPlan, SimSpec  # noqa: E402
from slotsys.floor.games import load_game  # noqa: E402
from slotsys.floor.simrun import run_simulation  # noqa: E402

BASE_TARGET = 5_000_000
EFFICIENCY_TARGET = 0.90


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}/{os.cpu_count()} cores"


def base_game(game, sim, spins: int, python_spins: int, batch: int = 131_072) -> tuple[float, float, float, float]:
    """(vectorised spins/s, plain-Python spins/s, vectorised base RTP, plain-Python base RTP), interleaved
    in three rounds, medians."""
    bet, var = sim.bet, sim.var
    vec, py = [], []
    vec_total = vec_n = py_total = py_n = 0
    gen = np.random.Generator(np.random.PCG64(1))
    rng = ev.SeededRng(1)
    for _ in range(3):
        t0 = time.perf_counter()
        done = 0
        while done < spins // 3:
            n = min(batch, spins // 3 - done)
            v, sc = sim.base.pay(sim.base.draw(gen, n))
            vec_total += int((v * bet.multiplier + sim.f[sc] * bet.credits).sum())
            done += n
        vec.append(done / (time.perf_counter() - t0))
        vec_n += done
        t0 = time.perf_counter()
        for _ in range(python_spins // 3):
            stops = ev.draw_stops(var.reels, rng)
            _, wins, _ = ev._round(game, bet, var.reels, stops, (), 1)
            py_total += sum(w.pay_credits for w in wins)
        py.append((python_spins // 3) / (time.perf_counter() - t0))
        py_n += python_spins // 3
    return (float(np.median(vec)), float(np.median(py)), vec_total / (vec_n * bet.credits),
            py_total / (py_n * bet.credits))


def timed_run(spec, plan, sim, **kw):
    """run_simulation with chunk completion times: (report, steady spins/s after the first chunk of every worker)."""
    marks: list[tuple[float, int]] = []
    t0 = time.perf_counter()
    rep = run_simulation(spec, plan, sim=sim, progress=lambda p: marks.append((time.perf_counter() - t0, p.spins_done)),
                         **kw)
    warm = min(len(marks) - 1, rep.workers)  # marks[0] is the start; marks[k] after k chunks
    (ta, sa), (tb, sb) = marks[warm], marks[-1]
    steady = (sb - sa) / (tb - ta) if tb > ta and sb > sa else rep.spins_per_second
    return rep, steady


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="dragon_pearl_50")
    ap.add_argument("--spins", type=int, default=12_000_000, help="full-game paid games per scaling run")
    ap.add_argument("--chunk-spins", type=int, default=1_000_000)
    ap.add_argument("--base-spins", type=int, default=8_000_000, help="vectorised base-game spins")
    ap.add_argument("--python-spins", type=int, default=20_000, help="plain-Python evaluator spins")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rounds", type=int, default=2, help="alternating 1-worker / 2-worker rounds")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    game = load_game(args.game)
    spec = SimSpec(game)
    sim = spec.build()
    bet = sim.bet
    print(f"{game.name} ({game.id}) variation {sim.var.key}, full bet {bet.credits} credits; {os.cpu_count()} cores, {load()}")

    # ---- 1. base game: vectorised vs the plain-Python evaluator
    vec, py, vec_rtp, py_rtp = base_game(game, sim, args.base_spins, args.python_spins)
    ok_base = vec >= BASE_TARGET
    print(f"base game, one core ({load()}):")
    print(f"  vectorised (NumPy) {vec:>12,.0f} spins/s  (base-game RTP {vec_rtp:.4%} over {args.base_spins:,})")
    print(f"  plain Python       {py:>12,.0f} spins/s  (base-game RTP {py_rtp:.4%} over {args.python_spins:,})  baseline")
    print(f"  ratio {vec / py:,.0f}x; target >= {BASE_TARGET:,}/s per core: {'OK' if ok_base else 'BELOW TARGET'}")

    # ---- 2. full game over 1 and 2 workers, alternating rounds (the load of a shared box drifts), medians
    plan = ChunkPlan.for_spins(args.spins, args.seed, args.chunk_spins)
    print(f"full game (free games included), {plan.spins:,} paid games in {plan.chunks} chunks of {plan.chunk_spins:,}, "
          f"{args.rounds} alternating rounds:")
    rates: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    states = set()
    for r in range(args.rounds):
        for w in (1, 2):
            rep, steady = timed_run(spec, plan, sim, workers=w)
            rates[w].append((rep.spins_per_second, steady))
            states.add(repr(rep.result.state()))
            print(f"  round {r + 1}: {w} worker{'s' if w > 1 else ' '} ({rep.executor:>10}) "
                  f"{rep.spins_per_second / w:>12,.0f} spins/s per core, wall {rep.seconds:5.2f} s   ({load()})")
    one_wall, one_steady = (float(np.median([x[k] for x in rates[1]])) for k in (0, 1))
    two_wall, two_steady = (float(np.median([x[k] for x in rates[2]])) for k in (0, 1))
    same = len(states) == 1
    eff_wall = two_wall / (2 * one_wall)
    eff_steady = two_steady / (2 * one_steady)
    print(f"  median per core: 1 worker {one_wall:,.0f} spins/s (baseline), 2 workers {two_wall / 2:,.0f} spins/s")
    print(f"  scaling efficiency: {eff_wall:.0%} of linear on wall time (worker start-up included), "
          f"{eff_steady:.0%} steady (after each worker's first chunk); target >= {EFFICIENCY_TARGET:.0%} on quiet cores: "
          f"{'OK' if eff_steady >= EFFICIENCY_TARGET else 'BELOW TARGET (see the load average)'}")
    print(f"  results bit-identical on 1 and 2 workers: {same}")

    # ---- 3. Dask LocalCluster, separate worker processes
    ok_dask = True
    if not args.no_dask:
        from dask.distributed import LocalCluster

        t0 = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            up = time.perf_counter() - t0
            cold, _ = timed_run(spec, plan, sim, scheduler=cluster.scheduler_address)
            warm, warm_steady = timed_run(spec, plan, sim, scheduler=cluster.scheduler_address)
        ok_dask = {repr(cold.result.state()), repr(warm.result.state())} == states
        print(f"Dask LocalCluster, 2 worker processes x 1 thread (cluster up in {up:.1f} s):")
        print(f"  cold (imports, tables built on the workers) {cold.spins_per_second / 2:>12,.0f} spins/s per core, "
              f"wall {cold.seconds:.2f} s   ({load()})")
        print(f"  warm                                        {warm.spins_per_second / 2:>12,.0f} spins/s per core, "
              f"wall {warm.seconds:.2f} s; steady {warm_steady / 2:,.0f}/s per core = "
              f"{warm_steady / (2 * one_steady):.0%} of linear   ({load()})")
        print(f"  vs the process pool {two_wall / 2:,.0f} spins/s per core (median); results bit-identical: {ok_dask}")
    return 0 if same and ok_dask and ok_base else 1


if __name__ == "__main__":
    sys.exit(main())
