"""A simulation split into chunks: the plan, the chunk streams, the exact merge, the same result on
1, 2 or 3 worker processes, after an interrupted run resumed from its checkpoint, and on a Dask
cluster of separate worker processes (slotsys.floor.domain.simplan, slotsys.floor.simrun)."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest

from slotsys.floor.domain.game import BetOption
from slotsys.floor.domain.sim import SimResult, sum_of_squares
from slotsys.floor.domain.simplan import CheckpointMismatch, ChunkPlan, SimSpec, default_chunk_spins, merge, run_chunk
from slotsys.floor.games import load_game
from slotsys.floor.simrun import run_simulation

# 6 chunks (the last one shorter), several batches each: every chunk plays free games, and the
# progressive symbol shows up on some reels, so each count of the merge is exercised
PLAN = ChunkPlan(spins=55_000, seed=20261203, chunk_spins=10_000, batch=3_000)


def _sim(game_id: str = "dragon_pearl_50", **bet):
    game = load_game(game_id)
    spec = SimSpec(game, game.resolve_bet(**bet) if bet else None)
    return spec, spec.build()


def _same(a: SimResult, b: SimResult) -> None:
    """Bit-identical results: every count, the histogram, the running-RTP points."""
    assert a.state() == b.state()
    assert a.checkpoints == b.checkpoints


# --------------------------------------------------------------------------- plan and streams
def test_the_plan_depends_on_spins_and_chunk_size_only():
    assert [PLAN.chunk_size(i) for i in range(PLAN.chunks)] == [10_000] * 5 + [5_000]
    with pytest.raises(IndexError):
        PLAN.chunk_size(6)
    assert default_chunk_spins(1_000_000) == 250_000  # small runs still make a few chunks
    assert default_chunk_spins(10**9) == 10_000_000 and ChunkPlan.for_spins(10**10, 1).chunks == 1_000
    assert default_chunk_spins(100_000_000) == 1_562_500
    for bad in (dict(spins=0), dict(chunk_spins=0), dict(batch=0), dict(seed=-1)):
        with pytest.raises(ValueError):
            ChunkPlan(**{**dict(spins=10, seed=1, chunk_spins=5), **bad})


def test_chunk_i_plays_the_ith_spawned_seed_sequence():
    children = np.random.SeedSequence(PLAN.seed).spawn(PLAN.chunks)
    for i, child in enumerate(children):
        assert PLAN.seed_sequence(i).generate_state(4).tolist() == child.generate_state(4).tolist()
    firsts = {int(PLAN.generator(i).integers(0, 2**62)) for i in range(PLAN.chunks)}
    assert len(firsts) == PLAN.chunks, "each chunk has a stream of its own"


# --------------------------------------------------------------------------- exact merge
@pytest.mark.parametrize("game_id,bet", [("dragon_pearl_50", {}), ("tiger_reels_243", dict(reels=3, multiplier=2))])
def test_merged_chunks_equal_one_process_playing_the_same_chunks_into_one_result(game_id, bet):
    spec, sim = _sim(game_id, **bet)
    merged = merge(PLAN, {i: run_chunk(sim, PLAN, i) for i in reversed(range(PLAN.chunks))})
    one = sim.new_result(PLAN.seed)
    for i in range(PLAN.chunks):
        sim.play(PLAN.generator(i), PLAN.chunk_size(i), one, batch=PLAN.batch)
    for k in SimResult._COUNTS:
        assert getattr(merged, k) == getattr(one, k), k
    assert merged.win_hist.tolist() == one.win_hist.tolist()
    assert merged.progressive == one.progressive
    assert merged.spins == PLAN.spins and merged.total_bet == PLAN.spins * sim.bet.credits
    assert merged.triggers > 0 and merged.free_games > merged.triggers and merged.win_hist.sum() == PLAN.spins
    assert merged.checkpoints[-1] == (PLAN.spins, merged.rtp)
    assert [s for s, _ in merged.checkpoints] == sorted({s for s, _ in merged.checkpoints})


def test_merge_refuses_a_missing_chunk_or_another_runs_chunk():
    spec, sim = _sim()
    small = ChunkPlan(spins=2_000, seed=5, chunk_spins=1_000, batch=500)
    parts = {i: run_chunk(sim, small, i) for i in range(small.chunks)}
    with pytest.raises(ValueError, match="missing"):
        merge(small, {0: parts[0]})
    other = run_chunk(sim, ChunkPlan(spins=2_000, seed=6, chunk_spins=1_000, batch=500), 1)
    with pytest.raises(ValueError, match="another run"):
        merge(small, {0: parts[0], 1: other})


def test_sum_of_squares_is_exact_beyond_int64_and_the_sd_uses_it():
    small = np.array([0, 3, 0, 250, 7], dtype=np.int64)
    assert sum_of_squares(small) == 9 + 62_500 + 49
    huge = np.array([3_000_000_000, 5, 2**40, 0, 1], dtype=np.int64)  # squares past 2⁶³
    assert sum_of_squares(huge) == sum(int(x) ** 2 for x in huge.tolist())
    wins = [0, 0, 500, 1_500, 0, 25_000, 0, 250]
    r = SimResult("g", "v", BetOption(lines=50, reels=None, multiplier=10, credits=500), None, 1,
                  spins=len(wins), total_bet=500 * len(wins), total_win=sum(wins), win_sq=sum(w * w for w in wins))
    assert r.sd == pytest.approx(statistics.stdev(w / 500 for w in wins), rel=1e-12)
    assert r.rtp == sum(wins) / (500 * len(wins))


# --------------------------------------------------------------------------- executors
def test_the_same_seed_gives_the_same_result_on_1_2_and_3_workers():
    spec, sim = _sim()
    runs = {w: run_simulation(spec, PLAN, workers=w, sim=sim) for w in (1, 2, 3)}
    assert runs[1].executor == "in-process" and runs[2].executor == "processes" and runs[3].workers == 3
    _same(runs[1].result, runs[2].result)
    _same(runs[1].result, runs[3].result)
    _same(runs[1].result, merge(PLAN, {i: run_chunk(sim, PLAN, i) for i in range(PLAN.chunks)}))


class _Stop(Exception):
    pass


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_resumes_from_its_checkpoint_to_the_same_result(tmp_path, workers):
    spec, sim = _sim()
    path = tmp_path / "run.ckpt.json"

    def stop_after_two(p):
        if p.chunks_done >= 2:
            raise _Stop

    with pytest.raises(_Stop):
        run_simulation(spec, PLAN, workers=workers, checkpoint=path, progress=stop_after_two, sim=sim)
    saved = json.loads(path.read_text())
    # in this process the run stops right after its second chunk; a pool also keeps the chunks in flight
    assert len(saved["chunks"]) == 2 if workers == 1 else len(saved["chunks"]) >= 2
    assert saved["run"]["seed"] == PLAN.seed and saved["run"]["definition_sha256"] == spec.definition_digest()
    assert not list(tmp_path.glob(".*.tmp")), "no temporary file is left beside the checkpoint"
    resumed = run_simulation(spec, PLAN, workers=2, checkpoint=path, sim=sim)
    assert resumed.resumed == len(saved["chunks"]) and resumed.played == PLAN.chunks - resumed.resumed
    _same(resumed.result, run_simulation(spec, PLAN, workers=1, sim=sim).result)
    again = run_simulation(spec, PLAN, workers=1, checkpoint=path, sim=sim)  # everything saved: nothing to play
    assert again.resumed == PLAN.chunks and again.played == 0
    _same(again.result, resumed.result)


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    spec, sim = _sim()
    path = tmp_path / "ckpt.json"
    small = ChunkPlan(spins=2_000, seed=5, chunk_spins=1_000, batch=500)
    run_simulation(spec, small, workers=1, checkpoint=path, sim=sim)
    with pytest.raises(CheckpointMismatch, match="seed 5 saved, 6 asked"):
        run_simulation(spec, ChunkPlan(spins=2_000, seed=6, chunk_spins=1_000, batch=500), workers=1, checkpoint=path)
    other_bet = SimSpec(spec.game, spec.game.resolve_bet(lines=20, multiplier=1))
    with pytest.raises(CheckpointMismatch, match="bet"):
        run_simulation(other_bet, small, workers=1, checkpoint=path)


@pytest.mark.slow
def test_a_dask_cluster_of_worker_processes_gives_the_same_result(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    spec, sim = _sim()
    local = run_simulation(spec, PLAN, workers=1, sim=sim).result
    path = tmp_path / "ckpt.json"

    def stop_after_two(p):
        if p.chunks_done >= 2:
            raise _Stop

    with pytest.raises(_Stop):  # a run started here and interrupted ...
        run_simulation(spec, PLAN, workers=1, checkpoint=path, progress=stop_after_two, sim=sim)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        run = run_simulation(spec, PLAN, scheduler=cluster.scheduler_address)
        assert run.executor == "dask" and run.workers == 2 and run.played == PLAN.chunks
        _same(run.result, local)
        resumed = run_simulation(spec, PLAN, scheduler=cluster.scheduler_address, checkpoint=path)  # ... ends there
        assert resumed.resumed == 2 and resumed.played == PLAN.chunks - 2
        _same(resumed.result, local)


def test_the_simulate_command_splits_resumes_and_reports_the_run(tmp_path):
    from click.testing import CliRunner

    from slotsys.app.mathcli import simulate

    args = ["dragon_pearl_50", "--spins", "40000", "--chunk-spins", "10000", "--seed", "9", "--json"]
    one = json.loads(CliRunner().invoke(simulate, args + ["--workers", "1"]).output)
    two = json.loads(CliRunner().invoke(simulate, args + ["--workers", "2", "--checkpoint", str(tmp_path / "c.json")]).output)
    assert one["run"]["executor"] == "in-process" and two["run"]["executor"] == "processes"
    assert one["run"]["chunks"] == 4 and one["run"]["chunk_spins"] == 10_000
    for k in ("rtp", "sd", "hit_frequency", "triggers", "free_games", "max_win_credits", "progressive"):
        assert one[k] == two[k], k
    again = json.loads(CliRunner().invoke(simulate, args + ["--checkpoint", str(tmp_path / "c.json")]).output)
    assert again["run"]["resumed_chunks"] == 4 and again["rtp"] == one["rtp"]
    r = CliRunner().invoke(simulate, args[:-1] + ["--seed", "10", "--checkpoint", str(tmp_path / "c.json")])
    assert r.exit_code == 2 and "checkpoint is of another run" in r.output and "seed 9 saved, 10 asked" in r.output
    (tmp_path / "junk.json").write_text("not json")
    r = CliRunner().invoke(simulate, args[:-1] + ["--checkpoint", str(tmp_path / "junk.json")])
    assert r.exit_code == 2 and "is not a readable checkpoint" in r.output
    r = CliRunner().invoke(simulate, args[:-1] + ["--workers", "2"])
    assert r.exit_code == 0 and "4 chunks of 10,000 on 2 worker processes" in r.output


def test_a_game_and_its_simulator_pickle_to_worker_processes():
    import pickle
    from pathlib import Path

    from slotsys.floor.domain.game import load_definition

    path = Path(__file__).resolve().parents[1] / "data" / "games" / "lucky_bars.yaml"  # a file, not a catalogue game
    game = load_definition(path.read_text(), path.name)
    spec = SimSpec(game)
    sim = spec.build()
    copy = pickle.loads(pickle.dumps(spec))
    assert copy.game == game and copy.definition_digest() == spec.definition_digest()
    assert copy.game.variations.keys() == game.variations.keys()
    small = ChunkPlan(spins=5_000, seed=3, chunk_spins=2_000, batch=1_000)
    _same(merge(small, {i: run_chunk(copy.build(), small, i) for i in range(small.chunks)}),
          merge(small, {i: run_chunk(pickle.loads(pickle.dumps(sim)), small, i) for i in range(small.chunks)}))
